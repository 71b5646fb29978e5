/**
 * `jwtVerifier`: checks JWT access tokens (RFC 9068) with WebCrypto — the
 * signature against the issuer's keys (a JWKS, fetched and cached), `iss`,
 * `aud`, `exp` and `nbf` — for `httpHandler`'s `auth.verify`.
 *
 * @module
 */

import type { AuthInfo } from "../../core/auth.ts";
import { InvalidTokenError } from "./resource.ts";
import { KeySet, PARAMS, shown } from "./_jwks.ts";
import { setClockTolerance } from "./tolerance.ts";

/** The signature algorithms `jwtVerifier` accepts (asymmetric only: never `none`, never HMAC). */
export type JwtAlgorithm =
  | "RS256"
  | "RS384"
  | "RS512"
  | "PS256"
  | "PS384"
  | "PS512"
  | "ES256"
  | "ES384"
  | "EdDSA";

/** A JSON Web Key Set: the issuer's public keys. */
export interface JsonWebKeySet {
  /** The keys (each with `kid` and `kty`; `alg` and `use` when the issuer says). */
  keys: (JsonWebKey & { kid?: string })[];
}

/**
 * Options of {@link jwtVerifier}.
 *
 * @example Options for a local authorization server
 * ```ts
 * import type { JwtVerifierOptions } from "@weft/mcp/auth";
 *
 * const options: JwtVerifierOptions = {
 *   issuer: "http://127.0.0.1:3000",
 *   audience: "http://127.0.0.1:8000/mcp",
 *   jwks: new URL("http://127.0.0.1:3000/jwks"),
 * };
 * ```
 */
export interface JwtVerifierOptions {
  /** The `iss` every token must carry (compared exactly). */
  issuer: string;
  /** The `aud` every token must carry (one of its values): this resource's URL (RFC 8707). */
  audience: string;
  /** The issuer's keys: the JWKS URL (fetched, cached, refetched for an unknown `kid`), or the set itself. */
  jwks: URL | string | JsonWebKeySet;
  /** The algorithms accepted. Default: RS256, PS256, ES256 and EdDSA. */
  algorithms?: JwtAlgorithm[];
  /**
   * Seconds of clock difference allowed on `exp` and `nbf`. Default 30.
   * `httpHandler` allows as much when it checks the result's `expiresAt`
   * (when this verifier is its `auth.verify` itself, not wrapped in a
   * function of yours: then it allows none).
   */
  clockTolerance?: number;
  /**
   * Also accept tokens whose `typ` header is `JWT` (or `application/jwt`)
   * or absent, for issuers that do not mark their access tokens `at+jwt`
   * (RFC 9068). Default `false`: only `at+jwt` and `application/at+jwt`
   * (case-insensitive) are accepted, so an ID token or another kind of JWT
   * the issuer signs cannot pass for an access token. Other types are
   * refused either way.
   */
  allowJwtTyp?: boolean;
  /**
   * The least time between two fetches of the JWKS, in ms. Default 30 s.
   * After a failed fetch the set is not fetched again for this long,
   * doubled after each further failure (at most 5 minutes, or this
   * interval when longer).
   */
  refetchInterval?: number;
  /** The time one JWKS fetch may take, in ms. Default 5 s. */
  fetchTimeout?: number;
  /**
   * Tokens remembered once verified (their time claims checked again on
   * every use), so a client's next requests skip the signature check.
   * Default 1,000; `0` verifies every request from scratch.
   */
  cacheSize?: number;
}

const DEFAULT_ALGORITHMS: JwtAlgorithm[] = ["RS256", "PS256", "ES256", "EdDSA"];

/**
 * A `verify` function for `httpHandler`'s `auth` that accepts JWT access
 * tokens signed by `issuer` for `audience`. A token is refused (the
 * handler answers 401 `invalid_token`, with the reason as
 * `error_description`) when it is longer than 32,768 characters or not a
 * JWS of three base64url parts whose header and payload are JSON objects;
 * its `typ` is not `at+jwt` (see `allowJwtTyp`); its header has `crit`
 * (no extension is understood); its `alg` is not in `algorithms` (`none`
 * and the HMAC algorithms never are: a public key must not double as a
 * shared secret); no key fits (see below); the signature does not verify;
 * `iss` is not `issuer`; `aud` does not name `audience`; `exp` is missing
 * or past, or `nbf` ahead (each with `clockTolerance`); it names no
 * principal (none of `sub`, `client_id`, `azp`). Malformed input is always
 * such a refusal, never another error.
 *
 * The key: a token with a `kid` is checked by the set's key of that `kid`
 * (when the set has none, it is fetched again first, at most once per
 * `refetchInterval`); a token without `kid` only when exactly one key of
 * the set fits its `alg` (same `kty`, curve and, when the key says, `alg`;
 * never an encryption key) — with several, the token is refused rather
 * than tried against each.
 *
 * The result's `clientId` is the `client_id` claim (else `azp`, else
 * `sub`), `scopes` the `scope` claim split on spaces (or an `scp` array),
 * `expiresAt` the `exp`, `resource` the audience, and `extra` holds `sub`,
 * `iss` and every claim. A verified token is remembered (`cacheSize`), its
 * time claims checked again on each use; every caller gets its own deep
 * copy. A JWKS that cannot be fetched rejects with a plain `Error` (the
 * handler answers 500: the token was not judged), and is not fetched
 * again until its back-off has passed; a refetch for an unknown `kid`
 * that fails refuses the token with the keys already known.
 *
 * @example Verifying tokens of a local authorization server
 * ```ts
 * import { httpHandler, Server } from "@weft/mcp";
 * import { jwtVerifier } from "@weft/mcp/auth";
 * import assert from "node:assert/strict";
 *
 * const verify = jwtVerifier({
 *   issuer: "http://127.0.0.1:3000",
 *   audience: "http://localhost/mcp",
 *   jwks: { keys: [] },
 * });
 * const handler = httpHandler(() => new Server({ name: "demo", version: "1" }), {
 *   auth: {
 *     resource: "http://localhost/mcp",
 *     authorizationServers: ["http://127.0.0.1:3000"],
 *     verify,
 *   },
 * });
 * const res = await handler(new Request("http://localhost/mcp", { method: "POST" }));
 * assert.equal(res.status, 401);
 * ```
 */
export function jwtVerifier(
  options: JwtVerifierOptions,
): (token: string) => Promise<AuthInfo> {
  const { algorithms, resource, keys, tolerance } = checked(options);
  const cacheSize = options.cacheSize ?? 1000;
  const typs = options.allowJwtTyp === true ? JWT_TYPS : AT_JWT_TYPS;
  const verified = new Map<string, AuthInfo>();
  const verify = async (token: string): Promise<AuthInfo> => {
    const known = verified.get(token);
    if (known !== undefined) {
      checkTimes(known.extra?.claims as Record<string, unknown>, tolerance);
      return copy(known);
    }
    if (typeof token !== "string") {
      throw new InvalidTokenError("the token is not a JWT");
    }
    if (token.length > MAX_TOKEN_LENGTH) {
      throw new InvalidTokenError(
        `the token is longer than ${MAX_TOKEN_LENGTH} characters`,
      );
    }
    const parts = token.split(".");
    if (parts.length !== 3) {
      throw new InvalidTokenError("the token is not a JWT");
    }
    const header = decodeJson(parts[0], "header");
    const claims = decodeJson(parts[1], "payload");
    const signature = decodeBase64Url(parts[2], "signature");
    const alg = header.alg;
    if (typeof alg !== "string" || !algorithms.includes(alg as JwtAlgorithm)) {
      throw new InvalidTokenError(
        `the token's algorithm ${shown(alg)} is not accepted`,
      );
    }
    checkHeader(header, typs);
    if (header.kid !== undefined && typeof header.kid !== "string") {
      throw new InvalidTokenError("the token's kid is not a string");
    }
    const key = await keys.find(header.kid, alg as JwtAlgorithm);
    const signed = new TextEncoder().encode(`${parts[0]}.${parts[1]}`);
    let ok: boolean;
    try {
      ok = await crypto.subtle.verify(
        PARAMS[alg as JwtAlgorithm].verify,
        key,
        signature,
        signed,
      );
    } catch (cause) {
      throw new InvalidTokenError("the token's signature is not valid", {
        cause,
      });
    }
    if (!ok) throw new InvalidTokenError("the token's signature is not valid");
    const auth = checkClaims(claims, options, tolerance, token, resource);
    if (cacheSize > 0) {
      if (verified.size >= cacheSize) {
        verified.delete(verified.keys().next().value!);
      }
      verified.set(token, auth);
    }
    return copy(auth);
  };
  setClockTolerance(verify, tolerance);
  return verify;
}

/** The options a verifier keeps, checked in order; a `TypeError` names the first one wrong. */
function checked(options: JwtVerifierOptions): {
  algorithms: JwtAlgorithm[];
  resource: URL;
  keys: KeySet;
  tolerance: number;
} {
  const algorithms = options.algorithms ?? DEFAULT_ALGORITHMS;
  for (const alg of algorithms) {
    if (!Object.hasOwn(PARAMS, alg)) {
      throw new TypeError(
        `jwtVerifier: algorithm ${
          JSON.stringify(alg)
        } is not accepted; use RS256/384/512, PS256/384/512, ES256/384 or EdDSA (none and HMAC are refused)`,
      );
    }
  }
  if (typeof options.issuer !== "string" || options.issuer === "") {
    throw new TypeError("jwtVerifier: options.issuer is required");
  }
  if (typeof options.audience !== "string" || options.audience === "") {
    throw new TypeError("jwtVerifier: options.audience is required");
  }
  let resource: URL;
  try {
    resource = new URL(options.audience);
  } catch (cause) {
    throw new TypeError(
      `jwtVerifier: options.audience must be this resource's URL, got ${
        JSON.stringify(options.audience)
      }`,
      { cause },
    );
  }
  const keys = new KeySet(options);
  const tolerance = options.clockTolerance ?? 30;
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw new TypeError(
      `jwtVerifier: options.clockTolerance must be a non-negative number of seconds, got ${
        String(tolerance)
      }`,
    );
  }
  return { algorithms, resource, keys, tolerance };
}

/** Longer tokens are refused unread (a JWT access token is a few KiB). */
const MAX_TOKEN_LENGTH = 32_768;

/** `typ` values accepted (lower-cased; RFC 9068 §4, RFC 8725 §3.11). */
const AT_JWT_TYPS: ReadonlySet<string | undefined> = new Set([
  "at+jwt",
  "application/at+jwt",
]);
/** With `allowJwtTyp`: also a plain JWT, or no `typ` at all. */
const JWT_TYPS: ReadonlySet<string | undefined> = new Set([
  ...AT_JWT_TYPS,
  "jwt",
  "application/jwt",
  undefined,
]);

/** Refuses a header whose `typ` is not accepted or that has `crit` (RFC 7515 §4.1.11). */
function checkHeader(
  header: Record<string, unknown>,
  typs: ReadonlySet<string | undefined>,
): void {
  const typ = header.typ;
  if (
    (typ !== undefined && typeof typ !== "string") ||
    !typs.has(typ?.toLowerCase())
  ) {
    throw new InvalidTokenError(
      typ === undefined
        ? "the token has no typ; an access token is typ at+jwt"
        : `the token's typ ${
          shown(typ)
        } is not accepted; an access token is typ at+jwt`,
    );
  }
  if (header.crit !== undefined) {
    throw new InvalidTokenError(
      "the token's header has crit: no critical extension is understood",
    );
  }
}

/**
 * A caller's own copy of a remembered result: a tool may change what it
 * is handed, even deep inside the claims; the next caller must not see it.
 */
function copy(auth: AuthInfo): AuthInfo {
  const extra = auth.extra ?? {};
  return {
    ...auth,
    scopes: [...auth.scopes],
    resource: auth.resource === undefined ? undefined : new URL(auth.resource),
    extra: { ...extra, claims: cloneJson(extra.claims) },
  };
}

/**
 * A deep copy of parsed JSON (objects, arrays, primitives): cheaper than
 * `structuredClone`, and a `__proto__` key stays an own property.
 */
function cloneJson(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(cloneJson);
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, cloneJson(v)]),
  );
}

/** Checks `exp` (required) and `nbf`; returns `exp`. */
function checkTimes(
  claims: Record<string, unknown>,
  tolerance: number,
): number {
  const now = Date.now() / 1000;
  if (typeof claims.exp !== "number") {
    throw new InvalidTokenError("the token has no expiry");
  }
  if (claims.exp + tolerance <= now) {
    throw new InvalidTokenError("the token expired");
  }
  if (claims.nbf !== undefined && typeof claims.nbf !== "number") {
    throw new InvalidTokenError("the token's nbf is not a number");
  }
  if (typeof claims.nbf === "number" && claims.nbf - tolerance > now) {
    throw new InvalidTokenError("the token is not valid yet");
  }
  return claims.exp;
}

function checkClaims(
  claims: Record<string, unknown>,
  options: JwtVerifierOptions,
  tolerance: number,
  token: string,
  resource: URL,
): AuthInfo {
  if (claims.iss !== options.issuer) {
    throw new InvalidTokenError("the token's issuer is not accepted");
  }
  const aud = claims.aud;
  const audiences = Array.isArray(aud) ? aud : [aud];
  if (!audiences.includes(options.audience)) {
    throw new InvalidTokenError("the token was not issued for this resource");
  }
  const exp = checkTimes(claims, tolerance);
  const sub = named(claims.sub);
  const clientId = named(claims.client_id) ?? named(claims.azp) ?? sub;
  if (clientId === undefined) {
    // Without one, every such token would be the same principal (and
    // could open and share one session).
    throw new InvalidTokenError(
      "the token names no principal: it has no sub, client_id or azp",
    );
  }
  const scopes = typeof claims.scope === "string"
    ? claims.scope.split(" ").filter((s) => s !== "")
    : Array.isArray(claims.scp)
    ? claims.scp.filter((s): s is string => typeof s === "string")
    : [];
  return {
    token,
    clientId,
    scopes,
    expiresAt: exp,
    resource: new URL(resource),
    extra: { sub, iss: claims.iss, claims },
  };
}

/** A claim that names someone: a non-empty string. */
function named(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function decodeBase64Url(part: string, what: string): Uint8Array<ArrayBuffer> {
  // Unpadded base64url: a length of 1 mod 4 cannot be (RFC 7515 §2).
  if (!/^[A-Za-z0-9_-]*$/.test(part) || part.length % 4 === 1) {
    throw new InvalidTokenError(`the token's ${what} is not base64url`);
  }
  const base64 = part.replaceAll("-", "+").replaceAll("_", "/");
  let binary: string;
  try {
    binary = atob(base64 + "=".repeat((4 - base64.length % 4) % 4));
  } catch (cause) {
    throw new InvalidTokenError(`the token's ${what} is not base64url`, {
      cause,
    });
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function decodeJson(part: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(decodeBase64Url(part, what)));
  } catch (cause) {
    if (cause instanceof InvalidTokenError) throw cause;
    throw new InvalidTokenError(`the token's ${what} is not JSON`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidTokenError(`the token's ${what} is not a JSON object`);
  }
  return value as Record<string, unknown>;
}
