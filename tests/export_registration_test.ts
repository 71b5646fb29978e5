/**
 * exportTools registration: E-1 (refusals, pinned texts, all-or-nothing),
 * E-2 (replacement across calls), the tools capability, the bridge's own
 * handlers, list_changed. Over the SDK's real Client, in memory.
 */

import assert from "node:assert/strict";
import { z } from "zod";
import { Client } from "@modelcontextprotocol/sdk/client";
import { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { rawTool, tool, type ToolDef } from "../src/core/tool.ts";
import { exportTools } from "../src/bridge/export.ts";
import { callRaw, connected, onlyText } from "./_helpers/export_pair.ts";

function text(
  name: string,
  answer: string,
  description = `${name}'s tool`,
): ToolDef {
  return rawTool({ name, description, run: () => answer });
}

const NIL = (got: string) =>
  `exportTools(server, ...tools): a tool is ${got}; pass tools built with tool() or rawTool()`;
const DUPLICATE = 'exportTools: duplicate tool name "a"';
const GATED =
  'exportTools: tool "refund" requires approval and MCP has no approval channel; expose it through serveAgent, whose dispatch answers gated calls with the approval error';

Deno.test("a nil tool throws the pinned TypeError", () => {
  const server = new Server({ name: "demo", version: "0" });
  assert.throws(
    () => exportTools(server, null as unknown as ToolDef),
    (err: unknown) => err instanceof TypeError && err.message === NIL("null"),
  );
  assert.throws(
    () => exportTools(server, text("a", "x"), undefined as unknown as ToolDef),
    (err: unknown) =>
      err instanceof TypeError && err.message === NIL("undefined"),
  );
});

Deno.test("a name repeated within one call throws the pinned TypeError", () => {
  const server = new Server({ name: "demo", version: "0" });
  assert.throws(
    () => exportTools(server, text("a", "1"), text("b", "2"), text("a", "3")),
    (err: unknown) => err instanceof TypeError && err.message === DUPLICATE,
  );
});

Deno.test("an approval-gated tool throws the pinned TypeError", () => {
  const server = new Server({ name: "demo", version: "0" });
  const refund = rawTool({
    name: "refund",
    description: "Refund.",
    requireApproval: true,
    run: () => "refunded",
  });
  assert.throws(
    () => exportTools(server, refund),
    (err: unknown) => err instanceof TypeError && err.message === GATED,
  );
});

Deno.test("a throw mid-list registers nothing of that call (atomic, ADR 0030)", async () => {
  await using pair = await connected((server) => {
    exportTools(server, text("kept", "old"));
    assert.throws(() =>
      exportTools(
        server,
        text("first", "1"),
        text("kept", "new"),
        text("first", "2"),
      )
    );
    assert.throws(() =>
      exportTools(server, text("second", "1"), null as unknown as ToolDef)
    );
  });
  const { tools } = await pair.client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ["kept"]);
  assert.equal(onlyText(await callRaw(pair.client, "kept")), "old");
});

Deno.test("tools not spread, or anything else that is not a tool, throw a TypeError naming the argument, and nothing is registered", async () => {
  const a = text("a", "1");
  const b = text("b", "2");
  const refused = (args: unknown[], message: string) =>
    assert.throws(
      () => exportTools(pair.server, ...(args as ToolDef[])),
      (err: unknown) => err instanceof TypeError && err.message === message,
    );
  await using pair = await connected((server) => {
    exportTools(server, text("kept", "old"));
  });
  refused(
    [[a, b]],
    "exportTools: argument 2 is an array, not a tool; spread it: exportTools(server, ...tools)",
  );
  refused(
    [a, [b]],
    "exportTools: argument 3 is an array, not a tool; spread it: exportTools(server, ...tools)",
  );
  refused(
    [a, "b"],
    "exportTools: argument 3 is a string, not a tool; pass tools built with tool() or rawTool()",
  );
  refused(
    [{ name: "b", description: "B." }],
    'exportTools: argument 2 is an object without an invoke function (named "b"), not a tool; pass tools built with tool() or rawTool()',
  );
  refused(
    [{ ...b, name: "" }],
    "exportTools: argument 2 is an object without a name, not a tool; pass tools built with tool() or rawTool()",
  );
  refused(
    [a, b, () => "c"],
    "exportTools: argument 4 is a function, not a tool; pass tools built with tool() or rawTool()",
  );
  refused(
    [1],
    "exportTools: argument 2 is a number, not a tool; pass tools built with tool() or rawTool()",
  );
  // A spread copy of a tool is a tool (tools are frozen and copy by spreading).
  exportTools(pair.server, { ...b, name: "b2" });
  const { tools } = await pair.client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ["kept", "b2"]);
});

Deno.test("a name registered by an earlier call is replaced silently, keeping its place", async () => {
  await using pair = await connected((server) => {
    exportTools(server, text("a", "first a", "old"), text("b", "b"));
    exportTools(server, text("a", "second a", "new"));
  });
  const { tools } = await pair.client.listTools();
  assert.deepEqual(tools.map((t) => [t.name, t.description]), [["a", "new"], [
    "b",
    "b's tool",
  ]]);
  assert.equal(onlyText(await callRaw(pair.client, "a")), "second a");
});

Deno.test("capability: a server without it gets { tools: { listChanged: true } } before connect", async () => {
  await using pair = await connected((server) =>
    exportTools(server, text("a", "x"))
  );
  assert.deepEqual(pair.client.getServerCapabilities()?.tools, {
    listChanged: true,
  });
  assert.equal((await pair.client.listTools()).tools.length, 1);
});

Deno.test("capability: a declared one is left as declared", async () => {
  await using pair = await connected(
    (server) => exportTools(server, text("a", "x")),
    { capabilities: { tools: {} } },
  );
  assert.deepEqual(pair.client.getServerCapabilities()?.tools, {});
  assert.equal(onlyText(await callRaw(pair.client, "a")), "x");
});

Deno.test("capability: a connected server without it throws a clear TypeError and registers nothing", async () => {
  await using pair = await connected(() => {});
  assert.throws(
    () => exportTools(pair.server, text("a", "x")),
    (err: unknown) =>
      err instanceof TypeError &&
      err.message ===
        "exportTools: the server is already connected and does not declare the tools capability; pass capabilities: { tools: {} } to the Server, or register tools before connect" &&
      err.cause instanceof Error,
  );
  // Still refused on a second try: the failed call left no half-made registry.
  assert.throws(() => exportTools(pair.server, text("a", "x")), TypeError);
});

Deno.test("after connect: registering on a declared server works and sends tools/list_changed", async () => {
  await using pair = await connected(() => {}, {
    capabilities: { tools: { listChanged: true } },
  });
  const changed = Promise.withResolvers<void>();
  pair.client.setNotificationHandler(
    ToolListChangedNotificationSchema,
    () => changed.resolve(),
  );
  exportTools(pair.server, text("late", "here"));
  await changed.promise;
  assert.deepEqual((await pair.client.listTools()).tools.map((t) => t.name), [
    "late",
  ]);
  assert.equal(onlyText(await callRaw(pair.client, "late")), "here");
});

Deno.test("handlers: a server whose tools handlers an McpServer installed is refused", () => {
  const mcp = new McpServer({ name: "demo", version: "0" });
  mcp.registerTool(
    "sdk_tool",
    { inputSchema: { q: z.string() } },
    () => ({ content: [] }),
  );
  assert.throws(
    () => exportTools(mcp.server, text("a", "x")),
    (err: unknown) =>
      err instanceof TypeError &&
      err.message ===
        "exportTools: the server already has a tools/list handler the bridge did not install (an McpServer's, or your own); the bridge keeps one tool registry per server",
  );
});

Deno.test("handlers: installed once; an McpServer registering after exportTools is refused by the SDK", () => {
  const mcp = new McpServer({ name: "demo", version: "0" });
  exportTools(mcp.server, text("a", "x"));
  exportTools(mcp.server, text("b", "y"));
  assert.throws(
    () => mcp.registerTool("sdk_tool", {}, () => ({ content: [] })),
    /A request handler for tools\/list already exists/,
  );
});

Deno.test("registries are per server", async () => {
  const one = await connected((server) =>
    exportTools(server, text("a", "one"))
  );
  const two = await connected((server) =>
    exportTools(server, text("a", "two"), text("b", "b"))
  );
  try {
    assert.deepEqual((await one.client.listTools()).tools.map((t) => t.name), [
      "a",
    ]);
    assert.equal(onlyText(await callRaw(one.client, "a")), "one");
    assert.equal(onlyText(await callRaw(two.client, "a")), "two");
  } finally {
    await one[Symbol.asyncDispose]();
    await two[Symbol.asyncDispose]();
  }
});

Deno.test("a typed tool and the seed's echo example print heard: hello (ExampleAddTools)", async () => {
  const echo = tool({
    name: "echo",
    description: "Echo the text.",
    input: z.object({ text: z.string() }),
    run: ({ text }) => "heard: " + text,
  });
  const server = new Server({ name: "demo", version: "0" });
  exportTools(server, echo);
  const [clientTransport, serverTransport] = InMemoryTransport
    .createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: "demo-client", version: "0" });
  await client.connect(clientTransport);
  const res = await client.callTool({
    name: "echo",
    arguments: { text: "hello" },
  });
  const out = (res.content as { type: string; text: string }[])[0].text;
  assert.equal(out, "heard: hello");
  await client.close();
});
