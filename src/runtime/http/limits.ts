/**
 * The HTTP handler's limits and their defaults: every resource a client can
 * make the server hold is capped, and each cap is an option of
 * `httpHandler`.
 *
 * @module
 */

/**
 * The default cap on live sessions of one handler (or, with a shared
 * store, of all instances): 1,000 (`maxSessions`). Past it, `initialize`
 * answers 503 with `Retry-After`; existing sessions are untouched. A
 * session holds one SDK server with its tools registered (tens of KiB).
 */
export const DEFAULT_MAX_SESSIONS = 1000;

/**
 * The default byte budget of one session's resumable events: 4 MiB
 * (`sessionEventBytes`), counted as the events' JSON text. The oldest
 * events go first; a stream's events go as soon as the stream was
 * delivered.
 */
export const DEFAULT_SESSION_EVENT_BYTES = 4 * 1024 * 1024;

/**
 * The default cap on what one response stream holds for a client that does
 * not read it: 8 MiB (`maxUnreadBytes`). Past it the stream is closed (a
 * resumable stream's calls run on; their answers wait in the session's
 * events). One event larger than the cap still passes on an empty queue.
 */
export const DEFAULT_MAX_UNREAD_BYTES = 8 * 1024 * 1024;

/**
 * The default deadline for reading a request body: 30 seconds
 * (`bodyTimeout`). A client that trickles its body longer is answered 408.
 */
export const DEFAULT_BODY_TIMEOUT = 30_000;

/**
 * The default nesting limit of a request body's JSON: 64 levels of arrays
 * and objects (`maxBodyDepth`). Deeper bodies are answered 400 before they
 * are parsed.
 */
export const DEFAULT_MAX_BODY_DEPTH = 64;

/**
 * The default cap on open `subscriptions/listen` streams (2026-07-28) of
 * one handler: 1,000 (`maxListens`), as many as sessions. Past it a listen
 * answers 503 with `Retry-After` and a JSON-RPC error saying why, before
 * any server is made for it. Each open stream holds a server and its
 * transports until it closes.
 */
export const DEFAULT_MAX_LISTENS = 1000;

/**
 * The default cap on open `subscriptions/listen` streams of one principal
 * (a token's client and subject) when `auth` is on: 100
 * (`maxListensPerPrincipal`). Past it that caller's next listen answers 429
 * and a JSON-RPC error saying why; other callers are untouched.
 */
export const DEFAULT_MAX_LISTENS_PER_PRINCIPAL = 100;
