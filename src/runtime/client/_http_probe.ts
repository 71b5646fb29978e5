/**
 * The `server/discover` probe over Streamable HTTP: a POST of its own (not
 * through the SDK's transport) so the era can be judged on the status and
 * the body, not on an error's text.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport";
import { HEADER, META } from "../era/era.ts";
import type { ProbeOutcome } from "../era/era_client.ts";

/** Where and how the probe is sent. */
export interface HttpProbeOptions {
  /** The endpoint. */
  readonly url: URL;
  /** The user's headers (an `Authorization`, say). */
  readonly headers?: HeadersInit;
  /** The fetch to use. */
  readonly fetch: FetchLike;
}

/** Sends `request` (a `server/discover`) and tells what came back. */
export async function probeHttp(
  request: JSONRPCRequest,
  signal: AbortSignal,
  options: HttpProbeOptions,
): Promise<ProbeOutcome> {
  const headers = new Headers(options.headers);
  headers.set("content-type", "application/json");
  headers.set("accept", "application/json, text/event-stream");
  const meta = (request.params?._meta ?? {}) as Record<string, unknown>;
  headers.set(HEADER.protocolVersion, String(meta[META.protocolVersion]));
  headers.set(HEADER.method, request.method);
  let response: Response;
  try {
    response = await options.fetch(options.url, {
      method: "POST",
      headers,
      body: JSON.stringify(request),
      signal,
    });
  } catch (error) {
    return { kind: "network-error", error };
  }
  const type = (response.headers.get("content-type") ?? "").split(";")[0]
    .trim().toLowerCase();
  try {
    if (response.ok && type === "text/event-stream" && response.body) {
      // Read up to the answer only: the stream may stay open after it.
      const answer = await answerInStream(response.body, request.id);
      if (answer !== undefined) return answer;
      return { kind: "http-error", status: response.status, body: "" };
    }
    const body = await response.text();
    if (!response.ok) {
      return { kind: "http-error", status: response.status, body };
    }
    // A 2xx without an answer (a 202, an HTML page): not a modern server.
    return answerTo(body, request.id) ??
      { kind: "http-error", status: response.status, body };
  } catch (error) {
    return { kind: "network-error", error };
  }
}

async function answerInStream(
  stream: ReadableStream<Uint8Array>,
  id: string | number,
): Promise<ProbeOutcome | undefined> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return findAnswer(eventData(buffered), id);
      buffered += value;
      const end = buffered.lastIndexOf("\n\n");
      if (end < 0) continue;
      const answer = findAnswer(eventData(buffered.slice(0, end)), id);
      if (answer !== undefined) return answer;
      buffered = buffered.slice(end + 2);
    }
  } finally {
    reader.cancel().catch(() => {
      // Nothing lost: the answer is read; the rest of the stream is not wanted.
    });
  }
}

function findAnswer(
  events: readonly string[],
  id: string | number,
): ProbeOutcome | undefined {
  for (const text of events) {
    const answer = answerTo(text, id);
    if (answer !== undefined) return answer;
  }
  return undefined;
}

// The `data` of each event in an SSE body.
function eventData(body: string): string[] {
  const events: string[] = [];
  let data: string[] = [];
  for (const line of body.split(/\r\n|\r|\n/)) {
    if (line === "") {
      if (data.length > 0) events.push(data.join("\n"));
      data = [];
    } else if (line.startsWith("data:")) {
      data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
    }
  }
  if (data.length > 0) events.push(data.join("\n"));
  return events;
}

function answerTo(
  text: string,
  id: string | number,
): ProbeOutcome | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const m = parsed as Record<string, unknown>;
  if (m.id !== id) return undefined;
  if ("result" in m) return { kind: "result", result: m.result };
  const error =
    (typeof m.error === "object" && m.error !== null ? m.error : {}) as Record<
      string,
      unknown
    >;
  return {
    kind: "rpc-error",
    code: typeof error.code === "number" ? error.code : 0,
    message: typeof error.message === "string" ? error.message : "",
    data: error.data,
  };
}
