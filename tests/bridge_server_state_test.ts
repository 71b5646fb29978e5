/**
 * A server's bridge state is one record (`src/core/server_state.ts`): every
 * export, the task runner, the requestState key, the logging levels and the
 * endpoint mark land on the same object, found once; the runtime's readers
 * (the fast path, the scope checks, the task host) read that record's tool
 * registry, and nothing else is kept per server.
 */

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
import { Server as SdkServer } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "../src/runtime/sdk.ts";
import { rawTool } from "../src/core/tool.ts";
import { exportTools, setRequestStateKey } from "../src/bridge/export.ts";
import { exportResources } from "../src/bridge/resources.ts";
import { resource } from "../src/bridge/resource_def.ts";
import { exportPrompts } from "../src/bridge/prompts.ts";
import { prompt } from "../src/bridge/prompt_def.ts";
import { taskToolOf } from "../src/bridge/task_hook.ts";
import { serveTasks } from "../src/tasks/tasks.ts";
import { memoryStore } from "../src/store/memory.ts";
import {
  scopeOfServer,
  serverState,
  serverStateOf,
  setServerScope,
} from "../src/core/server_state.ts";
import { servedToolsOf } from "../src/core/served_tools.ts";
import { namedScopes, requiredScopes } from "../src/core/auth.ts";

const SECRET = "a shared secret of at least 32 bytes!";

const echo = rawTool({
  name: "echo",
  description: "Echo.",
  scopes: ["read"],
  run: (args) => args,
});
const slow = rawTool({
  name: "slow",
  description: "Slow.",
  taskSupport: "optional",
  scopes: ["write", "read"],
  run: () => "done",
});

for (
  const [kind, make] of [
    ["weft", () => new Server({ name: "s", version: "1" })],
    ["sdk", () => new SdkServer({ name: "s", version: "1" })],
  ] as const
) {
  Deno.test(`${kind} server: every export and setting lands on one record, made on first touch`, () => {
    const server = make();
    assert.equal(serverStateOf(server), undefined, "nothing kept before");
    exportTools(server, echo, slow);
    const state = serverStateOf(server);
    assert.ok(state !== undefined);
    exportResources(server, [
      resource({ uri: "mem://a", name: "a", read: () => "A" }),
    ]);
    exportPrompts(server, [
      prompt({ name: "greet", description: "Greet.", get: () => "Hi" }),
    ]);
    setRequestStateKey(server, SECRET);
    serveTasks(server, { store: memoryStore() });
    const endpoint = {};
    setServerScope(server, endpoint);
    assert.equal(serverState(server), state, "found again, not made again");
    assert.ok(state.tools !== undefined, "tools");
    assert.ok(state.resources !== undefined, "resources");
    assert.ok(state.prompts !== undefined, "prompts");
    assert.ok(state.completions !== undefined, "completions (of prompts)");
    assert.ok(state.requestState !== undefined, "requestState key");
    assert.ok(state.taskRunner !== undefined, "task runner");
    assert.equal(state.endpoint, endpoint);
    assert.equal(scopeOfServer(server), endpoint);
    // The runtime's readers read the record's registry.
    assert.deepEqual(requiredScopes(server, "slow"), ["write", "read"]);
    assert.deepEqual(requiredScopes(server, "nope"), []);
    assert.deepEqual(namedScopes(server), ["read", "write", "read"]);
    assert.equal(taskToolOf(server, "echo"), undefined, "not a task tool");
    assert.equal(taskToolOf(server, "slow")?.taskSupport, "optional");
    assert.equal(
      servedToolsOf(server),
      state.tools,
      "the registry is its own fast view: no object made per request",
    );
    assert.deepEqual(
      (servedToolsOf(server)?.list().tools as { name: string }[]).map((t) =>
        t.name
      ),
      ["echo", "slow"],
    );
    // Nothing else is kept on the server: one private slot, no key seen.
    assert.equal(Object.keys(server).includes("weft.serverState"), false);
  });
}

Deno.test("a server nobody exported on has no record; the handler's mark makes one and keeps the first endpoint", () => {
  const server = new Server({ name: "s", version: "1" });
  assert.equal(servedToolsOf(server), undefined);
  assert.deepEqual(requiredScopes(server, "x"), []);
  assert.deepEqual(namedScopes(server), []);
  assert.equal(taskToolOf(server, "x"), undefined);
  assert.equal(serverStateOf(server), undefined, "reading made nothing");
  const first = {};
  setServerScope(server, first);
  setServerScope(server, {});
  assert.equal(scopeOfServer(server), first);
  assert.equal(serverStateOf(server)?.tools, undefined);
});

Deno.test("a server whose tools handlers were replaced after export is not served from its record", async () => {
  const server = new SdkServer({ name: "s", version: "1" }, {
    capabilities: { tools: {} },
  });
  exportTools(server, echo);
  const registry = serverStateOf(server)?.tools;
  assert.equal(servedToolsOf(server), registry);
  server.removeRequestHandler("tools/list");
  server.setRequestHandler(
    (await import("@modelcontextprotocol/sdk/types.js")).ListToolsRequestSchema,
    () => ({ tools: [] }),
  );
  assert.equal(servedToolsOf(server), undefined);
  // The record still holds the registry: the SDK path answers the replacement.
  assert.equal(serverStateOf(server)?.tools, registry);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "c", version: "1" });
  await client.connect(clientSide);
  assert.deepEqual((await client.listTools()).tools, []);
  await client.close();
});
