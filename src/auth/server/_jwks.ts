/**
 * The issuer's keys for `jwtVerifier`: the WebCrypto parameters of each
 * accepted algorithm, and the JWKS — given or fetched, cached, fetched
 * again for an unknown `kid` at most once per interval, each key imported
 * once.
 *
 * @module
 */

import type { JsonWebKeySet, JwtAlgorithm, JwtVerifierOptions } from "./jwt.ts";
import { InvalidTokenError } from "./resource.ts";

/** How WebCrypto imports and checks a key of one algorithm. */
export type VerifyParams = {
  readonly import: RsaHashedImportParams | EcKeyImportParams | Algorithm;
  readonly verify: Algorithm | RsaPssParams | EcdsaParams;
  readonly kty: string;
};

export const PARAMS: Record<JwtAlgorithm, VerifyParams> = {
  RS256: rsa("RSASSA-PKCS1-v1_5", "SHA-256"),
  RS384: rsa("RSASSA-PKCS1-v1_5", "SHA-384"),
  RS512: rsa("RSASSA-PKCS1-v1_5", "SHA-512"),
  PS256: pss("SHA-256", 32),
  PS384: pss("SHA-384", 48),
  PS512: pss("SHA-512", 64),
  ES256: ec("P-256", "SHA-256"),
  ES384: ec("P-384", "SHA-384"),
  EdDSA: {
    import: { name: "Ed25519" },
    verify: { name: "Ed25519" },
    kty: "OKP",
  },
};

function rsa(name: string, hash: string): VerifyParams {
  return { import: { name, hash }, verify: { name }, kty: "RSA" };
}

function pss(hash: string, saltLength: number): VerifyParams {
  return {
    import: { name: "RSA-PSS", hash },
    verify: { name: "RSA-PSS", saltLength } as RsaPssParams,
    kty: "RSA",
  };
}

function ec(namedCurve: string, hash: string): VerifyParams {
  return {
    import: { name: "ECDSA", namedCurve },
    verify: { name: "ECDSA", hash } as EcdsaParams,
    kty: "EC",
  };
}

/** The longest wait after failed fetches of the JWKS (unless the interval is longer). */
const MAX_BACKOFF = 300_000;

/**
 * The issuer's keys: imported once each, the set fetched again for an
 * unknown `kid` (rate-limited), a failing JWKS backed off.
 */
export class KeySet {
  readonly #source: URL | JsonWebKeySet;
  readonly #interval: number;
  readonly #timeout: number;
  #set?: JsonWebKeySet;
  #fetching?: Promise<JsonWebKeySet>;
  /** No fetch before this time (ms): the interval after a fetch, the back-off after failures. */
  #nextFetch = -Infinity;
  #failures = 0;
  #failure?: Error;
  readonly #imported = new Map<string, Promise<CryptoKey>>();

  constructor(options: JwtVerifierOptions) {
    const jwks = options.jwks;
    this.#source = typeof jwks === "string" ? new URL(jwks) : jwks;
    if (!(this.#source instanceof URL)) this.#set = usable(this.#source);
    this.#interval = options.refetchInterval ?? 30_000;
    this.#timeout = options.fetchTimeout ?? 5_000;
  }

  async find(kid: string | undefined, alg: JwtAlgorithm): Promise<CryptoKey> {
    let set = this.#set ?? await this.#first();
    let jwk = pick(set, kid, alg);
    if (jwk === "none" && this.#source instanceof URL) {
      // A fetch in flight is awaited (concurrent unknown kids share it);
      // else one more, unless the last was within the interval (or the
      // back-off). A failed one leaves the keys already known.
      const fetching = this.#fetching ??
        (Date.now() >= this.#nextFetch ? this.#fetch() : undefined);
      if (fetching !== undefined) {
        set = await fetching.catch(() => set);
        jwk = pick(set, kid, alg);
      }
    }
    if (jwk === "none") {
      throw new InvalidTokenError(
        kid === undefined
          ? `no key of the issuer fits ${alg}`
          : `the issuer has no key ${shown(kid)} for ${alg}`,
      );
    }
    if (jwk === "several") {
      throw new InvalidTokenError(
        `the token names no key (kid) and the issuer has several for ${alg}`,
      );
    }
    const cacheKey = `${alg} ${JSON.stringify(jwk)}`;
    let key = this.#imported.get(cacheKey);
    if (key === undefined) {
      const { alg: _alg, key_ops: _ops, use: _use, ...bare } = jwk as
        & JsonWebKey
        & { use?: string };
      key = crypto.subtle.importKey(
        "jwk",
        bare,
        PARAMS[alg].import,
        false,
        ["verify"],
      );
      this.#imported.set(cacheKey, key);
      key.catch(() => this.#imported.delete(cacheKey));
    }
    try {
      return await key;
    } catch {
      throw new InvalidTokenError(`the issuer's key does not suit ${alg}`);
    }
  }

  /** The set when none is known yet: fetched, unless failures are backing off. */
  #first(): Promise<JsonWebKeySet> {
    if (
      this.#fetching === undefined && this.#failure !== undefined &&
      Date.now() < this.#nextFetch
    ) {
      return Promise.reject(
        new Error(
          `${this.#failure.message}; not fetched again for ${
            Math.ceil((this.#nextFetch - Date.now()) / 1000)
          } s`,
          { cause: this.#failure },
        ),
      );
    }
    return this.#fetch();
  }

  #fetch(): Promise<JsonWebKeySet> {
    this.#fetching ??= this.#load().then(
      (set) => {
        this.#failures = 0;
        this.#failure = undefined;
        this.#nextFetch = Date.now() + this.#interval;
        return set;
      },
      (error: Error) => {
        this.#failures++;
        this.#failure = error;
        const ceiling = Math.max(this.#interval, MAX_BACKOFF);
        this.#nextFetch = Date.now() +
          Math.min(this.#interval * 2 ** (this.#failures - 1), ceiling);
        throw error;
      },
    ).finally(() => this.#fetching = undefined);
    return this.#fetching;
  }

  async #load(): Promise<JsonWebKeySet> {
    const url = this.#source as URL;
    let res: Response;
    try {
      res = await fetch(url, {
        headers: { accept: "application/json" },
        signal: AbortSignal.timeout(this.#timeout),
      });
    } catch (cause) {
      throw new Error(
        `jwtVerifier: the JWKS at ${url} could not be fetched (${
          (cause as Error)?.message
        }); check the issuer's jwks_uri`,
        { cause },
      );
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new Error(
        `jwtVerifier: the JWKS at ${url} answered ${res.status}; check the issuer's jwks_uri`,
      );
    }
    let set: JsonWebKeySet;
    try {
      set = await res.json() as JsonWebKeySet;
    } catch (cause) {
      throw new Error(`jwtVerifier: the JWKS at ${url} is not JSON`, {
        cause,
      });
    }
    if (!Array.isArray(set?.keys)) {
      throw new Error(`jwtVerifier: the JWKS at ${url} has no keys array`);
    }
    this.#set = usable(set);
    this.#imported.clear();
    return this.#set;
  }
}

/** The set's keys that are objects (a malformed entry must not fail every token). */
function usable(set: JsonWebKeySet): JsonWebKeySet {
  return {
    keys: (Array.isArray(set?.keys) ? set.keys : []).filter((k) =>
      typeof k === "object" && k !== null && !Array.isArray(k)
    ),
  };
}

/** The curve a key must be on for `alg` (EC and OKP), else `undefined`. */
function curveOf(alg: JwtAlgorithm): string | undefined {
  const params = PARAMS[alg].import as { namedCurve?: string; name: string };
  return params.namedCurve ?? (alg === "EdDSA" ? "Ed25519" : undefined);
}

/**
 * The key for `kid` and `alg`: by `kid` when the token names one, else
 * the only key that fits — `"none"` when no key fits, `"several"` when a
 * token without `kid` fits more than one (refused, never guessed).
 */
function pick(
  set: JsonWebKeySet,
  kid: string | undefined,
  alg: JwtAlgorithm,
): (JsonWebKey & { kid?: string }) | "none" | "several" {
  const curve = curveOf(alg);
  const suits = set.keys.filter((k) =>
    k.kty === PARAMS[alg].kty && (k.alg === undefined || k.alg === alg) &&
    (curve === undefined || k.crv === curve) &&
    (k as { use?: string }).use !== "enc"
  );
  if (kid !== undefined) return suits.find((k) => k.kid === kid) ?? "none";
  return suits.length === 1
    ? suits[0]
    : suits.length === 0
    ? "none"
    : "several";
}

/** A value of the token as a refusal quotes it: JSON in ASCII, at most 64 characters. */
export function shown(value: unknown): string {
  const text = (JSON.stringify(value) ?? String(value)).replace(
    /[^\x20-\x7e]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return text.length > 64 ? `${text.slice(0, 61)}...` : text;
}
