/**
 * Reading JSON-RPC ids off messages and request bodies, for the HTTP client
 * transport's call tracking.
 *
 * @module
 */

/** A JSON-RPC request id. */
export type RequestId = string | number;

/** The id of a request (not a notification), or `undefined`. */
export function requestIdOf(message: unknown): RequestId | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const m = message as Record<string, unknown>;
  if (typeof m.method !== "string") return undefined;
  return typeof m.id === "string" || typeof m.id === "number"
    ? m.id
    : undefined;
}

/** The id a response answers, or `undefined` for anything else. */
export function responseIdOf(message: unknown): RequestId | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const m = message as Record<string, unknown>;
  if ("method" in m || !("result" in m || "error" in m)) return undefined;
  return typeof m.id === "string" || typeof m.id === "number"
    ? m.id
    : undefined;
}

/** The request a `notifications/cancelled` names, or `undefined`. */
export function cancelledIdOf(message: unknown): RequestId | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const m = message as { method?: unknown; params?: { requestId?: unknown } };
  if (m.method !== "notifications/cancelled") return undefined;
  const id = m.params?.requestId;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

/** The id of the request a POST carries (its body as a string), or `undefined`. */
export function postedRequestId(
  init: RequestInit | undefined,
): RequestId | undefined {
  if (init?.method !== "POST" || typeof init.body !== "string") {
    return undefined;
  }
  // The SDK writes a request as `{"method":…,"jsonrpc":"2.0","id":<n>}`:
  // read the id off its end without parsing the whole body.
  const body = init.body;
  if (body.startsWith('{"method":"')) {
    const tail = SDK_REQUEST_TAIL.exec(body.slice(-40));
    if (tail !== null) return Number(tail[1]);
  }
  try {
    return requestIdOf(JSON.parse(body));
  } catch {
    return undefined;
  }
}

/** Whether a POST carries an `initialize` request (its body as a string). */
export function postsInitialize(init: RequestInit | undefined): boolean {
  if (init?.method !== "POST" || typeof init.body !== "string") return false;
  try {
    const message = JSON.parse(init.body) as { method?: unknown } | null;
    return message?.method === "initialize";
  } catch {
    return false; // not JSON: no request of ours
  }
}

const SDK_REQUEST_TAIL = /,"jsonrpc":"2\.0","id":(0|[1-9][0-9]{0,14})\}$/;

/**
 * The id a response's JSON text answers, read off its end when it has the
 * SDK's shape (`{"result":…,"jsonrpc":"2.0","id":<n>}`), else parsed.
 */
export function answeredId(
  text: string,
  parse: () => unknown,
): RequestId | undefined {
  if (text.startsWith('{"result":')) {
    const tail = SDK_REQUEST_TAIL.exec(text.slice(-40));
    if (tail !== null) return Number(tail[1]);
  }
  if (!text.includes('"result"') && !text.includes('"error"')) return undefined;
  return responseIdOf(parse());
}
