// The catalog's store keys leave every secret out: a store reader who knows
// an entry's shape and hashes guesses of its header (or env) value — the
// attack as it was made — matches none, the true value among them; an entry
// that changes only a secret keeps its catalog; what the server is (its
// command, arguments, URL path, header names) still changes the key.

import assert from "node:assert/strict";
import { parseServersConfig } from "../servers.ts";
import { memoryStore, type Store } from "../store.ts";
import type { ServerSpec } from "../src/servers/config.ts";
import { catalogKey, ServerCatalog } from "../src/servers/_catalog.ts";

const SECRET = "Bearer sk-live-4417";
const GUESSES = ["Bearer sk-live-0000", SECRET, "Bearer sk-test-4417", ""];

function spec(entry: Record<string, unknown>): ServerSpec {
  return parseServersConfig({ docs: entry })[0];
}

const http = (token: string, url = "https://mcp.example.com/mcp") =>
  spec({ url, headers: { Authorization: token, Accept: "text/plain" } });

// The attacker's hash: the entry as written, keys sorted, SHA-256 (the key
// was the first 16 bytes of this).
async function unsaltedHash(identity: Record<string, unknown>) {
  const canonical = JSON.stringify(identity, (_k, v: unknown) => {
    if (typeof v !== "object" || v === null || Array.isArray(v)) return v;
    return Object.fromEntries(
      Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]]),
    );
  });
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(canonical),
  );
  return Array.from(
    new Uint8Array(digest).slice(0, 16),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

/** A memory store that records every key written. */
function recording(store: Store): { store: Store; keys: string[] } {
  const keys: string[] = [];
  const set = store.set.bind(store);
  store.set = (key, ...rest) => {
    keys.push(key);
    return set(key, ...rest);
  };
  return { store, keys };
}

Deno.test("catalog key: a store reader hashing guesses of a header value recovers nothing", async () => {
  await using memory = memoryStore();
  const { store, keys } = recording(memory);
  const tools = [{ name: "search", inputSchema: { type: "object" } }];
  await new ServerCatalog(store).write(http(SECRET), tools);
  assert.equal(keys.length, 1);
  const stored = keys[0].split("/").pop()!;
  for (const guess of GUESSES) {
    const identity = {
      kind: "http",
      url: "https://mcp.example.com/mcp",
      headers: { Authorization: guess, Accept: "text/plain" },
    };
    assert.notEqual(await unsaltedHash(identity), stored, `guess ${guess}`);
  }
  // Nothing the reader sees depends on the secret: every guess keys alike.
  const all = new Set(
    await Promise.all(GUESSES.map((g) => catalogKey(http(g)))),
  );
  assert.deepEqual([...all], [keys[0]]);
  const value = JSON.stringify((await store.get(keys[0]))?.value);
  assert.ok(!value.includes("sk-live"), value);
});

Deno.test("catalog key: env values, URL credentials, query values and fragments are left out too", async () => {
  const stdio = (value: string) =>
    catalogKey(
      spec({
        command: "deno",
        args: ["run", "srv.ts"],
        env: { API_KEY: value },
      }),
    );
  assert.equal(await stdio("k-1"), await stdio("k-2"));
  const url = (u: string) => catalogKey(http("x", u));
  assert.equal(
    await url("https://user:pw-1@mcp.example.com/mcp?token=a1&v=1#x"),
    await url("https://mcp.example.com/mcp?token=b2&v=2"),
  );
});

Deno.test("catalog key: an entry that changes only its token keeps its catalog; what the server is still changes the key", async () => {
  await using store = memoryStore();
  const catalog = new ServerCatalog(store);
  const tools = [{ name: "search", inputSchema: { type: "object" } }];
  await catalog.write(http("Bearer old"), tools);
  assert.deepEqual(await catalog.read(http("Bearer rotated")), tools);
  const base = await catalogKey(http("t"));
  const others = [
    http("t", "https://mcp.example.com/other"),
    http("t", "https://mcp.example.com:8443/mcp"),
    http("t", "https://mcp.example.com/mcp?tenant=a"),
    spec({ url: "https://mcp.example.com/mcp", headers: { "X-Key": "t" } }),
  ];
  for (const other of others) {
    assert.notEqual(await catalogKey(other), base, JSON.stringify(other));
    assert.equal(await catalog.read(other), undefined);
  }
  const stdio = (args: string[]) =>
    catalogKey(spec({ command: "npx", args, env: { A: "1" } }));
  assert.notEqual(await stdio(["-y", "pkg@1"]), await stdio(["-y", "pkg@2"]));
  assert.notEqual(
    await catalogKey(spec({ command: "npx", args: [], env: { A: "1" } })),
    await catalogKey(spec({ command: "npx", args: [], env: { B: "1" } })),
  );
});
