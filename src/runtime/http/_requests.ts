/**
 * Reading the JSON-RPC requests out of a parsed POST body, and stopping
 * them on the server side when their HTTP request is dropped.
 *
 * @module
 */

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";

/** The reason a dropped HTTP request's handler sees on its signal. */
export const DROPPED_REASON = "the HTTP request was dropped";

type RequestId = string | number;

interface RequestLike {
  readonly method: string;
  readonly id: RequestId;
}

function isRequestLike(value: unknown): value is RequestLike {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.method === "string" &&
    (typeof v.id === "string" ||
      (typeof v.id === "number" && Number.isSafeInteger(v.id)));
}

function messagesOf(body: unknown): unknown[] {
  return Array.isArray(body) ? body : [body];
}

/** The ids of the requests (not notifications, not responses) in a body. */
export function requestIds(body: unknown): RequestId[] {
  if (body === undefined) return [];
  return messagesOf(body).filter(isRequestLike).map((m) => m.id);
}

/** The first `server/discover` request of a body, if any. */
export function discoverRequest(body: unknown): RequestLike | undefined {
  if (body === undefined) return undefined;
  return messagesOf(body).filter(isRequestLike).find((m) =>
    m.method === "server/discover"
  );
}

/**
 * Stops the handlers of `ids` on the server connected to `transport`: each
 * gets a `notifications/cancelled`, as if the client had sent it, so the
 * SDK aborts its `extra.signal` with `reason`. Ids no handler runs for are
 * ignored by the SDK.
 */
export function cancelRequests(
  transport: Transport,
  ids: readonly RequestId[],
  reason: string,
): void {
  for (const requestId of ids) {
    transport.onmessage?.({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId, reason },
    });
  }
}
