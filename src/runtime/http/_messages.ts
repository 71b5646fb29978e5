/**
 * The shape of JSON-RPC messages a client may post, checked field by field
 * (the SDK's message schema's rules, without a schema library).
 *
 * @module
 */

/** A JSON-RPC request id. */
export type RequestId = string | number;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is RequestId {
  return typeof value === "string" || Number.isSafeInteger(value);
}

// `_meta`, when present: an object whose progress token and related task,
// when present, have their types.
function isMeta(meta: unknown): boolean {
  if (meta === undefined) return true;
  if (!isObject(meta)) return false;
  const token = meta.progressToken;
  if (token !== undefined && !isId(token)) return false;
  const task = meta["io.modelcontextprotocol/related-task"];
  return task === undefined ||
    (isObject(task) && typeof task.taskId === "string");
}

function hasOnly(m: Record<string, unknown>, keys: readonly string[]) {
  for (const key in m) if (!keys.includes(key)) return false;
  return true;
}

const REQUEST_KEYS = ["jsonrpc", "id", "method", "params"];
const NOTIFICATION_KEYS = ["jsonrpc", "method", "params"];
const RESULT_KEYS = ["jsonrpc", "id", "result"];
const ERROR_KEYS = ["jsonrpc", "id", "error"];

/**
 * Whether `m` is a JSON-RPC 2.0 request, notification, result or error —
 * nothing else at its top level, `params` and `result` objects with a
 * well-formed `_meta`, ids strings or safe integers.
 */
export function isJsonRpcMessage(m: unknown): boolean {
  if (!isObject(m) || m.jsonrpc !== "2.0") return false;
  if ("method" in m) {
    if (typeof m.method !== "string") return false;
    const params = m.params;
    if (params !== undefined && (!isObject(params) || !isMeta(params._meta))) {
      return false;
    }
    return "id" in m
      ? isId(m.id) && hasOnly(m, REQUEST_KEYS)
      : hasOnly(m, NOTIFICATION_KEYS);
  }
  if ("result" in m) {
    return isId(m.id) && isObject(m.result) && isMeta(m.result._meta) &&
      hasOnly(m, RESULT_KEYS);
  }
  if ("error" in m) {
    const e = m.error;
    return (m.id === undefined || isId(m.id)) && isObject(e) &&
      Number.isSafeInteger(e.code) && typeof e.message === "string" &&
      hasOnly(m, ERROR_KEYS);
  }
  return false;
}

/** Whether a message is an answer (a result or an error). */
export function isAnswer(message: object): boolean {
  return "result" in message || "error" in message;
}

/** Whether an `initialize` request has the params the protocol requires. */
export function isInitialize(
  m: object,
): m is { params: { protocolVersion: string } } {
  const params = (m as { params?: Record<string, unknown> }).params;
  return typeof params?.protocolVersion === "string" &&
    typeof params.capabilities === "object" && params.capabilities !== null &&
    typeof params.clientInfo === "object" && params.clientInfo !== null &&
    typeof (params.clientInfo as { name?: unknown }).name === "string" &&
    typeof (params.clientInfo as { version?: unknown }).version === "string";
}
