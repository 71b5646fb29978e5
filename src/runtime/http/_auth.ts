/**
 * The resource-server gate of `httpHandler` (`auth` option): the Protected
 * Resource Metadata document (RFC 9728), the bearer token checked on every
 * request (401 with the challenges of RFC 6750 and MCP authorization), the
 * scopes a request's tool calls need (403 `insufficient_scope`, decided
 * before the response starts), and the principal a session is bound to.
 *
 * The verified caller is kept per request (`authOf`) and reaches the SDK
 * server as `extra.authInfo`; the token goes nowhere else.
 *
 * @module
 */

import {
  type AuthInfo,
  namedScopes,
  namesPrincipal,
  requiredScopes,
} from "../../core/auth.ts";
import { HttpRefusalError } from "../errors.ts";
import {
  InvalidTokenError,
  type ResourceAuthOptions,
} from "../../auth/server/resource.ts";
import { clockToleranceOf } from "../../auth/server/tolerance.ts";

const WELL_KNOWN = "/.well-known/oauth-protected-resource";

const verified = new WeakMap<Request, AuthInfo>();

/** The caller the gate verified for `req`; absent without `auth`. */
export function authOf(req: Request): AuthInfo | undefined {
  return verified.get(req);
}

/** What an {@link AuthGate} calls: where it reports, how it makes a server to read scopes from. */
export interface AuthGateHooks {
  /** Sees every refusal, and a `probe` that failed. */
  readonly report: (error: Error) => void;
  /**
   * Makes a server (with no caller) whose tools' scopes the metadata
   * document lists before any request was served; called once, with the
   * first metadata request.
   */
  readonly probe?: (req: Request) => object;
}

/** Checks made before a request reaches a server: built once per handler. */
export class AuthGate {
  readonly #options: ResourceAuthOptions;
  readonly #resource: URL;
  readonly #paths: Set<string>;
  readonly #metadataUrl: string;
  readonly #scopes: readonly string[];
  readonly #report: (error: Error) => void;
  /** Seconds of clock difference allowed on `expiresAt`: the verifier's own, else 0. */
  readonly #tolerance: number;
  /** The endpoint's scopes, then every scope a served tool names. */
  readonly #supported: Set<string>;
  /**
   * Makes a server whose tools' scopes the metadata document lists before
   * any request was served: called once, with the first metadata request
   * (and no caller); dropped after.
   */
  #probe?: (req: Request) => object;
  #document?: string;

  /** A gate for `options`; throws `TypeError` for a missing or malformed option. */
  constructor(options: ResourceAuthOptions, hooks: AuthGateHooks) {
    if (typeof options?.verify !== "function") {
      throw new TypeError(
        "httpHandler: options.auth.verify must be a function (jwtVerifier(…) or your own)",
      );
    }
    if (!Array.isArray(options.authorizationServers)) {
      throw new TypeError(
        "httpHandler: options.auth.authorizationServers must list the authorization servers' issuer URLs",
      );
    }
    let resource: URL;
    try {
      resource = new URL(options.resource);
    } catch (cause) {
      throw new TypeError(
        `httpHandler: options.auth.resource must be this endpoint's URL, got ${
          JSON.stringify(String(options.resource))
        }`,
        { cause },
      );
    }
    resource.hash = "";
    this.#options = options;
    this.#resource = resource;
    const path = resource.pathname === "/" ? "" : resource.pathname;
    this.#paths = new Set([WELL_KNOWN + path, WELL_KNOWN]);
    this.#metadataUrl = new URL(WELL_KNOWN + path, resource).href;
    this.#scopes = options.scopes ?? [];
    this.#supported = new Set(this.#scopes);
    this.#report = hooks.report;
    this.#probe = hooks.probe;
    this.#tolerance = clockToleranceOf(options.verify);
  }

  /** Adds the scopes `server`'s tools name to `scopes_supported`. */
  learn(server: object): void {
    for (const scope of namedScopes(server)) {
      if (this.#supported.has(scope)) continue;
      this.#supported.add(scope);
      this.#document = undefined;
    }
  }

  /** The metadata document's URL, as the challenges name it. */
  get metadataUrl(): string {
    return this.#metadataUrl;
  }

  /** The metadata document for a GET (or OPTIONS) of one of its paths; else `undefined`. */
  metadata(req: Request): Response | undefined {
    const path = new URL(req.url).pathname;
    if (!this.#paths.has(path)) return undefined;
    const cors = {
      "access-control-allow-origin": "*",
      "access-control-allow-methods": "GET, OPTIONS",
    };
    if (req.method === "OPTIONS") {
      return new Response(null, { status: 204, headers: cors });
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      return new Response(null, {
        status: 405,
        headers: { allow: "GET, OPTIONS", ...cors },
      });
    }
    const probe = this.#probe;
    if (probe !== undefined) {
      this.#probe = undefined;
      try {
        this.learn(probe(req));
      } catch (error) {
        this.#report(
          new Error(
            "httpHandler: newServer failed while the resource metadata read its tools' scopes; scopes_supported lists the scopes learnt from the servers made so far",
            { cause: error },
          ),
        );
      }
    }
    this.#document ??= JSON.stringify(this.#metadataDocument());
    return new Response(req.method === "HEAD" ? null : this.#document, {
      status: 200,
      headers: {
        "content-type": "application/json",
        "cache-control": "max-age=3600",
        ...cors,
      },
    });
  }

  #metadataDocument(): Record<string, unknown> {
    const doc: Record<string, unknown> = {
      resource: this.#resource.href,
      authorization_servers: this.#options.authorizationServers.map((s) =>
        String(s)
      ),
      bearer_methods_supported: ["header"],
    };
    if (this.#supported.size > 0) doc.scopes_supported = [...this.#supported];
    if (this.#options.resourceName !== undefined) {
      doc.resource_name = this.#options.resourceName;
    }
    return doc;
  }

  /**
   * Verifies the request's bearer token: `undefined` when it passed (the
   * caller is then `authOf(req)`), else the refusal — 401 without a token
   * or with one `verify` refused, expired, naming no principal or issued
   * for another resource;
   * 403 when it lacks the scopes every request needs.
   */
  async admit(req: Request): Promise<Response | undefined> {
    const header = req.headers.get("authorization");
    const match = header === null ? null : /^Bearer +([^ ]+) *$/i.exec(header);
    if (match === null) {
      this.#report(
        new HttpRefusalError(
          401,
          header === null
            ? "no access token"
            : "the Authorization header is not a bearer token",
        ),
      );
      return this.#unauthorized(undefined);
    }
    const token = match[1];
    let auth: AuthInfo | undefined;
    try {
      auth = await this.#options.verify(token, req);
    } catch (error) {
      if (!(error instanceof InvalidTokenError)) throw error;
      return this.#invalid(error.message);
    }
    if (auth === undefined || auth === null) {
      return this.#invalid("the token is not valid");
    }
    if (!namesPrincipal(auth)) {
      // As jwtVerifier refuses a token without sub, client_id or azp: every
      // such token would be one caller, able to share a session.
      return this.#invalid(
        "the token names no principal: no client id or subject",
      );
    }
    if (
      typeof auth.expiresAt === "number" &&
      (auth.expiresAt + this.#tolerance) * 1000 <= Date.now()
    ) {
      return this.#invalid("the token expired");
    }
    if (
      auth.resource !== undefined &&
      new URL(auth.resource).href !== this.#resource.href
    ) {
      return this.#invalid("the token was not issued for this resource");
    }
    const refusal = this.#scopeRefusal(auth, []);
    if (refusal !== undefined) return refusal;
    verified.set(req, auth);
    return undefined;
  }

  /**
   * The 403 for a request whose tool calls need scopes its token lacks:
   * `server` is the one about to serve it (its tools' `scopes`), `body`
   * the parsed request (one message or a batch).
   */
  checkScopes(
    server: object,
    req: Request,
    body: unknown,
  ): Response | undefined {
    this.learn(server);
    const auth = verified.get(req);
    if (auth === undefined) return undefined;
    const needed: string[] = [];
    for (const message of Array.isArray(body) ? body : [body]) {
      const m = message as { method?: unknown; params?: { name?: unknown } };
      if (m?.method !== "tools/call" || typeof m.params?.name !== "string") {
        continue;
      }
      needed.push(...requiredScopes(server, m.params.name));
    }
    return this.#scopeRefusal(auth, needed);
  }

  #scopeRefusal(
    auth: AuthInfo,
    extra: readonly string[],
  ): Response | undefined {
    const needed = [...new Set([...this.#scopes, ...extra])];
    const granted = new Set(auth.scopes);
    const missing = needed.filter((s) => !granted.has(s));
    if (missing.length === 0) return undefined;
    const description = `the token lacks the scope${
      missing.length === 1 ? "" : "s"
    } ${missing.join(" ")}`;
    this.#report(new HttpRefusalError(403, description));
    return challenge(403, {
      error: "insufficient_scope",
      scope: needed.join(" "),
      resource_metadata: this.#metadataUrl,
      error_description: description,
    });
  }

  #unauthorized(error: string | undefined, description?: string): Response {
    const params: Record<string, string> = {};
    if (error !== undefined) params.error = error;
    if (this.#scopes.length > 0) params.scope = this.#scopes.join(" ");
    params.resource_metadata = this.#metadataUrl;
    if (description !== undefined) params.error_description = description;
    return challenge(401, params);
  }

  #invalid(description: string): Response {
    this.#report(new HttpRefusalError(401, description));
    return this.#unauthorized("invalid_token", description);
  }
}

/** A bearer challenge (RFC 6750 §3) with an OAuth-style JSON body. */
function challenge(status: number, params: Record<string, string>): Response {
  const header = "Bearer " +
    Object.entries(params).map(([k, v]) => `${k}="${quoted(v)}"`).join(", ");
  const body: Record<string, string> = {
    error: params.error ?? "invalid_request",
    error_description: params.error_description ??
      "an access token is required",
  };
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      "content-type": "application/json",
      "www-authenticate": header,
    },
  });
}

/**
 * A quoted-string's content: backslash and quote escaped, controls and
 * anything not ASCII dropped (RFC 6750 §3 allows printable ASCII only; a
 * header cannot carry more, and a token's bytes may be quoted).
 */
function quoted(value: string): string {
  let out = "";
  for (const ch of value) {
    const code = ch.charCodeAt(0);
    if (code < 0x20 || code > 0x7e) continue;
    out += ch === "\\" || ch === '"' ? `\\${ch}` : ch;
  }
  return out;
}
