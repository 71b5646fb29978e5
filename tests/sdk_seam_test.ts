/**
 * The seam to the SDK's and zod's internals (src/seam/sdk_internals.ts):
 * every shape it checks is there in the pinned SDK, every lane it enables is
 * installed when the module runs (read from the seam's report, not
 * inferred), and an object lacking a shape makes the lane fall back, said
 * once per internal.
 */

import assert from "node:assert/strict";
import { Server as SdkServer } from "@modelcontextprotocol/sdk/server/index.js";
import { Client as SdkClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import {
  exportTools,
  httpHandler,
  InMemoryTransport,
  McpClient,
  rawTool,
  Server,
} from "../mod.ts";
import {
  checkSdkInternals,
  clientHandshake,
  forgetSessionId,
  handlerMapsCaught,
  loggingLevels,
  protocolSeam,
  replacePipeThrough,
  replaceSseReader,
  requestHandlers,
  resetSeamReport,
  type SeamInternal,
  seamReport,
  serverCapabilities,
  serverHandshake,
  serverValidator,
  setSeamWarn,
  wrapZodRun,
} from "../src/seam/sdk_internals.ts";
import { shareDeadlines } from "../src/runtime/client/_protocol_lane.ts";
import { LANE_CALL_RESULT } from "../src/runtime/client/_response_lane.ts";
import { LosslessHttpTransport } from "../src/runtime/client/_http_transport.ts";
import { ToolsLane } from "../src/runtime/fast/fast_tools.ts";
import { checkAnswer } from "../src/bridge/_answer.ts";
import { connectHttp } from "../src/runtime/client/connect_http.ts";
import { buildToolServer } from "./fixtures/tool_server.ts";
import {
  META,
  MODERN_PROTOCOL_VERSION as MODERN,
} from "../src/runtime/era/era.ts";

const DEADLINE = 5_000;

const echo = rawTool({
  name: "echo",
  description: "Echoes its arguments.",
  inputSchema: { type: "object" },
  run: (args) => args,
});

/** Runs `body` with the report zeroed and fallback messages collected. */
async function watched(
  body: () => Promise<void> | void,
): Promise<string[]> {
  resetSeamReport();
  const said: string[] = [];
  const restore = setSeamWarn((message) => void said.push(message));
  try {
    await body();
  } finally {
    restore();
  }
  return said;
}

/** The internals that fell back in the report, and those never installed among `expected`. */
function notInstalled(expected: readonly SeamInternal[]): string[] {
  const report = seamReport();
  const out: string[] = [];
  for (const [name, { fellBack }] of Object.entries(report)) {
    if (fellBack > 0) out.push(`${name} fell back`);
  }
  for (const name of expected) {
    if (report[name].installed === 0) out.push(`${name} not installed`);
  }
  return out;
}

Deno.test("every internal the seam uses has its shape in the pinned SDK and zod", () => {
  assert.deepEqual(
    checkSdkInternals({
      Server: SdkServer,
      Client: SdkClient,
      StreamableHTTPClientTransport,
      CallToolResultSchema,
    }),
    [],
  );
});

Deno.test("the client lanes are installed: protocol shortcuts, SSE reader, handshake, session id, result schema", async () => {
  const said = await watched(async () => {
    // The client Protocol's lane: one shared deadline timer, result delivery.
    const [a, peer] = InMemoryTransport.createLinkedPair();
    peer.onmessage = (m) => {
      const message = m as { id?: number; method?: string };
      if (message.method === "initialize") {
        void peer.send({
          jsonrpc: "2.0",
          id: message.id!,
          result: {
            protocolVersion: "2025-06-18",
            capabilities: { tools: {} },
            serverInfo: { name: "peer", version: "1" },
          },
        } as JSONRPCMessage);
      }
    };
    await peer.start();
    const client = new McpClient({ name: "c", version: "1" }, {}, {
      lost: () => undefined,
      close: (c: () => Promise<void>) => c(),
    });
    await client.connect(a);
    // The handshake fields an initialize sent again reads and records.
    const handshake = clientHandshake(client);
    assert.ok(handshake !== undefined);
    assert.deepEqual(handshake.clientInfo, { name: "c", version: "1" });
    await client.close();
    // The HTTP client transport: its SSE reading replaced, its session id forgettable.
    const transport = new LosslessHttpTransport(
      new URL("http://127.0.0.1:9/mcp"),
    );
    transport.forgetSession();
    await transport.close();
  });
  assert.deepEqual(said, []);
  assert.deepEqual(
    notInstalled([
      "clientProtocol",
      "sseReader",
      "clientHandshake",
      "sessionId",
    ]),
    [],
  );
  // The call result schema's lane was made when its module loaded.
  assert.notEqual(LANE_CALL_RESULT, CallToolResultSchema);
  assert.equal(Object.getPrototypeOf(LANE_CALL_RESULT), CallToolResultSchema);
});

Deno.test("over a real listener, a session renewed after a 404 goes through the seam: session id forgotten, handshake sent again, SSE read by the lane", async () => {
  let handler = httpHandler(() => buildToolServer({}), { sessions: true });
  const handlers = [handler];
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req, info) => handler(req, info),
  );
  const url = `http://127.0.0.1:${listener.addr.port}/mcp`;
  const said = await watched(async () => {
    const client = await connectHttp(url, {
      protocol: "legacy",
      signal: AbortSignal.timeout(DEADLINE),
    });
    try {
      const first = client.transport?.sessionId;
      // The server restarts: every session gone, the next call meets a 404.
      await handler.close();
      handler = httpHandler(() => buildToolServer({}), { sessions: true });
      handlers.push(handler);
      const after = await client.callTool({
        name: "echo",
        arguments: { a: 2 },
      });
      assert.match(JSON.stringify(after.content), /\\"a\\":2/);
      assert.notEqual(client.transport?.sessionId, first);
    } finally {
      await client.close();
    }
  });
  for (const h of handlers) await h.close();
  await listener.shutdown();
  assert.deepEqual(said, []);
  assert.deepEqual(
    notInstalled([
      "clientProtocol",
      "sseReader",
      "sessionId",
      "clientHandshake",
    ]),
    [],
  );
});

Deno.test("the server lanes are installed: deferred maps, the direct route, the stdio lane, the validator", async () => {
  const said = await watched(async () => {
    // The direct route of the HTTP handler (a modern tools/call).
    const handler = httpHandler(() => {
      const server = new Server({ name: "s", version: "1" });
      exportTools(server, echo);
      return server;
    }, { onerror: () => {} });
    const res = await handler(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": MODERN,
          "mcp-method": "tools/call",
          "mcp-name": "echo",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: {
            name: "echo",
            arguments: { a: 1 },
            _meta: {
              [META.protocolVersion]: MODERN,
              [META.clientCapabilities]: {},
              [META.clientInfo]: { name: "t", version: "1" },
            },
          },
        }),
        signal: AbortSignal.timeout(DEADLINE),
      }),
    );
    assert.equal(res.status, 200);
    assert.match(await res.text(), /\{\\"a\\":1\}/);
    await handler.close();
    // The stdio lane in front of a connected server.
    const server = new Server({ name: "lane", version: "1" });
    exportTools(server, echo);
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    await server.connect(new ToolsLane(serverEnd, server));
    const answers: { id: number; result: { content?: unknown } }[] = [];
    const answered = Promise.withResolvers<void>();
    clientEnd.onmessage = (m) => {
      answers.push(m as never);
      if (answers.length === 2) answered.resolve();
    };
    await clientEnd.start();
    // A ping first: the Protocol reads its handler maps (the bridge's
    // handlers are then installed in them, read back by the lane).
    await clientEnd.send({ jsonrpc: "2.0", id: 1, method: "ping" });
    await clientEnd.send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "echo", arguments: { b: 2 } },
    });
    await answered.promise;
    const answer = answers.find((a) => a.id === 2)!;
    assert.deepEqual(answer.result.content, [{
      type: "text",
      text: '{"b":2}',
    }]);
    await clientEnd.close();
    // An elicitation answer checked with the server's own validator.
    checkAnswer(
      server,
      { type: "object", properties: { n: { type: "number" } } },
      { action: "accept", content: { n: 1 } },
      "elicitation result",
    );
    await server.close();
  });
  assert.deepEqual(said, []);
  assert.deepEqual(
    notInstalled([
      "deferredMaps",
      "handlerMap",
      "serverCapabilities",
      "serverHandshake",
      "jsonSchemaValidator",
    ]),
    [],
  );
});

Deno.test("the watched SSE body is piped by the pinned SDK (the SSE reader's fallback installed)", async () => {
  const proto = StreamableHTTPClientTransport.prototype as unknown as {
    _handleSseStream: (...args: unknown[]) => void;
  };
  const original = proto._handleSseStream;
  // Another arity: the transport leaves the SDK's reading in place.
  proto._handleSseStream = function (this: unknown, stream: unknown) {
    return original.apply(this, [stream, ...[...arguments].slice(1)]);
  };
  try {
    const said = await watched(async () => {
      const sse = new TextEncoder().encode(
        `data: {"jsonrpc":"2.0","id":0,"result":{"n":1}}\n\n`,
      );
      const transport = new LosslessHttpTransport(
        new URL("http://127.0.0.1:9/mcp"),
        {
          fetch: () =>
            Promise.resolve(
              new Response(ReadableStream.from([sse]), {
                headers: { "content-type": "text/event-stream" },
              }),
            ),
        },
      );
      const got = Promise.withResolvers<JSONRPCMessage>();
      transport.onmessage = (message) => got.resolve(message);
      await transport.start();
      await transport.send({ jsonrpc: "2.0", id: 0, method: "ping" });
      await got.promise;
      await transport.close();
    });
    assert.equal(said.length, 1);
    assert.match(said[0], /\[sseReader\]/);
    const report = seamReport();
    assert.equal(report.sseReader.fellBack, 1);
    assert.equal(report.bodyPipe.installed, 1);
    assert.equal(report.bodyPipe.fellBack, 0);
  } finally {
    proto._handleSseStream = original;
  }
});

Deno.test("objects lacking a shape: every seam steps aside, counted, each fallback said once", async () => {
  const said = await watched(() => {
    for (let round = 0; round < 2; round++) {
      const fake = {} as Record<string, unknown>;
      assert.equal(protocolSeam(fake), undefined);
      assert.equal(replaceSseReader(fake, () => {}), undefined);
      assert.equal(forgetSessionId(fake), false);
      assert.equal(clientHandshake(fake), undefined);
      assert.equal(wrapZodRun({ _zod: {} }, (run) => run), undefined);
      assert.equal(handlerMapsCaught(undefined, new Map()), false);
      assert.equal(requestHandlers(fake), undefined);
      assert.equal(serverCapabilities(fake), undefined);
      assert.equal(serverHandshake(fake), undefined);
      assert.equal(serverValidator(fake), undefined);
      assert.equal(loggingLevels(fake), undefined);
      // A body read without its pipeThrough (the SDK's reading changed).
      const body = ReadableStream.from([new Uint8Array([1])]);
      replacePipeThrough(body, (t) => body.pipeThrough(t));
      body.getReader().releaseLock();
      // Nothing is written on an object whose shape was not found.
      assert.deepEqual(Object.keys(fake), []);
    }
  });
  const report = seamReport();
  for (const [name, { installed, fellBack }] of Object.entries(report)) {
    assert.equal(installed, 0, name);
    assert.equal(fellBack, 2, name);
  }
  // Once per internal, each naming it.
  assert.equal(said.length, Object.keys(report).length);
  for (const name of Object.keys(report)) {
    assert.equal(said.filter((s) => s.includes(`[${name}]`)).length, 1, name);
  }
});

Deno.test("a lane over an object lacking the shape falls back to the SDK's way, said once", async () => {
  const said = await watched(() => {
    const fake = { _timeoutInfo: new Map(), _setupTimeout: () => {} };
    shareDeadlines(fake);
    shareDeadlines(fake);
    // The SDK's own methods stay in place.
    assert.equal(Object.keys(fake).length, 2);
  });
  assert.equal(seamReport().clientProtocol.fellBack, 2);
  assert.equal(said.length, 1);
  assert.match(said[0], /^@weft\/mcp: .*\[clientProtocol\]$/);
});

Deno.test("a server field is written only when the SDK's getter reads it back", () => {
  // A server whose getter reads another field: nothing written.
  const server = {
    _serverInfo: { name: "s", version: "1" },
    _clientCapabilities: undefined,
    _clientVersion: undefined,
    other: { x: 1 },
    getCapabilities: () => ({}),
    getClientCapabilities(): unknown {
      return this.other;
    },
    getClientVersion: () => undefined,
  };
  resetSeamReport();
  const restore = setSeamWarn(() => {});
  try {
    assert.equal(serverHandshake(server), undefined);
  } finally {
    restore();
  }
  assert.equal(server._clientCapabilities, undefined);
  // The SDK's own Server: written, and read back by its getter.
  const sdk = new SdkServer({ name: "s", version: "1" });
  const seam = serverHandshake(sdk)!;
  seam.recordClient({ roots: {} }, { name: "c", version: "2" });
  assert.deepEqual(sdk.getClientCapabilities(), { roots: {} });
  assert.deepEqual(sdk.getClientVersion(), { name: "c", version: "2" });
});
