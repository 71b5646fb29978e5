// The seam to the SDK's internals (src/seam/sdk_internals.ts) across the
// supported SDK range: its shape checks over another copy's classes (1.17.0,
// the floor, and 1.32.0, a second physical copy of the pinned line), and one
// tools/call round trip over servers built with that copy on each route that
// answers tools — the SDK's Protocol, the HTTP handler's direct route and
// the stdio lane — with the seam's report saying which lanes were installed
// and which fell back (said once): on 1.17 only the JSON Schema validator
// (the module's own Ajv checks an elicitation answer there).

import assert from "node:assert/strict";
import * as low from "@mcp-sdk-low/server/index.js";
import * as lowClient from "@mcp-sdk-low/client/index.js";
import * as lowHttp from "@mcp-sdk-low/client/streamableHttp.js";
import * as lowTypes from "@mcp-sdk-low/types.js";
import * as lowMemory from "@mcp-sdk-low/inMemory.js";
import * as copy from "@mcp-sdk-copy/server/index.js";
import * as copyClient from "@mcp-sdk-copy/client/index.js";
import * as copyHttp from "@mcp-sdk-copy/client/streamableHttp.js";
import * as copyTypes from "@mcp-sdk-copy/types.js";
import * as copyMemory from "@mcp-sdk-copy/inMemory.js";
import { exportTools, httpHandler, rawTool } from "../../mod.ts";
import {
  checkSdkInternals,
  resetSeamReport,
  type SdkCopy,
  type SeamInternal,
  seamReport,
  setSeamWarn,
} from "../../src/seam/sdk_internals.ts";
import { ToolsLane } from "../../src/runtime/fast/fast_tools.ts";
import { checkAnswer, InvalidAnswerError } from "../../src/bridge/_answer.ts";
import {
  META,
  MODERN_PROTOCOL_VERSION as MODERN,
} from "../../src/runtime/era/era.ts";

const DEADLINE = 10_000;

interface ServerLike {
  connect(transport: unknown): Promise<void>;
  close(): Promise<void>;
}
interface ClientLike {
  connect(transport: unknown): Promise<void>;
  callTool(params: { name: string; arguments: unknown }): Promise<unknown>;
  close(): Promise<void>;
}
interface MemoryLike {
  createLinkedPair(): [MemoryEnd, MemoryEnd];
}
interface MemoryEnd {
  onmessage?: (message: unknown) => void;
  start(): Promise<void>;
  send(message: unknown): Promise<void>;
  close(): Promise<void>;
}

interface Range {
  readonly label: string;
  readonly sdk: SdkCopy;
  readonly memory: MemoryLike;
  /** The shapes this copy lacks: client-side ones the module never meets on it. */
  readonly missing: readonly string[];
  /** The server-side internals that fall back on a server of this copy. */
  readonly fallsBack: readonly SeamInternal[];
}

const RANGE: Range[] = [
  {
    label: "SDK 1.17.0 (the floor)",
    sdk: {
      Server: low.Server,
      Client: lowClient.Client,
      StreamableHTTPClientTransport: lowHttp.StreamableHTTPClientTransport,
      CallToolResultSchema: lowTypes.CallToolResultSchema,
    } as unknown as SdkCopy,
    memory: lowMemory.InMemoryTransport as unknown as MemoryLike,
    // The client lane runs on the module's own pinned Client, never on this
    // copy's; a server of this copy has no validator of its own (the
    // module's Ajv checks answers).
    missing: [
      "clientProtocol: Protocol _responseHandlers, _progressHandlers, _requestResolvers, _timeoutInfo (Maps), _setupTimeout, _resetTimeout, _cleanupTimeout (functions)",
      "callResultSchema: CallToolResultSchema._zod.run (function)",
      "loggingLevels: Server _loggingLevels (Map)",
      "jsonSchemaValidator: Server _jsonSchemaValidator.getValidator (function)",
    ],
    // 1.17 keeps no per-session logging levels: ctx.log keeps its own.
    fallsBack: ["loggingLevels", "jsonSchemaValidator"],
  },
  {
    label: "a second copy of SDK 1.32 (1.32.0)",
    sdk: {
      Server: copy.Server,
      Client: copyClient.Client,
      StreamableHTTPClientTransport: copyHttp.StreamableHTTPClientTransport,
      CallToolResultSchema: copyTypes.CallToolResultSchema,
    } as unknown as SdkCopy,
    memory: copyMemory.InMemoryTransport as unknown as MemoryLike,
    missing: [],
    fallsBack: [],
  },
];

const echo = rawTool({
  name: "echo",
  description: "Echoes its arguments.",
  inputSchema: { type: "object" },
  run: (args) => args,
});

function serverOf(range: Range): ServerLike {
  const server = new range.sdk.Server({ name: "range", version: "1" });
  exportTools(server as never, echo);
  return server as unknown as ServerLike;
}

const TEXT = [{ type: "text", text: '{"a":1}' }];

for (const range of RANGE) {
  Deno.test(`seam over ${range.label}: the shapes found are the ones expected`, () => {
    assert.deepEqual(checkSdkInternals(range.sdk), range.missing);
  });

  Deno.test(`seam over ${range.label}: tools/call through the Protocol, the direct route and the stdio lane`, async () => {
    resetSeamReport();
    const said: string[] = [];
    const restore = setSeamWarn((message) => void said.push(message));
    try {
      // The SDK's Protocol, a client of the same copy.
      {
        const server = serverOf(range);
        const [clientSide, serverSide] = range.memory.createLinkedPair();
        await server.connect(serverSide);
        const client = new range.sdk.Client({
          name: "c",
          version: "1",
        }) as unknown as ClientLike;
        await client.connect(clientSide);
        const result = await client.callTool({
          name: "echo",
          arguments: { a: 1 },
        }) as { content: unknown };
        assert.deepEqual(result.content, TEXT);
        await client.close();
        await server.close();
      }
      // The HTTP handler's direct route (a modern stateless tools/call).
      {
        const handler = httpHandler(() => serverOf(range) as never, {
          onerror: () => {},
        });
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
        const text = await res.text();
        const data = text.split("\n").find((l) => l.startsWith("data:"))!;
        assert.deepEqual(JSON.parse(data.slice(5)).result.content, TEXT);
        await handler.close();
      }
      // The stdio lane in front of a connected server of this copy.
      {
        const server = serverOf(range);
        const [clientEnd, serverEnd] = range.memory.createLinkedPair();
        await server.connect(new ToolsLane(serverEnd as never, server));
        const answers: { id: number; result: { content?: unknown } }[] = [];
        const both = Promise.withResolvers<void>();
        clientEnd.onmessage = (m) => {
          answers.push(m as never);
          if (answers.length === 2) both.resolve();
        };
        await clientEnd.start();
        await clientEnd.send({ jsonrpc: "2.0", id: 1, method: "ping" });
        await clientEnd.send({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "echo", arguments: { a: 1 } },
        });
        await both.promise;
        assert.deepEqual(answers.find((a) => a.id === 2)!.result.content, TEXT);
        // An elicitation answer checked against the asked schema, with the
        // server's validator (the module's Ajv where the copy has none).
        assert.throws(
          () =>
            checkAnswer(
              server,
              { type: "object", properties: { n: { type: "number" } } },
              { action: "accept", content: { n: "x" } },
              "elicitation result",
            ),
          InvalidAnswerError,
        );
        await clientEnd.close();
        await server.close();
      }
    } finally {
      restore();
    }
    const report = seamReport();
    for (const name of ["handlerMap", "serverHandshake"] as const) {
      assert.ok(report[name].installed > 0, `${name} installed`);
    }
    const fell = Object.entries(report).filter(([, v]) => v.fellBack > 0)
      .map(([k]) => k).sort();
    assert.deepEqual(fell, [...range.fallsBack].sort());
    assert.equal(said.length, range.fallsBack.length);
  });
}
