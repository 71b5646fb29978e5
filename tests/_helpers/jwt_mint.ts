/**
 * Test-only JWT minting with WebCrypto: key pairs as JWKs and signed
 * compact JWS tokens (RS256, PS256, ES256, EdDSA), plus the malformed ones
 * a resource server must refuse (`alg: none`, HS256 with the public key).
 */

export type MintAlg = "RS256" | "PS256" | "ES256" | "EdDSA";

/** A signing key and its public JWK (with `kid`). */
export interface Signer {
  readonly alg: MintAlg;
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly jwk: JsonWebKey & { kid: string };
}

const GEN: Record<MintAlg, RsaHashedKeyGenParams | EcKeyGenParams | Algorithm> =
  {
    RS256: {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    PS256: {
      name: "RSA-PSS",
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    ES256: { name: "ECDSA", namedCurve: "P-256" },
    EdDSA: { name: "Ed25519" },
  };

const SIGN: Record<MintAlg, Algorithm | RsaPssParams | EcdsaParams> = {
  RS256: { name: "RSASSA-PKCS1-v1_5" },
  PS256: { name: "RSA-PSS", saltLength: 32 } as RsaPssParams,
  ES256: { name: "ECDSA", hash: "SHA-256" } as EcdsaParams,
  EdDSA: { name: "Ed25519" },
};

/** A fresh key pair for `alg`, its public half as a JWK named `kid`. */
export async function signer(alg: MintAlg, kid: string): Promise<Signer> {
  const pair = await crypto.subtle.generateKey(GEN[alg], true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const jwk = await crypto.subtle.exportKey("jwk", pair.publicKey);
  delete jwk.key_ops;
  delete jwk.ext;
  return {
    alg,
    kid,
    privateKey: pair.privateKey,
    jwk: { ...jwk, kid, alg, use: "sig" } as JsonWebKey & { kid: string },
  };
}

export function b64url(bytes: Uint8Array | string): string {
  const data = typeof bytes === "string"
    ? new TextEncoder().encode(bytes)
    : bytes;
  let binary = "";
  for (const b of data) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(
    /=+$/,
    "",
  );
}

/** A signed token: `header` fields over the signer's alg and kid. */
export async function mint(
  key: Signer,
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
): Promise<string> {
  const head = b64url(
    JSON.stringify({ alg: key.alg, kid: key.kid, typ: "at+jwt", ...header }),
  );
  const body = b64url(JSON.stringify(claims));
  const signature = await crypto.subtle.sign(
    SIGN[key.alg],
    key.privateKey,
    new TextEncoder().encode(`${head}.${body}`),
  );
  return `${head}.${body}.${b64url(new Uint8Array(signature))}`;
}

/** An unsigned token (`alg: none`). */
export function unsigned(claims: Record<string, unknown>, kid: string): string {
  return `${b64url(JSON.stringify({ alg: "none", kid }))}.${
    b64url(JSON.stringify(claims))
  }.`;
}

/** An HS256 token whose secret is the public JWK's text (the confusion attack). */
export async function hmacWithPublicKey(
  key: Signer,
  claims: Record<string, unknown>,
): Promise<string> {
  const secret = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(JSON.stringify(key.jwk)),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const head = b64url(JSON.stringify({ alg: "HS256", kid: key.kid }));
  const body = b64url(JSON.stringify(claims));
  const sig = await crypto.subtle.sign(
    "HMAC",
    secret,
    new TextEncoder().encode(`${head}.${body}`),
  );
  return `${head}.${body}.${b64url(new Uint8Array(sig))}`;
}
