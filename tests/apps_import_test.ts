/**
 * MCP Apps, import side (issue 37 item 1): `apps` reads a tool's view from
 * `_meta.ui.resourceUri` and the flat `_meta["ui/resourceUri"]`, keeps
 * app-only tools from every model request, and records each view call as an
 * `app` event and on the run's saved JSON. Without `apps`, nothing changes.
 */

import assert from "node:assert/strict";
import {
  Agent,
  connectHttp,
  exportTools,
  httpHandler,
  importTools,
  rawTool,
  type RunEvent,
  Server,
} from "../mod.ts";
import { connectServers } from "../servers.ts";
import { appToolInfo, withAppsCapability } from "../apps.ts";
import { callTools, say, script } from "../testing.ts";
import { listedServer } from "./_helpers/mcp_servers.ts";

const VIEW = "ui://clock/view.html";
const LEGACY_VIEW = "ui://clock/legacy.html";
const schema = { type: "object", properties: {} };
const TOOLS = [
  {
    name: "show",
    description: "Shows the time.",
    inputSchema: schema,
    _meta: { ui: { resourceUri: VIEW }, "ui/resourceUri": VIEW },
  },
  {
    name: "legacy",
    description: "Only the flat key.",
    inputSchema: schema,
    _meta: { "ui/resourceUri": LEGACY_VIEW },
  },
  {
    name: "refresh",
    description: "App-only: refreshes the view.",
    inputSchema: schema,
    _meta: { ui: { resourceUri: VIEW, visibility: ["app"] } },
  },
  { name: "plain", description: "No view.", inputSchema: schema },
];
const RESULT = {
  content: [{ type: "text", text: "12:00" }],
  structuredContent: { time: "12:00" },
  _meta: { trace: "t1" },
};

function server() {
  return listedServer({ tools: TOOLS, call: () => RESULT, wire: true });
}

Deno.test("apps: views from both keys, app-only tools kept apart", async () => {
  await using s = await server();
  const { tools, appTools } = await importTools(s.client, {
    apps: { server: "clock" },
  });
  assert.deepEqual(tools.map((t) => t.name), ["show", "legacy", "plain"]);
  assert.deepEqual(appTools?.map((t) => t.name), ["refresh"]);
  assert.deepEqual(appToolInfo(tools[0]), {
    server: "clock",
    tool: "show",
    resourceUri: VIEW,
    visibility: ["model", "app"],
  });
  assert.equal(appToolInfo(tools[1])?.resourceUri, LEGACY_VIEW);
  assert.deepEqual(appToolInfo(appTools![0])?.visibility, ["app"]);
  assert.equal(appToolInfo(tools[2])?.resourceUri, undefined);
});

Deno.test("apps: an app-only tool is in no model request; the run records the view", async () => {
  await using s = await server();
  const { tools } = await importTools(s.client, { apps: { server: "clock" } });
  const model = script(
    callTools({ name: "show", args: { tz: "UTC" } }),
    say("done"),
  );
  const events: RunEvent[] = [];
  const agent = new Agent(model, { tools, onEvent: (e) => events.push(e) });
  const result = await agent.generate("time?");
  const sent = JSON.stringify(model.requests());
  assert.equal(sent.includes("refresh"), false);
  assert.equal(sent.includes("App-only"), false);
  for (const request of model.requests()) {
    assert.deepEqual(request.tools.map((t) => t.name), [
      "show",
      "legacy",
      "plain",
    ]);
  }
  const app = events.filter((e) => e.type === "app");
  assert.equal(app.length, 1);
  const view = {
    server: "clock",
    tool: "show",
    resourceUri: VIEW,
    input: { tz: "UTC" },
    result: RESULT,
  };
  assert.deepEqual(app[0], {
    type: "app",
    runId: result.id,
    seq: 3,
    callId: "call_1",
    name: "show",
    view,
  });
  // After its tool_finish, in seq order.
  assert.deepEqual(events.filter((e) => "seq" in e).map((e) => e.type), [
    "tool_start",
    "tool_finish",
    "app",
  ]);
  // The saved run keeps it: a page re-renders the view from the JSON.
  const saved = JSON.parse(JSON.stringify(result));
  const part = saved.messages.flatMap((m: { content: unknown[] }) => m.content)
    .find((p: { type: string }) => p.type === "tool_result");
  assert.deepEqual(part.view, view);
  assert.deepEqual(saved.steps[0].results[0].view, view);
  // The model read the text, not the view.
  assert.equal(JSON.stringify(model.requests()[1]).includes("trace"), false);
});

Deno.test("apps off: behaviour unchanged (every tool imported, no view, no app event)", async () => {
  await using s = await server();
  const { tools, appTools } = await importTools(s.client);
  assert.deepEqual(tools.map((t) => t.name), [
    "show",
    "legacy",
    "refresh",
    "plain",
  ]);
  assert.equal(appTools, undefined);
  assert.equal(appToolInfo(tools[0]), undefined);
  const model = script(callTools({ name: "show" }), say("done"));
  const events: RunEvent[] = [];
  const result = await new Agent(model, {
    tools,
    onEvent: (e) => events.push(e),
  })
    .generate("time?");
  assert.equal(events.some((e) => e.type === "app"), false);
  assert.equal(JSON.stringify(result).includes("ui://"), false);
});

Deno.test("apps: the client declares the extension with the app MIME type", async () => {
  await using s = await listedServer({
    tools: TOOLS,
    clientOptions: { capabilities: withAppsCapability({ elicitation: {} }) },
  });
  const init = s.sent.find((m) => "method" in m && m.method === "initialize");
  assert.deepEqual(
    (init as unknown as { params: { capabilities: Record<string, unknown> } })
      .params
      .capabilities.extensions,
    {
      "io.modelcontextprotocol/ui": {
        mimeTypes: ["text/html;profile=mcp-app"],
      },
    },
  );
});

Deno.test("apps on one connectServers entry: that server's views and app tools, the other plain", async () => {
  const clock = new URL("../examples/apps/clock_server.ts", import.meta.url)
    .pathname;
  const entry = { command: Deno.execPath(), args: ["run", "-A", clock] };
  await using servers = await connectServers({
    mcpServers: { views: { ...entry, apps: true }, plain: entry },
  }, { signal: AbortSignal.timeout(30_000) });
  assert.equal(servers.error, undefined, servers.error?.message);
  const apps = servers.appServers();
  assert.deepEqual(apps.map((s) => s.name), ["views"]);
  assert.deepEqual(apps[0].tools.map((t) => t.name), ["views_get_time"]);
  assert.deepEqual(appToolInfo(apps[0].tools[0]), {
    server: "views",
    tool: "get_time",
    resourceUri: "ui://clock/get_time",
    visibility: ["model", "app"],
  });
  const plain = servers.tools.find((t) => t.name === "plain_get_time")!;
  assert.equal(appToolInfo(plain), undefined);
});

Deno.test("connectHttp apps: the server sees the extension declared in initialize", async () => {
  const seen: unknown[] = [];
  const handler = httpHandler(() => {
    const server = new Server({ name: "probe", version: "1" });
    exportTools(server, rawTool({ name: "t", description: "", run: () => "" }));
    server.oninitialized = () => seen.push(server.getClientCapabilities());
    return server;
  }, { sessions: true });
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    handler,
  );
  try {
    const url = `http://127.0.0.1:${listener.addr.port}/mcp`;
    for (const apps of [true, false]) {
      await using client = await connectHttp(url, { apps, protocol: "legacy" });
      await client.listTools();
    }
    assert.deepEqual(seen, [
      {
        elicitation: { form: {} },
        extensions: {
          "io.modelcontextprotocol/ui": {
            mimeTypes: ["text/html;profile=mcp-app"],
          },
        },
      },
      { elicitation: { form: {} } },
    ]);
  } finally {
    await handler.close();
    await listener.shutdown();
  }
});
