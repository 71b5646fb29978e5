/**
 * An MCP server's 401 or 403 `Bearer` challenge, read and turned into the
 * `AuthorizationError` a connect or a call rejects with: the status, the
 * scope the challenge requires, the header itself, the server, and what to
 * do, in words.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  AuthorizationError,
  type AuthorizationErrorReason,
} from "./authorization_error.ts";

/** Which server a connection talks to, for the error. */
export interface ServerNaming {
  /** The server's name. */
  readonly server: string;
  /** The MCP endpoint. */
  readonly url: URL;
}

/** The parameters of a `Bearer` challenge (RFC 6750 3). */
export interface BearerChallenge {
  /** The header as it came. */
  readonly header: string;
  readonly error?: string;
  readonly errorDescription?: string;
  readonly scope?: string;
  readonly resourceMetadata?: string;
}

/**
 * The `Bearer` challenge of `response`'s `WWW-Authenticate`, or
 * `undefined` when it has none. The parameters are read after the
 * `Bearer` scheme up to the next scheme, quoted strings unescaped.
 */
export function bearerChallenge(
  response: Response,
): BearerChallenge | undefined {
  const header = response.headers.get("www-authenticate");
  if (header === null) return undefined;
  const start = header.search(/(^|[\s,])Bearer(\s|,|$)/i);
  if (start < 0) return undefined;
  const params = new Map<string, string>();
  const rest = header.slice(start).replace(/^[\s,]*Bearer/i, "");
  const pattern =
    /\s*,?\s*([A-Za-z0-9_!#$%&'*+.^`|~-]+)(?:\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]*)))?/y;
  for (;;) {
    const match = pattern.exec(rest);
    if (match === null || match[0] === "") break;
    // A token without "=" starts another scheme's challenge.
    if (match[2] === undefined && match[3] === undefined) break;
    const name = match[1].toLowerCase();
    const value = match[2] !== undefined
      ? match[2].replace(/\\(.)/g, "$1")
      : match[3];
    if (!params.has(name)) params.set(name, value);
  }
  const get = (name: string): string | undefined => {
    const value = params.get(name);
    return value === undefined || value === "" ? undefined : value;
  };
  return {
    header,
    ...optional("error", get("error")),
    ...optional("errorDescription", get("error_description")),
    ...optional("scope", get("scope")),
    ...optional("resourceMetadata", get("resource_metadata")),
  };
}

/** What the connection could do before the server's answer stood. */
export interface RefusalContext extends ServerNaming {
  /** Whether the connection has an OAuth client. */
  readonly oauth: boolean;
  /** The scopes the token holds, as granted (an OAuth client's). */
  readonly held?: readonly string[];
  /** The step-ups this request made. */
  readonly stepUps?: number;
}

/**
 * The error for a 401, or a 403 carrying a `Bearer` challenge, that
 * stands; `undefined` for any other answer (a 403 of the DNS-rebinding
 * check carries no challenge and is not about authorization).
 */
export function refusalOf(
  response: Response,
  context: RefusalContext,
): AuthorizationError | undefined {
  const challenge = bearerChallenge(response);
  if (response.status === 401) {
    return unauthorized(response.status, challenge, context);
  }
  if (response.status === 403 && challenge !== undefined) {
    return challenge.error === "insufficient_scope"
      ? insufficientScope(challenge, context)
      : unauthorized(response.status, challenge, context);
  }
  return undefined;
}

/**
 * `base`, with a 401 or a 403 `Bearer` challenge thrown as an
 * `AuthorizationError` (the body discarded): for a connection without an
 * OAuth client.
 */
export function refusingFetch(
  base: FetchLike,
  naming: ServerNaming,
): FetchLike {
  return async (input, init) => {
    const response = await base(input, init);
    if (response.status !== 401 && response.status !== 403) return response;
    const error = refusalOf(response, { ...naming, oauth: false });
    if (error === undefined) return response;
    await response.body?.cancel().catch(() => {
      // Nothing lost: the refusal is thrown; the unread body is dropped either way.
    });
    throw error;
  };
}

/**
 * The error for an `invalid_scope` answer of the authorization server to
 * a token request asking for `scope`, or `undefined` when `error` is not
 * one.
 */
export function scopeRefusalOf(
  error: unknown,
  scope: string | undefined,
  status: number,
  challenge: BearerChallenge | undefined,
  naming: ServerNaming,
): AuthorizationError | undefined {
  if (!(error instanceof Error)) return undefined;
  if ((error as { errorCode?: unknown }).errorCode !== "invalid_scope") {
    return undefined;
  }
  return new AuthorizationError(
    "scope-refused",
    `insufficient scope: the authorization server refused the scope ${
      JSON.stringify(scope ?? "")
    } for server ${where(naming)} (invalid_scope${
      error.message === "" ? "" : `: ${error.message}`
    }); grant this client that scope at the authorization server, or ask for less (the scope option)`,
    {
      ...fields(status, challenge, naming),
      ...optional("scope", scope),
      cause: error,
    },
  );
}

/**
 * `error` with the server's naming and the status that started the flow,
 * when it is an `AuthorizationError` that lacks them (the OAuth client
 * knows the URL, not the name).
 */
export function named(
  error: unknown,
  status: number,
  challenge: BearerChallenge | undefined,
  naming: ServerNaming,
): unknown {
  if (!(error instanceof AuthorizationError) || error.server !== undefined) {
    return error;
  }
  const scope = error.scope ?? challenge?.scope;
  return new AuthorizationError(error.reason, error.message, {
    ...fields(error.status ?? status, challenge, naming),
    ...optional("scope", scope),
    ...optional("authorizationUrl", error.authorizationUrl),
    ...optional("challenge", error.challenge ?? challenge?.header),
    cause: error.cause,
  });
}

function unauthorized(
  status: number,
  challenge: BearerChallenge | undefined,
  context: RefusalContext,
): AuthorizationError {
  const said = challenge?.error === undefined
    ? ""
    : ` (${challenge.error}${
      challenge.errorDescription === undefined
        ? ""
        : `: ${challenge.errorDescription}`
    })`;
  const reason: AuthorizationErrorReason = context.oauth
    ? "refused"
    : "authorization-required";
  const message = context.oauth
    ? `authorization required: server ${
      where(context)
    } answered ${status}${said} to the token its authorization server issued just now; check that the authorization server issues tokens for this resource (its URL as the audience) and that the server trusts that issuer`
    : `authorization required: server ${
      where(context)
    } answered ${status}${said}${
      challenge?.scope === undefined
        ? ""
        : ` and requires the scope ${JSON.stringify(challenge.scope)}`
    }; give the connection an OAuth client (the auth option: oauthClient(...)) or a valid token`;
  return new AuthorizationError(reason, message, {
    ...fields(status, challenge, context),
    ...optional("scope", challenge?.scope),
  });
}

function insufficientScope(
  challenge: BearerChallenge,
  context: RefusalContext,
): AuthorizationError {
  const required = challenge.scope;
  const needs = required === undefined
    ? "a scope the token lacks (the challenge names none)"
    : `the scope ${JSON.stringify(required)}`;
  let todo: string;
  if (!context.oauth) {
    todo =
      "; ask the authorization server for a token with it, or give the connection an OAuth client (the auth option: oauthClient(...)), which steps up";
  } else {
    const held = JSON.stringify((context.held ?? []).join(" "));
    const missing = (required?.split(" ") ?? []).filter((s) =>
      s !== "" && !(context.held ?? []).includes(s)
    );
    todo = missing.length === 0
      ? `; the authorization server said it granted ${held}, yet the server refuses the token: check the scopes the authorization server puts in its tokens`
      : `; the token holds ${held} after ${
        context.stepUps ?? 0
      } step-up(s): grant this client ${
        JSON.stringify(missing.join(" "))
      } at the authorization server (or raise maxStepUps)`;
  }
  return new AuthorizationError(
    "insufficient-scope",
    `insufficient scope: server ${where(context)} requires ${needs}${todo}`,
    {
      ...fields(403, challenge, context),
      ...optional("scope", required),
    },
  );
}

function where(naming: ServerNaming): string {
  return `${JSON.stringify(naming.server)} (${naming.url.href})`;
}

function fields(
  status: number,
  challenge: BearerChallenge | undefined,
  naming: ServerNaming,
): { status: number; challenge?: string; server: string; url: string } {
  return {
    status,
    ...optional("challenge", challenge?.header),
    server: naming.server,
    url: naming.url.href,
  };
}

function optional<K extends string, V>(
  key: K,
  value: V | undefined,
): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** The `AuthorizationError` in `error` or its causes, if any. */
export function authorizationErrorIn(
  error: unknown,
): AuthorizationError | undefined {
  for (let e = error, depth = 0; depth < 8; depth++) {
    if (e instanceof AuthorizationError) return e;
    if (!(e instanceof Error)) return undefined;
    e = e.cause;
  }
  return undefined;
}
