/**
 * Who is calling: the verified caller of a tool served over authenticated
 * HTTP (the MCP SDK's `AuthInfo` shape), and the scopes each exported tool
 * requires — shared by the bridge (which knows the tools) and the HTTP
 * handler (which answers 403 before a call starts).
 *
 * @module
 */

import { quote, ToolError } from "./errors.ts";
import { serverStateOf } from "./server_state.ts";

/**
 * A verified access token and what it says of its holder: the MCP SDK's
 * `AuthInfo` shape. The HTTP handler's `auth` option makes one per request
 * (`verify`); tools see it as `ctx.auth`, the server factory as
 * `newServer(request, auth)`.
 *
 * @example A tool that names its caller
 * ```ts
 * import { rawTool } from "@weft/mcp";
 * import type { AuthInfo } from "@weft/mcp/auth";
 * import assert from "node:assert/strict";
 *
 * const whoami = rawTool({
 *   name: "whoami",
 *   description: "Names the caller.",
 *   run: (_args, ctx) => ctx.auth?.clientId ?? "anonymous",
 * });
 * const auth: AuthInfo = { token: "t", clientId: "app", scopes: ["read"] };
 * assert.equal(await whoami.invoke("{}", { auth }), "app");
 * ```
 */
export interface AuthInfo {
  /** The access token as the client sent it. Never forward it to another service. */
  token: string;
  /** The OAuth client the token was issued to. */
  clientId: string;
  /** The scopes the token grants. */
  scopes: string[];
  /** When the token expires, in seconds since the epoch. */
  expiresAt?: number;
  /** The resource (RFC 8707) the token was issued for. */
  resource?: URL;
  /** Anything else the verifier found (`jwtVerifier`: `sub`, `iss`, `claims`). */
  extra?: Record<string, unknown>;
}

/**
 * Who holds a verified token, as one key: its client id and subject
 * (`extra.sub`). A session and a signed `requestState` are bound to it.
 * `undefined` without a caller (`auth` not an object); a field that is not
 * a string counts as absent. The HTTP handler refuses a token that names
 * neither ({@link namesPrincipal}) before anything is bound to it.
 */
export function principalOf(auth: unknown): string | undefined {
  if (auth === null || typeof auth !== "object") return undefined;
  const { clientId, extra } = auth as { clientId?: unknown; extra?: unknown };
  const sub = extra !== null && typeof extra === "object"
    ? (extra as { sub?: unknown }).sub
    : undefined;
  return JSON.stringify([
    typeof clientId === "string" ? clientId : null,
    typeof sub === "string" ? sub : null,
  ]);
}

/**
 * Whether a verified caller names who it is: a non-empty `clientId` or
 * `extra.sub`. Without either, every such token would be one principal
 * (`principalOf`), and its holders could share a session or each other's
 * `requestState`.
 */
export function namesPrincipal(auth: unknown): boolean {
  if (auth === null || typeof auth !== "object") return false;
  const { clientId, extra } = auth as { clientId?: unknown; extra?: unknown };
  const sub = extra !== null && typeof extra === "object"
    ? (extra as { sub?: unknown }).sub
    : undefined;
  return (typeof clientId === "string" && clientId !== "") ||
    (typeof sub === "string" && sub !== "");
}

/** The code of the tool error a call gets when its caller's token lacks a scope the tool names. */
export const CodeInsufficientScope = "INSUFFICIENT_SCOPE";

/**
 * A call whose verified caller lacks a scope the tool names (`scopes` on
 * `tool()`/`rawTool()`), made inside a run (a served agent calling the tool,
 * a resumed call): the tool does not run, and the model reads
 * `INSUFFICIENT_SCOPE: tool "<name>" needs the scope <s>, which the caller's token lacks; the tool did not run`
 * (`the scopes <a> <b>` when several are missing). A direct `tools/call`
 * over HTTP is refused 403 before that.
 *
 * @example The text the model reads
 * ```ts
 * import { Agent, rawTool } from "@weft/mcp";
 * import type { AuthInfo } from "@weft/mcp/auth";
 * import { script } from "@weft/mcp/testing";
 * import assert from "node:assert/strict";
 *
 * const placeOrder = rawTool({
 *   name: "place_order",
 *   description: "Places an order.",
 *   scopes: ["orders:write"],
 *   run: () => "placed",
 * });
 * const agent = new Agent(script(), { tools: [placeOrder] });
 * const auth: AuthInfo = { token: "t", clientId: "app", scopes: ["orders:read"] };
 * await assert.rejects(agent.callTool("place_order", "{}", { auth }), {
 *   message:
 *     'INSUFFICIENT_SCOPE: tool "place_order" needs the scope orders:write, which the caller\'s token lacks; the tool did not run',
 * });
 * ```
 */
export class InsufficientScopeError extends ToolError {
  /** The tool that was not run. */
  readonly tool: string;
  /** The scopes the caller's token lacks, in the tool's order. */
  readonly missing: readonly string[];

  /** Builds the error for `tool`, whose caller lacks `missing`. */
  constructor(tool: string, missing: readonly string[]) {
    super(
      CodeInsufficientScope,
      `tool ${quote(tool)} needs the scope${missing.length === 1 ? "" : "s"} ${
        missing.join(" ")
      }, which the caller's token lacks; the tool did not run`,
    );
    this.name = "InsufficientScopeError";
    this.tool = tool;
    this.missing = Object.freeze([...missing]);
  }
}

/**
 * The scopes `tool` names that `auth` does not grant; empty without a
 * verified caller (scopes hold over authenticated HTTP only) or when all
 * are granted.
 */
export function missingScopes(
  tool: { readonly scopes?: readonly string[] },
  auth: AuthInfo | undefined,
): readonly string[] {
  if (auth === undefined || tool.scopes === undefined) return [];
  const granted = new Set(Array.isArray(auth.scopes) ? auth.scopes : []);
  return tool.scopes.filter((s) => !granted.has(s));
}

/** The scopes a call of `tool` on `server` needs; empty when none or unknown. */
export function requiredScopes(
  server: object,
  tool: string,
): readonly string[] {
  return serverStateOf(server)?.tools?.scopesOf(tool) ?? [];
}

/** Every scope a tool registered on `server` names; empty when none or unknown. */
export function namedScopes(server: object): readonly string[] {
  return serverStateOf(server)?.tools?.namedScopes() ?? [];
}
