/**
 * What the HTTP handler checks before a request reaches a server: the
 * DNS-rebinding rule (Host, Origin), the body cap, and the JSON-RPC error
 * bodies it answers with (fixed messages, never a stack or a client's bytes).
 *
 * @module
 */

import { parseLossless } from "../../core/json.ts";

/** The remote side of a request, as `Deno.serve` passes it (`info.remoteAddr`). */
export interface RemoteAddress {
  /** `"tcp"`, `"udp"`, `"unix"`, … */
  readonly transport: string;
  /** The peer's IP address, for network transports. */
  readonly hostname?: string;
}

/** The rebinding rule's settings. */
export interface GuardOptions {
  /** Host header values (`host` or `host:port`) accepted. Absent: see {@link checkRebinding}. */
  readonly allowedHosts?: readonly string[];
  /** Origin header values (`scheme://host[:port]`) accepted. Absent: loopback origins only. */
  readonly allowedOrigins?: readonly string[];
}

/** Why the rebinding rule refused a request. */
export interface RebindingRefusal {
  /** The header that failed. */
  readonly header: "Host" | "Origin";
  /** Our words for the failure (never the header's value). */
  readonly reason: string;
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** A JSON-RPC error body with a fixed message, as a Response. */
export function jsonRpcError(
  status: number,
  code: number,
  message: string,
  id: string | number | null = null,
  headers: Record<string, string> = {},
): Response {
  const body = JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } });
  return new Response(body, {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** The answer to anything that went wrong inside: 500, -32603, `Internal error`. */
export function internalError(): Response {
  return jsonRpcError(500, -32603, "Internal error");
}

/** The hostname part of a Host header value, lowercased, without its port. */
export function hostName(host: string): string {
  const lower = host.trim().toLowerCase();
  if (lower.startsWith("[")) {
    const end = lower.indexOf("]");
    return end === -1 ? lower : lower.slice(0, end + 1);
  }
  const colon = lower.indexOf(":");
  return colon === -1 ? lower : lower.slice(0, colon);
}

/** Whether an IP address is a loopback address (127.0.0.0/8, ::1, IPv4-mapped 127.x). */
export function isLoopbackAddress(address: string): boolean {
  const a = address.toLowerCase().replace(/^\[|\]$/g, "");
  return a === "::1" || a.startsWith("127.") || a.startsWith("::ffff:127.");
}

/**
 * Applies the DNS-rebinding rule; resolves to a refusal, or `undefined`.
 *
 * Host: with `allowedHosts`, the Host header must equal an entry or its
 * hostname must. A missing (or empty) Host header is replaced by the
 * request URL's host (`handler(new Request("http://localhost/mcp", …))`). Without, the rule applies to requests that come from a
 * loopback address, or whose remote address is unknown: their Host must be
 * `localhost`, `127.0.0.1` or `[::1]`, any port — a page on another name
 * that resolved to 127.0.0.1 is exactly the rebinding attack. Requests from
 * other addresses (a public deployment) pass.
 *
 * Origin, when the header is present: it must be in `allowedOrigins`, or,
 * without that list, have a loopback hostname.
 */
export function checkRebinding(
  req: Request,
  remote: RemoteAddress | undefined,
  options: GuardOptions,
): RebindingRefusal | undefined {
  // A Request built in-process (or an HTTP/1.0 one) may carry no Host
  // header: then its URL names the host. A Host header, when present, wins.
  const header = req.headers.get("host");
  const host = header !== null && header.trim() !== ""
    ? header
    : hostOfUrl(req.url);
  if (options.allowedHosts !== undefined) {
    const hostname = hostName(host);
    const ok = options.allowedHosts.some((entry) => {
      const e = entry.toLowerCase();
      return e === host.toLowerCase() || e === hostname;
    });
    if (!ok) return { header: "Host", reason: "Host not in allowedHosts" };
  } else if (remote === undefined || isLoopbackAddress(remote.hostname ?? "")) {
    if (!LOOPBACK_NAMES.has(hostName(host))) {
      return {
        header: "Host",
        reason: "Host is not a loopback name on a local request",
      };
    }
  }
  const origin = req.headers.get("origin");
  if (origin === null) return undefined;
  if (options.allowedOrigins !== undefined) {
    return options.allowedOrigins.includes(origin)
      ? undefined
      : { header: "Origin", reason: "Origin not in allowedOrigins" };
  }
  let originHost: string;
  try {
    originHost = new URL(origin).hostname;
  } catch {
    return { header: "Origin", reason: "Origin is not a URL" };
  }
  return LOOPBACK_NAMES.has(originHost)
    ? undefined
    : { header: "Origin", reason: "Origin is not a loopback origin" };
}

function hostOfUrl(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}

/** The client-visible answer to a rebinding refusal. */
export function forbidden(refusal: RebindingRefusal): Response {
  return jsonRpcError(
    403,
    -32000,
    `Forbidden: ${refusal.header} header not allowed`,
  );
}

/** The client-visible answer to a body over the cap. */
export function tooLarge(limit: number): Response {
  return jsonRpcError(
    413,
    -32000,
    `Payload Too Large: request body exceeds ${limit} bytes`,
  );
}

/** A request body read under the cap: its lossless parse, or why not. */
export type BodyResult =
  | { readonly kind: "json"; readonly value: unknown }
  | { readonly kind: "tooLarge" }
  | { readonly kind: "invalid"; readonly cause: unknown };

/**
 * Reads and parses a request body, refusing more than `limit` bytes: a
 * `Content-Length` over the cap is refused before anything is read, and a
 * streamed body is counted as it arrives and cancelled as soon as it passes
 * the cap. The text is parsed with the lossless reader.
 */
export async function readJsonBody(
  req: Request,
  limit: number,
): Promise<BodyResult> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > limit) {
    await req.body?.cancel().catch(() => {});
    return { kind: "tooLarge" };
  }
  if (req.body === null) {
    return { kind: "invalid", cause: new SyntaxError("empty body") };
  }
  const reader = req.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return { kind: "tooLarge" };
    }
    parts.push(value);
  }
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(
      await new Blob(parts as BlobPart[]).arrayBuffer(),
    );
    return { kind: "json", value: parseLossless(text) };
  } catch (cause) {
    return { kind: "invalid", cause };
  }
}

/** Whether a Content-Type names JSON (`application/json`, any parameters). */
export function isJsonContentType(contentType: string | null): boolean {
  if (contentType === null) return false;
  return contentType.split(";")[0].trim().toLowerCase() === "application/json";
}
