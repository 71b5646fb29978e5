/**
 * The cost of `httpHandler`'s `auth` per request: one stateless
 * `tools/call` answered in process (no sockets), without auth and with it —
 * `jwtVerifier` on RS256, PS256, ES256 and EdDSA tokens, each token
 * verified afresh (`cacheSize: 0`: a new token per request, as a first
 * request is) and remembered (the default: a client's next requests), and a
 * `verify` function looking
 * an opaque token up in a Map (the gate's own cost) — interleaved one for
 * one, medians, and the ratio auth/none.
 *
 *     deno run -A bench/auth_bench.ts [--n=2000]
 *
 * @module
 */

import { exportTools, httpHandler, rawTool, Server } from "../mod.ts";
import { type AuthInfo, jwtVerifier } from "../auth.ts";
import type { HttpHandlerOptions } from "../runtime.ts";
import { interleavedMedians } from "./_medians.ts";

const n = Number(
  Deno.args.find((a) => a.startsWith("--n="))?.slice(4) ?? 2000,
);
const RESOURCE = "http://localhost/mcp";
const ISSUER = "https://as.example";

const echo = rawTool({
  name: "echo",
  description: "Echoes.",
  run: (args) => args,
});

function handlerWith(options: HttpHandlerOptions) {
  return httpHandler(() => {
    const server = new Server({ name: "bench", version: "1" });
    exportTools(server, echo);
    return server;
  }, { reuseServers: true, ...options });
}

const BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "echo", arguments: { q: "x" } },
});

function call(
  handler: (req: Request) => Promise<Response>,
  token?: string,
): () => Promise<void> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  return async () => {
    const res = await handler(
      new Request(RESOURCE, { method: "POST", headers, body: BODY }),
    );
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    await res.text();
  };
}

type Alg = "RS256" | "PS256" | "ES256" | "EdDSA";

const KEYS: Record<
  Alg,
  [
    RsaHashedKeyGenParams | EcKeyGenParams | Algorithm,
    Algorithm | RsaPssParams | EcdsaParams,
  ]
> = {
  RS256: [{
    name: "RSASSA-PKCS1-v1_5",
    modulusLength: 2048,
    publicExponent: new Uint8Array([1, 0, 1]),
    hash: "SHA-256",
  }, { name: "RSASSA-PKCS1-v1_5" }],
  PS256: [{
    name: "RSA-PSS",
    modulusLength: 2048,
    publicExponent: new Uint8Array([1, 0, 1]),
    hash: "SHA-256",
  }, { name: "RSA-PSS", saltLength: 32 } as RsaPssParams],
  ES256: [{ name: "ECDSA", namedCurve: "P-256" }, {
    name: "ECDSA",
    hash: "SHA-256",
  } as EcdsaParams],
  EdDSA: [{ name: "Ed25519" }, { name: "Ed25519" }],
};

function b64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(
    /=+$/,
    "",
  );
}

/** A key pair for `alg`: the public JWK and a minting function. */
async function issuer(alg: Alg): Promise<{
  jwk: JsonWebKey;
  mint: () => Promise<string>;
}> {
  const [gen, sign] = KEYS[alg];
  const pair = await crypto.subtle.generateKey(gen, true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const jwk = await crypto.subtle.exportKey("jwk", pair.publicKey);
  const text = (v: unknown) =>
    b64url(new TextEncoder().encode(JSON.stringify(v)));
  let jti = 0;
  return {
    jwk: { ...jwk, kid: alg, alg, key_ops: undefined } as JsonWebKey,
    mint: async () => {
      const head = `${text({ alg, kid: alg, typ: "at+jwt" })}.${
        text({
          iss: ISSUER,
          aud: RESOURCE,
          sub: "s",
          client_id: "c",
          scope: "mcp",
          jti: ++jti,
          exp: Math.floor(Date.now() / 1000) + 3600,
        })
      }`;
      const sig = await crypto.subtle.sign(
        sign,
        pair.privateKey,
        new TextEncoder().encode(head),
      );
      return `${head}.${b64url(new Uint8Array(sig))}`;
    },
  };
}

const none = call(handlerWith({}));
const pairs = [];
for (const alg of ["RS256", "PS256", "ES256", "EdDSA"] as Alg[]) {
  const key = await issuer(alg);
  for (const cacheSize of [0, 1000]) {
    const handler = handlerWith({
      auth: {
        resource: RESOURCE,
        authorizationServers: [ISSUER],
        scopes: ["mcp"],
        verify: jwtVerifier({
          issuer: ISSUER,
          audience: RESOURCE,
          jwks: { keys: [key.jwk] },
          cacheSize,
        }),
      },
    });
    const token = await key.mint();
    pairs.push({
      label: `jwtVerifier ${alg}, ${
        cacheSize === 0 ? "verified" : "remembered"
      }`,
      sdk: none,
      weft: call(handler, token),
      n,
    });
  }
}
const known = new Map<string, AuthInfo>([["opaque", {
  token: "opaque",
  clientId: "c",
  scopes: ["mcp"],
}]]);
pairs.push({
  label: "verify: Map lookup",
  sdk: none,
  weft: call(
    handlerWith({
      auth: {
        resource: RESOURCE,
        authorizationServers: [ISSUER],
        verify: (t) => known.get(t),
      },
    }),
    "opaque",
  ),
  n,
});

console.log(`tools/call in process, ${n} interleaved pairs, medians:`);
console.log("| auth | none, µs | with auth, µs | ratio |");
console.log("| --- | ---: | ---: | ---: |");
for (const r of await interleavedMedians(pairs)) {
  console.log(
    `| ${r.label} | ${(r.sdk * 1000).toFixed(0)} | ${
      (r.weft * 1000).toFixed(0)
    } | ${(r.weft / r.sdk).toFixed(2)} |`,
  );
}
