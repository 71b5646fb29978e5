/**
 * `resource`, `resourceTemplate`, `prompt`, `exportResources` and
 * `exportPrompts` over the SDK's in-memory transports: the capabilities
 * declared (only for what is exported), the definition and registration
 * refusals, list changes on a connected server, the failures of a `read`,
 * a `get` or a completer as protocol errors, and the completion cap.
 */

import assert from "node:assert/strict";
import { z } from "zod";
import {
  exportPrompts,
  exportResources,
  exportTools,
  prompt,
  rawTool,
  resource,
  resourceTemplate,
} from "../mod.ts";
import { connected } from "./_helpers/export_pair.ts";
import { Server } from "@modelcontextprotocol/sdk/server";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { CompleteRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const text = resource({ uri: "t://a", name: "a", text: "A" });
const greet = prompt({ name: "greet", get: () => "hi" });

function refused(fn: () => unknown, message: string | RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof TypeError);
    if (typeof message === "string") assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  });
}

Deno.test("capabilities: declared only for what is exported", async () => {
  const echo = rawTool({ name: "echo", description: "E.", run: (a) => a });
  await using tools = await connected((s) => exportTools(s, echo));
  // Tools bring logging: their ctx.log sends notifications/message.
  assert.deepEqual(tools.client.getServerCapabilities(), {
    tools: { listChanged: true },
    logging: {},
  });
  await using res = await connected((s) => exportResources(s, [text]));
  assert.deepEqual(res.client.getServerCapabilities(), {
    resources: { subscribe: true, listChanged: true },
  });
  await using prompts = await connected((s) => exportPrompts(s, [greet]));
  assert.deepEqual(prompts.client.getServerCapabilities(), {
    prompts: { listChanged: true },
    completions: {},
  });
});

Deno.test("definitions refuse what they cannot serve", () => {
  refused(
    () => resource({ uri: "", name: "a", text: "" }),
    "resource: uri must be a non-empty string",
  );
  refused(
    () =>
      resource({ uri: "t://a", name: "a", text: "x", bytes: new Uint8Array() }),
    'resource("t://a"): give exactly one of text, bytes or read',
  );
  refused(
    () => resource({ uri: "t://a", name: "", text: "x" }),
    'resource("t://a"): name must be a non-empty string',
  );
  refused(
    () =>
      resourceTemplate({
        uriTemplate: "t://{id}",
        name: "t",
        read: () => "",
        complete: { other: () => [] },
      }),
    'resourceTemplate("t://{id}"): complete names "other", which is not a variable of the template',
  );
  refused(
    () =>
      prompt({
        name: "p",
        arguments: z.object({ n: z.number() }),
        get: () => "",
      }),
    'prompt "p": argument "n" has type "number"; MCP carries prompt arguments as strings',
  );
  refused(
    () => prompt({ name: "p", arguments: z.string(), get: () => "" }),
    'prompt "p": arguments must be an object schema',
  );
  refused(
    () => prompt({ name: "p", complete: { x: () => [] }, get: () => "" }),
    'prompt "p": complete.x must be a function completing one of its arguments (none)',
  );
  const tpl = resourceTemplate({
    uriTemplate: "t://{id}",
    name: "t",
    read: () => "",
  });
  refused(
    () => tpl.notifyUpdated("x://1"),
    'resourceTemplate("t://{id}").notifyUpdated: "x://1" does not match the template',
  );
});

Deno.test("registration refusals register nothing", async () => {
  const server = new Server({ name: "s", version: "0" });
  refused(
    () => exportResources(server, [text, text]),
    'exportResources: "t://a" is given twice',
  );
  refused(
    // deno-lint-ignore no-explicit-any
    () => exportResources(server, [text, greet as any]),
    "exportResources: defs[1] is not a resource() or resourceTemplate() definition",
  );
  refused(
    // deno-lint-ignore no-explicit-any
    () => exportPrompts(server, greet as any),
    "exportPrompts(server, defs): defs must be an array of prompt() definitions",
  );
  refused(
    () => exportResources(server, [text], { pageSize: 0 }),
    "exportResources: pageSize must be an integer from 1 to 1000, got 0",
  );
  const declared = (server as unknown as {
    getCapabilities(): Record<string, unknown>;
  }).getCapabilities();
  assert.equal(declared.resources, undefined);
  await using pair = await connected(() => {});
  refused(
    () => exportPrompts(pair.server, [greet]),
    'exportPrompts: the server is already connected and does not declare the prompts capability; pass capabilities: { prompts: {"listChanged":true} } to the Server, or export before connect',
  );
});

Deno.test("a connected server tells its client the lists changed", async () => {
  await using pair = await connected(() => {}, {
    capabilities: {
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    },
  });
  exportResources(pair.server, [text]);
  exportPrompts(pair.server, [greet]);
  const { resources } = await pair.client.listResources();
  assert.deepEqual(resources.map((r) => r.uri), ["t://a"]);
  const methods = pair.fromServer.flatMap((m) =>
    "method" in m ? [m.method] : []
  );
  assert.deepEqual(methods, [
    "notifications/resources/list_changed",
    "notifications/prompts/list_changed",
  ]);
});

Deno.test("a read, a get or a completer that fails answers a protocol error naming it", async () => {
  const broken = resource({
    uri: "t://broken",
    name: "broken",
    read: () => {
      throw new Error("disk gone");
    },
  });
  const many = resourceTemplate({
    uriTemplate: "n://{n}",
    name: "n",
    read: ({ variables }) => variables.n,
    complete: { n: () => Array.from({ length: 150 }, (_, i) => String(i)) },
  });
  const odd = prompt({
    name: "odd",
    arguments: z.object({ a: z.string() }),
    // deno-lint-ignore no-explicit-any
    complete: { a: () => [1, 2] as any },
    get: () => "",
  });
  const failing = prompt({
    name: "failing",
    arguments: z.object({ a: z.string() }),
    complete: {
      a: () => {
        throw new Error("no index");
      },
    },
    get: () => {
      throw new Error("template missing");
    },
  });
  await using pair = await connected((s) => {
    exportResources(s, [broken, many]);
    exportPrompts(s, [failing, odd]);
  });
  const c = pair.client;
  const read = await c.readResource({ uri: "t://broken" }).catch((e) => e);
  assert.equal(read.code, -32603);
  assert.equal(
    read.message,
    'MCP error -32603: resource "t://broken" could not be read: disk gone',
  );
  const got = await c.getPrompt({ name: "failing", arguments: { a: "x" } })
    .catch((e) => e);
  assert.equal(got.code, -32603);
  assert.equal(
    got.message,
    'MCP error -32603: prompt "failing" failed: template missing',
  );
  const unknown = await c.getPrompt({ name: "nope" }).catch((e) => e);
  assert.equal(unknown.message, 'MCP error -32602: unknown prompt "nope"');
  const completion = await c.complete({
    ref: { type: "ref/prompt", name: "failing" },
    argument: { name: "a", value: "" },
  }).catch((e) => e);
  assert.equal(
    completion.message,
    'MCP error -32603: completion of prompt "failing", argument "a" failed: no index',
  );
  const noTemplate = await c.complete({
    ref: { type: "ref/resource", uri: "n://{m}" },
    argument: { name: "m", value: "" },
  }).catch((e) => e);
  assert.equal(
    noTemplate.message,
    'MCP error -32602: unknown resource template "n://{m}"',
  );
  const notStrings = await c.complete({
    ref: { type: "ref/prompt", name: "odd" },
    argument: { name: "a", value: "" },
  }).catch((e) => e);
  assert.equal(
    notStrings.message,
    'MCP error -32603: completion of prompt "odd", argument "a" failed: the completer must return an array of strings',
  );
  const capped = await c.complete({
    ref: { type: "ref/resource", uri: "n://{n}" },
    argument: { name: "n", value: "" },
  });
  assert.equal(capped.completion.values.length, 100);
  assert.equal(capped.completion.total, 150);
  assert.equal(capped.completion.hasMore, true);
});

Deno.test("a server whose resources or prompts handlers an McpServer installed is refused", () => {
  const mcp = new McpServer({ name: "demo", version: "0" });
  mcp.registerResource("r", "r://1", {}, () => ({ contents: [] }));
  mcp.registerPrompt("p", {}, () => ({ messages: [] }));
  refused(
    () => exportResources(mcp.server, [text]),
    "exportResources: the server already has a resources/list handler the bridge did not install (an McpServer's, or your own); the bridge keeps one resources registry per server",
  );
  refused(
    () => exportPrompts(mcp.server, [greet]),
    "exportPrompts: the server already has a prompts/list handler the bridge did not install (an McpServer's, or your own); the bridge keeps one prompts registry per server",
  );
});

Deno.test("a foreign completion/complete handler refuses the prompts too: nothing is half registered", () => {
  const server = new Server({ name: "s", version: "0" }, {
    capabilities: { completions: {} },
  });
  server.setRequestHandler(
    CompleteRequestSchema,
    () => ({ completion: { values: [] } }),
  );
  refused(
    () => exportPrompts(server, [greet]),
    "exportPrompts: the server already has a completion/complete handler the bridge did not install (an McpServer's, or your own); the bridge keeps one completions registry per server",
  );
  const declared = (server as unknown as {
    getCapabilities(): Record<string, unknown>;
  }).getCapabilities();
  assert.equal(declared.prompts, undefined);
  // A resource without completers needs no completion handler.
  exportResources(server, [text]);
});
