/**
 * What the resources, prompts and completion handlers share: the protocol
 * error they answer with (a JSON-RPC error, never a crash), and the cursor
 * pagination of their lists.
 *
 * @module
 */

/** The JSON-RPC code of Invalid params. */
export const INVALID_PARAMS = -32602;
/** The JSON-RPC code of Internal error. */
export const INTERNAL_ERROR = -32603;

/**
 * A protocol error thrown into the SDK's handler: it answers the request
 * with `{ code, message, data }`. Never shown to a user as an exception.
 */
export class ProtocolError extends Error {
  /** The JSON-RPC error code. */
  readonly code: number;
  /** The error's `data`, when it has one. */
  readonly data?: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "ProtocolError";
    this.code = code;
    if (data !== undefined) this.data = data;
  }
}

/** The default number of entries on one page of a list. */
export const DEFAULT_PAGE_SIZE = 50;
/** The largest page size a server may set. */
export const MAX_PAGE_SIZE = 1000;

/** Checks a `pageSize` option; throws a `TypeError` naming `where`. */
export function pageSizeOf(size: number | undefined, where: string): number {
  if (size === undefined) return DEFAULT_PAGE_SIZE;
  if (!Number.isSafeInteger(size) || size < 1 || size > MAX_PAGE_SIZE) {
    throw new TypeError(
      `${where}: pageSize must be an integer from 1 to ${MAX_PAGE_SIZE}, got ${
        String(size)
      }`,
    );
  }
  return size;
}

const CURSOR_PREFIX = "weft:";

/**
 * One page of `items` from `cursor` (an offset the previous page gave, as
 * opaque text): the page and, when more follow, the next cursor. A cursor
 * this server did not write is Invalid params (`invalid cursor for
 * <method>`), as the spec asks. A list that shrank between pages ends
 * early; one that grew may repeat or skip entries (the cursor is an offset).
 */
export function pageOf<T>(
  items: readonly T[],
  cursor: unknown,
  size: number,
  method: string,
): { readonly page: T[]; readonly nextCursor?: string } {
  let start = 0;
  if (cursor !== undefined) {
    const offset = typeof cursor === "string" ? readCursor(cursor) : undefined;
    if (offset === undefined) {
      throw new ProtocolError(INVALID_PARAMS, `invalid cursor for ${method}`);
    }
    start = offset;
  }
  const page = items.slice(start, start + size);
  const next = start + size;
  return next < items.length
    ? { page, nextCursor: btoa(CURSOR_PREFIX + next) }
    : { page };
}

function readCursor(cursor: string): number | undefined {
  let text: string;
  try {
    text = atob(cursor);
  } catch {
    // Not base64: not a cursor this server wrote (answered as such).
    return undefined;
  }
  if (!text.startsWith(CURSOR_PREFIX)) return undefined;
  const digits = text.slice(CURSOR_PREFIX.length);
  if (!/^(0|[1-9][0-9]{0,8})$/.test(digits)) return undefined;
  return Number(digits);
}
