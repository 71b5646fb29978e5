/**
 * An exported tool's signed `requestState` (2026-07-28) under attack: bound
 * to its caller, its tool and its arguments, accepted once, signed with a
 * key that is not the whole process's, and never with a short secret.
 */

import assert from "node:assert/strict";
import {
  exportTools,
  httpHandler,
  InMemoryTransport,
  rawTool,
  Server,
  setRequestStateKey,
} from "../mod.ts";
import type { AuthInfo } from "../auth.ts";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { MemoryClaims } from "../src/bridge/_claims.ts";
import { denoKvStore } from "../src/store/deno_kv.ts";

const SECRET = "0123456789abcdef0123456789abcdef";

/** A tool that asks for confirmation, then "pays"; counts its payments. */
function payTool(name: string, paid: { count: number }) {
  return rawTool({
    name,
    description: "Pays after asking.",
    run: async (args, ctx) => {
      const sure = await ctx.ask!({
        message: `Pay ${JSON.stringify(args)}?`,
        schema: {
          type: "object",
          properties: { ok: { type: "boolean" } },
          required: ["ok"],
        },
      });
      if (sure.action !== "accept" || sure.content?.ok !== true) {
        return "not paid";
      }
      paid.count++;
      return `paid ${paid.count}`;
    },
  });
}

type Reply = { result?: Record<string, unknown>; error?: unknown };

/** A raw 2026-07-28 peer of `server`; each call may carry a verified caller. */
async function modernPeer(server: Server) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const waiting = new Map<number, (message: JSONRPCMessage) => void>();
  clientSide.onmessage = (message) => {
    const id = (message as { id?: number }).id;
    if (id !== undefined) waiting.get(id)?.(message);
  };
  await clientSide.start();
  let next = 0;
  return {
    async call(
      params: Record<string, unknown>,
      authInfo?: AuthInfo,
    ): Promise<Reply> {
      const id = ++next;
      const answer = new Promise<JSONRPCMessage>((resolve) =>
        waiting.set(id, resolve)
      );
      await clientSide.send({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: {
          ...params,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
          },
        },
      }, authInfo === undefined ? undefined : { authInfo });
      return await answer as unknown as Reply;
    },
    [Symbol.asyncDispose]: () => server.close(),
  };
}

function who(clientId: string, sub: string): AuthInfo {
  return { token: `t-${sub}`, clientId, scopes: [], extra: { sub } };
}

const YES = { ask_0: { action: "accept", content: { ok: true } } };

/** The first round's requestState, asked by `caller`. */
async function asked(
  peer: Awaited<ReturnType<typeof modernPeer>>,
  params: Record<string, unknown>,
  caller?: AuthInfo,
): Promise<string> {
  const first = (await peer.call(params, caller)).result!;
  assert.equal(first.resultType, "input_required");
  return first.requestState as string;
}

function textOf(reply: Reply): string {
  const content = reply.result?.content as { text: string }[] | undefined;
  return content?.[0]?.text ?? JSON.stringify(reply);
}

Deno.test("requestState: Mallory cannot complete Alice's pending call with Alice's signed state and answers", async () => {
  const paid = { count: 0 };
  const server = new Server({ name: "shop", version: "1.0.0" });
  exportTools(server, payTool("pay", paid));
  await using peer = await modernPeer(server);
  const alice = who("app", "alice");
  const mallory = who("app", "mallory");
  const base = { name: "pay", arguments: { amount: 100 } };
  const state = await asked(peer, base, alice);

  const retry = { ...base, requestState: state, inputResponses: YES };
  for (
    const [caller, label] of [[mallory, "another subject"], [
      who("other-app", "alice"),
      "another client",
    ], [undefined, "no token"]] as const
  ) {
    assert.deepEqual(
      (await peer.call(retry, caller)).error,
      {
        code: -32602,
        message:
          "invalid requestState: issued to another caller; call the tool again without it",
      },
      label,
    );
  }
  assert.equal(paid.count, 0);
  // Refusing the others spent nothing: Alice completes her own call.
  assert.equal(textOf(await peer.call(retry, alice)), "paid 1");
});

Deno.test("requestState: the final retry replayed 5 times pays once; the replays are refused", async () => {
  const paid = { count: 0 };
  const server = new Server({ name: "shop", version: "1.0.0" });
  exportTools(server, payTool("pay", paid));
  await using peer = await modernPeer(server);
  const alice = who("app", "alice");
  const base = { name: "pay", arguments: { amount: 5 } };
  const state = await asked(peer, base, alice);
  const retry = { ...base, requestState: state, inputResponses: YES };

  const replies = await Promise.all(
    Array.from({ length: 5 }, () => peer.call(retry, alice)),
  );
  const done = replies.filter((r) => r.result !== undefined);
  assert.equal(done.length, 1);
  assert.equal(textOf(done[0]), "paid 1");
  for (const refused of replies.filter((r) => r.error !== undefined)) {
    assert.deepEqual(refused.error, {
      code: -32602,
      message:
        "invalid requestState: already used (each requestState is accepted once); call the tool again without it",
    });
  }
  // Later, too.
  assert.equal((await peer.call(retry, alice)).result, undefined);
  assert.equal(paid.count, 1);
});

Deno.test("requestState: a state for tool A presented to tool B (same key, same arguments) is refused", async () => {
  const paid = { count: 0 };
  const server = new Server({ name: "shop", version: "1.0.0" });
  // One key for the whole server: only the tool name tells the two apart.
  setRequestStateKey(server, SECRET);
  exportTools(server, payTool("refund", paid), payTool("pay", paid));
  await using peer = await modernPeer(server);
  const args = { amount: 1 };
  const state = await asked(peer, { name: "refund", arguments: args });
  const reply = await peer.call({
    name: "pay",
    arguments: args,
    requestState: state,
    inputResponses: YES,
  });
  assert.deepEqual(reply.error, {
    code: -32602,
    message:
      "invalid requestState: issued for another tool call (a different tool or arguments)",
  });
  assert.equal(paid.count, 0);
});

Deno.test("requestState: two registries in one process without keys do not verify each other's states; one tool definition on many servers does", async () => {
  const paid = { count: 0 };
  const shop = new Server({ name: "shop", version: "1.0.0" });
  const other = new Server({ name: "shop", version: "1.0.0" });
  exportTools(shop, payTool("pay", paid));
  exportTools(other, payTool("pay", paid));
  await using a = await modernPeer(shop);
  await using b = await modernPeer(other);
  const base = { name: "pay", arguments: {} };
  const state = await asked(a, base);
  assert.deepEqual(
    (await b.call({ ...base, requestState: state, inputResponses: YES }))
      .error,
    {
      code: -32602,
      message:
        "invalid requestState: not signed by this server (altered, or signed with another key); call the tool again without it",
    },
  );
  assert.equal(paid.count, 0);

  // A factory's servers exporting one tool definition (built once) share
  // its key: the retry may reach another of them.
  const pay = payTool("pay", paid);
  const first = new Server({ name: "shop", version: "1.0.0" });
  const second = new Server({ name: "shop", version: "1.0.0" });
  exportTools(first, pay);
  exportTools(second, pay);
  await using c = await modernPeer(first);
  await using d = await modernPeer(second);
  const shared = await asked(c, base);
  assert.equal(
    textOf(
      await d.call({ ...base, requestState: shared, inputResponses: YES }),
    ),
    "paid 1",
  );
});

Deno.test("setRequestStateKey: a key under 32 bytes is refused at once with a TypeError naming its length", () => {
  const server = new Server({ name: "shop", version: "1.0.0" });
  for (const secret of ["x".repeat(31), new Uint8Array(31)]) {
    assert.throws(
      () => setRequestStateKey(server, secret),
      (err: Error) =>
        err instanceof TypeError &&
        err.message ===
          "setRequestStateKey(server, secret): the requestState key must hold at least 32 bytes, got 31; use a random secret of 32 bytes or more",
    );
  }
  // Bytes, not characters: 16 two-byte characters are 32 bytes.
  setRequestStateKey(server, "é".repeat(16));
  setRequestStateKey(server, new Uint8Array(32));
  assert.throws(
    () =>
      setRequestStateKey(server, SECRET, {
        store: {} as unknown as {
          claimOnce(key: string, ttlMs: number): Promise<boolean>;
        },
      }),
    TypeError,
  );
});

Deno.test("requestState: instances sharing a key and a KV store refuse a retry replayed on the other instance", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    // The raw Deno.Kv, as a user passes it (taken as denoKvStore(kv)).
    const store = kv;
    const paid = { count: 0 };
    const peers = [];
    for (let i = 0; i < 2; i++) {
      const server = new Server({ name: "shop", version: "1.0.0" });
      setRequestStateKey(server, SECRET, { store });
      // Each instance builds its own definition: the shared key verifies.
      exportTools(server, payTool("pay", paid));
      peers.push(await modernPeer(server));
    }
    const base = { name: "pay", arguments: {} };
    const state = await asked(peers[0], base);
    const retry = { ...base, requestState: state, inputResponses: YES };
    assert.equal(textOf(await peers[1].call(retry)), "paid 1");
    assert.match(
      JSON.stringify((await peers[0].call(retry)).error),
      /already used/,
    );
    assert.equal(paid.count, 1);
    for (const peer of peers) await peer[Symbol.asyncDispose]();
  } finally {
    kv.close();
  }
});

Deno.test("claim stores: once per key within the TTL; memory bounded, refusing rather than forgetting", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = denoKvStore(kv);
    assert.equal(await store.claimOnce("a", 60_000), true);
    assert.equal(await store.claimOnce("a", 60_000), false);
    assert.equal(await store.claimOnce("b", 60_000), true);
  } finally {
    kv.close();
  }
  const memory = new MemoryClaims(2);
  assert.equal(await memory.claimOnce("a", 60_000), true);
  assert.equal(await memory.claimOnce("a", 60_000), false);
  assert.equal(await memory.claimOnce("b", 60_000), true);
  // Full of live ids: refused, "a" still remembered.
  await assert.rejects(memory.claimOnce("c", 60_000), /are full \(2 states/);
  assert.equal(await memory.claimOnce("a", 60_000), false);
  // Expired ids are swept to make room.
  const short = new MemoryClaims(1);
  assert.equal(await short.claimOnce("x", 0), true);
  assert.equal(await short.claimOnce("y", 60_000), true);
  assert.equal(short.size, 1);
});

Deno.test("over httpHandler with auth (a new server per request): Alice's state completes only for Alice's token, once", async () => {
  const paid = { count: 0 };
  const pay = payTool("pay", paid);
  const resource = "http://localhost/mcp";
  await using handler = httpHandler((_request, _auth) => {
    const server = new Server({ name: "shop", version: "1.0.0" });
    exportTools(server, pay);
    return server;
  }, {
    auth: {
      resource,
      authorizationServers: ["http://127.0.0.1:9/issuer"],
      verify: (token) =>
        token === "alice" || token === "mallory"
          ? { token, clientId: "app", scopes: [], extra: { sub: token } }
          : undefined,
    },
  });
  const post = async (
    bearer: string,
    params: Record<string, unknown>,
  ): Promise<Reply> => {
    const res = await handler(
      new Request(resource, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${bearer}`,
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "pay",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: {
            name: "pay",
            arguments: { amount: 9 },
            ...params,
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientCapabilities": {
                elicitation: {},
              },
              "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
            },
          },
        }),
        signal: AbortSignal.timeout(10_000),
      }),
    );
    const text = await res.text();
    const line = res.headers.get("content-type")?.includes("application/json")
      ? text
      : text.split("\n").find((l) => l.startsWith("data: {"))!.slice(6);
    return JSON.parse(line) as Reply;
  };
  const first = (await post("alice", {})).result!;
  assert.equal(first.resultType, "input_required");
  const retry = { requestState: first.requestState, inputResponses: YES };
  assert.match(
    JSON.stringify((await post("mallory", retry)).error),
    /issued to another caller/,
  );
  assert.equal(textOf(await post("alice", retry)), "paid 1");
  assert.match(
    JSON.stringify((await post("alice", retry)).error),
    /already used/,
  );
  assert.equal(paid.count, 1);
});
