/**
 * `SessionNotFoundError`: the server forgot the HTTP session again right
 * after `connectHttp` began a new one.
 *
 * @module
 */

/**
 * A request met `404 Session not found`, `connectHttp`'s client began a new
 * session (one `initialize`) and sent the request again, and the server did
 * not know that session either: the request is not sent a third time.
 * Reads `server "<name>" (<url>): the session was not found (HTTP 404) again
 * right after a new session began; the request was not sent again — check
 * that the server keeps its sessions (its session store, one instance or
 * shared state behind a load balancer)`. `cause` is the second 404.
 *
 * @example Tell a lost session by its class
 * ```ts
 * import { SessionNotFoundError } from "@weft/mcp/runtime";
 * import assert from "node:assert/strict";
 *
 * const error = new SessionNotFoundError("files", "http://127.0.0.1:8000/mcp");
 * assert.ok(error instanceof SessionNotFoundError);
 * assert.equal(error.server, "files");
 * assert.match(error.message, /^server "files" \(http:\/\/127\.0\.0\.1:8000\/mcp\): the session was not found/);
 * ```
 */
export class SessionNotFoundError extends Error {
  /** The server's name (the `name` option, else the URL's host). */
  readonly server: string;
  /** The MCP endpoint. */
  readonly url: string;

  /** Builds the error for the server `server` at `url`; `cause` is the second 404. */
  constructor(server: string, url: string, options?: ErrorOptions) {
    super(
      `server ${
        JSON.stringify(server)
      } (${url}): the session was not found (HTTP 404) again right after a new session began; the request was not sent again — check that the server keeps its sessions (its session store, one instance or shared state behind a load balancer)`,
      options,
    );
    this.name = "SessionNotFoundError";
    this.server = server;
    this.url = url;
  }
}
