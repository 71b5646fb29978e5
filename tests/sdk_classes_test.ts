// `@weft/mcp`'s Server, Client and InMemoryTransport are the SDK's classes
// under one import: instances of the SDK classes, assignable both ways at
// the type level, working with the bridge and with SDK APIs alike.

import assert from "node:assert/strict";
import { Client as SdkClient } from "@modelcontextprotocol/sdk/client";
import { Server as SdkServer } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport as SdkInMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
// @ts-types="@modelcontextprotocol/sdk/shared/protocol"
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  ListToolsRequestSchema,
  type ServerNotification,
  type ServerRequest,
  type ServerResult,
} from "@modelcontextprotocol/sdk/types.js";
import {
  Client,
  exportTools,
  importTools,
  InMemoryTransport,
  rawTool,
  Server,
} from "../mod.ts";
import type { Transport } from "../runtime.ts";
import type { Transport as BridgeTransport } from "../bridge.ts";

const echo = rawTool({
  name: "echo",
  description: "Echoes its arguments.",
  inputSchema: { type: "object" },
  run: (args) => args,
});

Deno.test("the re-exported classes build instances of the SDK's classes", () => {
  const server = new Server({ name: "s", version: "1.0.0" }, {
    capabilities: { tools: {} },
  });
  const client = new Client({ name: "c", version: "1.0.0" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  assert.ok(server instanceof SdkServer);
  assert.ok(server instanceof Protocol);
  assert.ok(client instanceof SdkClient);
  assert.ok(a instanceof SdkInMemoryTransport);
  assert.ok(b instanceof SdkInMemoryTransport);
  assert.ok(new InMemoryTransport() instanceof SdkInMemoryTransport);
});

Deno.test("the re-exported and the SDK's types are assignable both ways", () => {
  // Type-level: each assignment below fails `deno check` if the two differ.
  const ours: Server = new SdkServer({ name: "s", version: "1.0.0" });
  const sdk: SdkServer = new Server({ name: "s", version: "1.0.0" });
  const oursClient: Client = new SdkClient({ name: "c", version: "1.0.0" });
  const sdkClient: SdkClient = new Client({ name: "c", version: "1.0.0" });
  const protocol: Protocol<ServerRequest, ServerNotification, ServerResult> =
    ours;
  const [end]: [Transport, BridgeTransport] = SdkInMemoryTransport
    .createLinkedPair();
  const sdkEnd: SdkInMemoryTransport = new InMemoryTransport();
  assert.ok(sdk && oursClient && sdkClient && protocol && end && sdkEnd);
});

Deno.test("an SDK client lists and calls tools exported onto the re-exported server", async () => {
  const server = new Server({ name: "calc", version: "1.0.0" });
  exportTools(server, echo);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new SdkClient({ name: "sdk", version: "1.0.0" });
  await client.connect(clientSide);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["echo"]);
    const result = await client.callTool({ name: "echo", arguments: { a: 1 } });
    assert.deepEqual(result.content, [{ type: "text", text: '{"a":1}' }]);
  } finally {
    await client.close();
  }
});

Deno.test("importTools reads an SDK server through the re-exported client", async () => {
  const server = new SdkServer({ name: "raw", version: "1.0.0" }, {
    capabilities: { tools: {} },
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: "noop", inputSchema: { type: "object" } }],
  }));
  const [clientSide, serverSide] = SdkInMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "ours", version: "1.0.0" });
  await client.connect(clientSide);
  try {
    const { tools } = await importTools(client);
    assert.deepEqual(tools.map((t) => t.name), ["noop"]);
  } finally {
    await client.close();
  }
});
