/**
 * The issuer's keys for `jwtVerifier`: the WebCrypto parameters of each
 * accepted algorithm, and the JWKS — given or fetched, cached, fetched
 * again for an unknown `kid` at most once per interval, each key imported
 * once.
 *
 * @module
 */

import type { JsonWebKeySet, JwtAlgorithm, JwtVerifierOptions } from "./jwt.ts";
import { InvalidTokenError } from "./auth.ts";

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

/** The issuer's keys: imported once each, the set fetched again for an unknown `kid` (rate-limited). */
export class KeySet {
  readonly #source: URL | JsonWebKeySet;
  readonly #interval: number;
  readonly #timeout: number;
  #set?: JsonWebKeySet;
  #fetching?: Promise<JsonWebKeySet>;
  #fetchedAt = -Infinity;
  readonly #imported = new Map<string, Promise<CryptoKey>>();

  constructor(options: JwtVerifierOptions) {
    const jwks = options.jwks;
    this.#source = typeof jwks === "string" ? new URL(jwks) : jwks;
    if (!(this.#source instanceof URL)) this.#set = this.#source;
    this.#interval = options.refetchInterval ?? 30_000;
    this.#timeout = options.fetchTimeout ?? 5_000;
  }

  async find(kid: string | undefined, alg: JwtAlgorithm): Promise<CryptoKey> {
    let set = this.#set ?? await this.#fetch();
    let jwk = pick(set, kid, alg);
    if (jwk === undefined && this.#source instanceof URL) {
      // A fetch in flight is awaited (concurrent unknown kids share it);
      // else one more, unless the last was within the interval.
      const fetching = this.#fetching ??
        (Date.now() - this.#fetchedAt >= this.#interval
          ? this.#fetch()
          : undefined);
      if (fetching !== undefined) {
        set = await fetching;
        jwk = pick(set, kid, alg);
      }
    }
    if (jwk === undefined) {
      throw new InvalidTokenError(
        kid === undefined
          ? "no key of the issuer matches the token"
          : `the issuer has no key ${JSON.stringify(kid)} for ${alg}`,
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

  #fetch(): Promise<JsonWebKeySet> {
    this.#fetching ??= this.#load().finally(() => this.#fetching = undefined);
    return this.#fetching;
  }

  async #load(): Promise<JsonWebKeySet> {
    const url = this.#source as URL;
    this.#fetchedAt = Date.now();
    const res = await fetch(url, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(this.#timeout),
    });
    if (!res.ok) {
      await res.body?.cancel();
      throw new Error(
        `jwtVerifier: the JWKS at ${url} answered ${res.status}; check the issuer's jwks_uri`,
      );
    }
    const set = await res.json() as JsonWebKeySet;
    if (!Array.isArray(set?.keys)) {
      throw new Error(`jwtVerifier: the JWKS at ${url} has no keys array`);
    }
    this.#set = set;
    this.#imported.clear();
    return set;
  }
}

/** The key for `kid` and `alg`: by `kid` when the token names one, else the only key that suits. */
function pick(
  set: JsonWebKeySet,
  kid: string | undefined,
  alg: JwtAlgorithm,
): (JsonWebKey & { kid?: string }) | undefined {
  const suits = set.keys.filter((k) =>
    k.kty === PARAMS[alg].kty && (k.alg === undefined || k.alg === alg) &&
    (k as { use?: string }).use !== "enc"
  );
  if (kid !== undefined) return suits.find((k) => k.kid === kid);
  return suits.length === 1 ? suits[0] : undefined;
}
