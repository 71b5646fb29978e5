/**
 * A POST to the HTTP server transport: the client's messages checked and
 * handed to the server under ids of the server's own, and their answers —
 * the whole SSE text at once when they are ready by the end of the
 * event-loop turn, else one stream, primed for resuming in session mode.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import { DEFAULT_NEGOTIATED_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type {
  JSONRPCMessage,
  MessageExtraInfo,
} from "@modelcontextprotocol/sdk/types.js";
import type { ConnectionInfo } from "./_sse_body.ts";
import { afterThisTurn } from "./_turn.ts";
import { PRIMING_VERSION } from "./event_store.ts";
import { sessionNotFound, storeUnavailable } from "./guard.ts";
import { answerHeld, storeWasDown } from "../../store/request_hold.ts";
import { isInitialize, isJsonRpcMessage, type RequestId } from "./_messages.ts";
import { checkRequest, decline, refuse, without } from "./_refusals.ts";
import { authOf } from "./_auth.ts";
import type { EndListener, Stream, StreamTable } from "./_stream_table.ts";

/** The SDK's cap on messages in one batch. */
const MAX_BATCH = 100;

/**
 * Answers a POST whose body the caller parsed (`undefined`: not JSON).
 * `onEnd` is told once when the request holds nothing any more.
 */
export async function post(
  table: StreamTable,
  req: Request,
  body: unknown,
  info: ConnectionInfo | undefined,
  onEnd: EndListener,
): Promise<Response> {
  const shape = shapeRefusal(req, body);
  if (shape !== undefined) {
    return decline(table, onEnd, shape.status, shape.code, shape.message);
  }
  const batch = Array.isArray(body);
  const messages = (batch ? body : [body]) as JSONRPCMessage[];
  let init: { params: { protocolVersion: string } } | undefined;
  let requests = 0;
  for (const m of messages) {
    if (!("method" in m) || !("id" in m)) continue;
    requests++;
    if (m.method === "initialize" && isInitialize(m)) init ??= m;
  }
  const version = req.headers.get("mcp-protocol-version");
  const refusal = sessionRefusal(table, req, init, messages.length);
  if (refusal !== undefined) return without(onEnd, refusal);
  if (table.closed) return without(onEnd, sessionNotFound());
  const extra = requestInfo(req);
  const admitted = messages.map((m) => table.admit(m));
  if (requests === 0) {
    for (const m of admitted) table.deliver(m, extra);
    onEnd("delivered");
    return new Response(null, { status: 202 });
  }
  const stream = openStream(table, admitted, onEnd);
  const ids = stream.ids;
  const events = table.options.events;
  const primed = events !== undefined &&
    effectiveVersion(table, init?.params.protocolVersion, version) >=
      PRIMING_VERSION;
  try {
    if (primed) {
      const id = await events.storeEvent(stream.id, {} as JSONRPCMessage);
      const retry = table.options.retry;
      stream.body.write(
        retry === undefined
          ? `id: ${id}\ndata: \n\n`
          : `id: ${id}\nretry: ${retry}\ndata: \n\n`,
      );
      stream.resumable = true;
      stream.primed = true;
    }
    const ready = firstTurn(table, stream, admitted, extra);
    if (ready !== undefined) await ready;
    stream.ready = undefined;
  } catch (error) {
    table.forget(stream);
    throw error;
  }
  const headers = table.sseHeaders();
  if (stream.pending === 0) {
    // Everything is in: the whole text at once.
    await watchDelivery(table, stream, info);
    if (requests === 1 && storeWasDown(extra.requestInfo)) {
      // The one request failed because the shared store is unreachable.
      return storeUnavailable(ids.length === 1 ? clientId(messages) : null);
    }
    return new Response(stream.body.text, { status: 200, headers });
  }
  await table.commit(stream);
  return new Response(table.open(stream, req, info), {
    status: 200,
    headers,
  });
}

/**
 * The refusal of a POST by the session it opens or names: a second
 * `initialize` on an initialized session, or one sharing its batch
 * (400), else a request not for this session or at an unsupported
 * version (`checkRequest`). An `initialize` that passes starts the
 * session.
 */
function sessionRefusal(
  table: StreamTable,
  req: Request,
  init: unknown,
  count: number,
): Response | undefined {
  if (init === undefined) return checkRequest(table, req);
  if (table.initialized && table.sessionId !== undefined) {
    return refuse(
      table,
      400,
      -32600,
      "Invalid Request: Server already initialized",
    );
  }
  if (count > 1) {
    return refuse(
      table,
      400,
      -32600,
      "Invalid Request: Only one initialization request is allowed",
    );
  }
  table.sessionId = table.options.sessionId;
  table.initialized = true;
  if (table.sessionId !== undefined) {
    table.options.onInitialized?.(table.sessionId);
  }
  return undefined;
}

/** The stream a POST's requests answer on, in the table under its id and theirs. */
function openStream(
  table: StreamTable,
  admitted: readonly JSONRPCMessage[],
  onEnd: EndListener,
): Stream {
  const ids: RequestId[] = [];
  for (const m of admitted) {
    if ("method" in m && "id" in m) ids.push(m.id as RequestId);
  }
  const stream = table.stream(crypto.randomUUID(), ids);
  stream.onEnd = onEnd;
  table.streams.set(stream.id, stream);
  for (const id of ids) table.byRequest.set(id, stream);
  return stream;
}

/**
 * Hands the admitted messages to the server in the POST's first turn
 * (`stream.ready` set: answers then are kept for one whole text): the
 * wait for the answers still pending at its end, else `undefined`. A
 * handler reading a shared store holds the answer until the store
 * answered (an outage is then a 503, not a 200 stream).
 */
function firstTurn(
  table: StreamTable,
  stream: Stream,
  admitted: readonly JSONRPCMessage[],
  extra: MessageExtraInfo,
): Promise<void> | undefined {
  const ready = new Promise<void>((resolve) => {
    stream.ready = resolve;
  });
  for (const m of admitted) {
    if (stream.primed && "id" in m && "method" in m) {
      const id = m.id as RequestId;
      table.deliver(m, {
        ...extra,
        closeSSEStream: () => table.closeStream(id),
        closeStandaloneSSEStream: () => table.closeStandalone(),
      } as MessageExtraInfo);
    } else {
      table.deliver(m, extra);
    }
  }
  if (stream.pending === 0) return undefined;
  afterThisTurn(() => {
    const held = answerHeld(extra.requestInfo);
    if (held === undefined) stream.ready?.();
    // Down: the error answer is on its way, and ends the wait itself.
    else {
      void held.then(() => {
        if (!storeWasDown(extra.requestInfo)) stream.ready?.();
      });
    }
  });
  return ready;
}

/** A POST refused for its shape: status, JSON-RPC code, the SDK transport's words. */
export interface ShapeRefusal {
  readonly status: number;
  readonly code: number;
  readonly message: string;
}

/**
 * The refusals of a POST by its shape alone, in the SDK transport's order
 * (before any session or version check): an `Accept` not naming both JSON
 * and SSE (406), a body that is not JSON (415), a batch over the cap, a
 * message that is not JSON-RPC (400).
 */
export function shapeRefusal(
  req: Request,
  body: unknown,
): ShapeRefusal | undefined {
  const accept = req.headers.get("accept");
  if (
    !accept?.includes("application/json") ||
    !accept.includes("text/event-stream")
  ) {
    return {
      status: 406,
      code: -32000,
      message:
        "Not Acceptable: Client must accept both application/json and text/event-stream",
    };
  }
  if (body === undefined) {
    return {
      status: 415,
      code: -32000,
      message: "Unsupported Media Type: Content-Type must be application/json",
    };
  }
  const batch = Array.isArray(body);
  if (batch && body.length > MAX_BATCH) {
    return {
      status: 400,
      code: -32600,
      message: `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`,
    };
  }
  const messages = (batch ? body : [body]) as unknown[];
  if (!messages.every(isJsonRpcMessage)) {
    return {
      status: 400,
      code: -32700,
      message: "Parse error: Invalid JSON-RPC message",
    };
  }
  return undefined;
}

/** The client's id of the one request among `messages`. */
function clientId(messages: readonly JSONRPCMessage[]): RequestId | null {
  for (const m of messages) {
    if ("method" in m && "id" in m) return m.id as RequestId;
  }
  return null;
}

/** The version a POST's stream is primed by (the SDK's rule, raised to the session's). */
function effectiveVersion(
  table: StreamTable,
  initVersion: string | undefined,
  header: string | null,
): string {
  if (initVersion !== undefined) return initVersion;
  const asked = header ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
  const negotiated = table.options.protocol;
  return negotiated !== undefined && negotiated >= PRIMING_VERSION &&
      negotiated > asked
    ? negotiated
    : asked;
}

// A response sent whole: delivered when the server says so; dropped,
// its events stay for a resumption.
// A failed delivery is when the events named but not stored are written:
// a resumption looks for them then.
async function watchDelivery(
  table: StreamTable,
  stream: Stream,
  info: ConnectionInfo | undefined,
): Promise<void> {
  table.streams.delete(stream.id);
  const onEnd = stream.onEnd;
  stream.onEnd = undefined;
  const delivered = () => {
    if (stream.stored) table.options.onDelivered?.(stream.id);
  };
  const completed = info?.completed;
  if (completed === undefined) {
    await table.commit(stream);
    delivered();
  } else {
    completed.then(delivered, () => table.commit(stream));
  }
  onEnd?.("delivered");
}

/**
 * What handlers see of the HTTP request (`extra.requestInfo`): its headers
 * and URL, built only when a handler reads them.
 */
export function requestInfo(req: Request): MessageExtraInfo {
  let headers: Record<string, string> | undefined;
  let url: URL | undefined;
  return {
    // The caller `auth` verified: `extra.authInfo` in handlers.
    authInfo: authOf(req),
    requestInfo: {
      get headers() {
        return headers ??= Object.fromEntries(req.headers.entries());
      },
      get url() {
        return url ??= new URL(req.url);
      },
    },
  } as MessageExtraInfo;
}
