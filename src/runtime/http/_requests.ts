/**
 * The `server/discover` probe in a parsed POST body, and the reason a
 * dropped request's handlers are stopped with.
 *
 * @module
 */

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

/** The first `server/discover` request of a body, if any. */
export function discoverRequest(body: unknown): RequestLike | undefined {
  if (body === undefined) return undefined;
  return messagesOf(body).filter(isRequestLike).find((m) =>
    m.method === "server/discover"
  );
}
