/**
 * What a task request may carry, checked at the boundary: an answer to a
 * task's question must answer the form asked (2025-11-25 path, as a direct
 * call's answer is); a fractional `ttl` is kept for a whole ms; task ids
 * the server never issues (`index/-`, `<id>/lease`, U+0000, 3 KB) are a
 * plain -32602 with no internal text; and a Deno KV store keeps keys
 * longer than KV allows (a client's 3 KB session id) under their hash.
 */

import assert from "node:assert/strict";
import {
  Client,
  exportTools,
  httpHandler,
  InMemoryTransport,
  kvStore,
  rawTool,
  Server,
} from "../mod.ts";
import { serveTasks, TaskAccessError } from "../tasks.ts";
import { denoKvStore, memoryStore } from "../store.ts";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";

const asking = rawTool({
  name: "deploy",
  description: "Asks where, then deploys.",
  taskSupport: "optional",
  run: async (_args, ctx) => {
    const where = await ctx.ask!({
      message: "Which region?",
      schema: {
        type: "object",
        properties: { region: { type: "string", enum: ["eu", "us"] } },
        required: ["region"],
      },
    });
    return `deployed to ${where.content?.region}`;
  },
});

async function pair(
  answer: Record<string, unknown>,
): Promise<{ client: Client } & AsyncDisposable> {
  const server = new Server({ name: "tasks", version: "1" });
  exportTools(server, asking);
  serveTasks(server, { store: memoryStore(), pollIntervalMs: 10 });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "host", version: "1" }, {
    capabilities: { elicitation: {} },
  });
  client.setRequestHandler(ElicitRequestSchema, () => answer as never);
  await client.connect(clientSide);
  return {
    client,
    [Symbol.asyncDispose]: async () => {
      await client.close();
      await server.close();
    },
  };
}

async function resultOf(
  answer: Record<string, unknown>,
): Promise<{ isError?: boolean; text: string }> {
  await using served = await pair(answer);
  const created = await served.client.request(
    {
      method: "tools/call",
      params: { name: "deploy", arguments: {}, task: { ttl: 30_000 } },
    },
    CreateTaskResultSchema,
  );
  const result = await served.client.experimental.tasks.getTaskResult(
    created.task.taskId,
    CallToolResultSchema,
    { signal: AbortSignal.timeout(10_000) },
  );
  return {
    isError: result.isError,
    text: (result.content[0] as { text: string }).text,
  };
}

Deno.test("2025 task answers: one outside the form asked never reaches the tool; its ask rejects saying why", async () => {
  const refused = await resultOf({
    action: "accept",
    content: { region: "mars" },
  });
  assert.equal(refused.isError, true);
  assert.match(
    refused.text,
    /invalid elicitation result: content does not match the requested schema: /,
  );
  assert.doesNotMatch(refused.text, /deployed to mars/);
  const good = await resultOf({ action: "accept", content: { region: "eu" } });
  assert.deepEqual(good, { isError: undefined, text: "deployed to eu" });
});

Deno.test("a fractional ttl is kept for a whole ms, not refused", async () => {
  await using served = await pair({ action: "cancel" });
  for (const ttl of [0.5, 1.5]) {
    const created = await served.client.request(
      {
        method: "tools/call",
        params: { name: "deploy", arguments: {}, task: { ttl } },
      },
      CreateTaskResultSchema,
    );
    assert.equal(created.task.ttl, Math.ceil(ttl));
  }
});

Deno.test("task ids the server never issues are -32602 with the pinned text, never an internal error", async () => {
  await using served = await pair({ action: "cancel" });
  const real = (await served.client.request(
    {
      method: "tools/call",
      params: { name: "deploy", arguments: {}, task: { ttl: 30_000 } },
    },
    CreateTaskResultSchema,
  )).task.taskId;
  const text = TaskAccessError.malformed("x").message;
  assert.equal(
    text,
    "task not found: the taskId is not one this server issues (a UUID); send the taskId a tools/call answered",
  );
  const ids = ["index/-", `${real}/lease`, `${real}\u0000`, "a".repeat(3_000)];
  for (const taskId of ids) {
    for (const method of ["tasks/get", "tasks/cancel", "tasks/result"]) {
      const error = await served.client.request(
        { method, params: { taskId } } as never,
        CallToolResultSchema,
      ).then(() => assert.fail(`${method} answered`), (e: unknown) => e);
      assert.ok(error instanceof McpError, String(error));
      assert.equal(error.code, -32602, `${method} ${taskId.slice(0, 40)}`);
      assert.equal(error.message, `MCP error -32602: ${text}`);
    }
  }
});

Deno.test("denoKvStore: a key longer than Deno KV allows is kept under its hash; a name starting like a hash is not another's", async () => {
  using kv = await Deno.openKv(":memory:");
  await using store = denoKvStore(kv);
  const long = `session/${"s".repeat(3_000)}`;
  await store.set(long, { v: 1 });
  assert.deepEqual((await store.get(long))?.value, { v: 1 });
  const entry = await store.get(long);
  assert.equal(await store.swap(long, entry!.version, { v: 2 }), true);
  assert.deepEqual((await store.get(long))?.value, { v: 2 });
  assert.equal(await store.claimOnce(long, 60_000), true);
  assert.equal(await store.claimOnce(long, 60_000), false);
  await store.append(long, "e1");
  assert.deepEqual(
    (await store.readAfter<string>(long, undefined)).map((e) => e.value),
    ["e1"],
  );
  await store.delete(long);
  assert.equal(await store.get(long), undefined);
  await store.set("\u0001abc", 1);
  await store.set("abc", 2);
  assert.equal((await store.get("\u0001abc"))?.value, 1);
  assert.equal((await store.get("abc"))?.value, 2);
});

for (const kind of ["denoKvStore", "kvStore"] as const) {
  Deno.test({
    name:
      `httpHandler on ${kind}: a 3 KB session id is 404 Session not found, not a 500`,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      using kv = await Deno.openKv(":memory:");
      await using store = denoKvStore(kv);
      const handler = httpHandler(() => {
        const server = new Server({ name: "s", version: "1" });
        exportTools(server, asking);
        serveTasks(server, { store });
        return server;
      }, { sessions: true, store: kind === "kvStore" ? kvStore(kv) : store });
      try {
        const response = await handler(
          new Request("http://127.0.0.1/mcp", {
            method: "POST",
            headers: {
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
              "mcp-session-id": "a".repeat(3_000),
              "mcp-protocol-version": "2025-11-25",
            },
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: 1,
              method: "tasks/list",
              params: {},
            }),
          }),
        );
        const body = await response.text();
        assert.equal(response.status, 404, body);
        assert.doesNotMatch(body, /Internal|key too large|TypeError/i);
      } finally {
        await handler.close();
      }
    },
  });
}
