/**
 * The error of a configuration `connectServers` refuses.
 *
 * @module
 */

/**
 * A configuration `connectServers` refuses, before starting anything. The
 * message names the server and the field:
 * `mcpServers "files": "args" must be an array of strings`.
 *
 * @example Using `ServerConfigError`
 * ```ts
 * import assert from "node:assert/strict";
 * import { ServerConfigError } from "@weft/mcp/servers";
 * const error = new ServerConfigError("files", "args", "must be an array of strings");
 * assert.equal(error.message, 'mcpServers "files": "args" must be an array of strings');
 * ```
 */
export class ServerConfigError extends Error {
  /** The server's name; `""` when the document itself is wrong. */
  readonly server: string;
  /** The field; `""` for the entry as a whole. */
  readonly field: string;

  /** Builds the error for `server`'s `field`. */
  constructor(server: string, field: string, problem: string) {
    super(
      server === ""
        ? `mcpServers: ${problem}`
        : `mcpServers ${JSON.stringify(server)}: ${
          field === "" ? "" : `${JSON.stringify(field)} `
        }${problem}`,
    );
    this.name = "ServerConfigError";
    this.server = server;
    this.field = field;
  }
}
