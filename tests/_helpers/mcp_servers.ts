/**
 * Test servers for the import bridge, over `InMemoryTransport` pairs.
 *
 * `listedServer` is a low-level SDK `Server` with an explicit `tools/list`
 * handler (entries served exactly as given, paged by `pageSize`, so indexes
 * and odd entries are reachable — go-mcp P-4). The SDK server validates its
 * own `tools/call` results, so wire shapes it refuses to send (an unknown
 * content type, an array `structuredContent`) go through `rawPeer`: a bare
 * JSON-RPC responder on the server end of the pair.
 */

// The SDK's `*.js` subpaths carry no types under Deno: `@ts-types` points
// each at its extensionless twin, which resolves to the `.d.ts`.
import { Client } from "@modelcontextprotocol/sdk/client";
import { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
// @ts-types="@modelcontextprotocol/sdk/shared/stdio"
import {
  deserializeMessage,
  serializeMessage,
} from "@modelcontextprotocol/sdk/shared/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  type JSONRPCMessage,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

/** One `tools/call` as the server saw it. */
export interface SeenCall {
  readonly name: string;
  readonly arguments: unknown;
  /** The request's abort signal (aborts on `notifications/cancelled`). */
  readonly signal: AbortSignal;
  /** Sends a request to the client, related to this call (SDK servers only). */
  readonly sendRequest: SendRequest;
}

/** `extra.sendRequest` of the SDK's request handlers. */
export type SendRequest = (
  request: { method: string; params?: Record<string, unknown> },
  resultSchema: unknown,
) => Promise<unknown>;

/** What a test's call handler receives. */
export type CallHandler = (call: SeenCall) => unknown | Promise<unknown>;

/** A connected test server and the client talking to it. */
export interface TestServer extends AsyncDisposable {
  readonly client: Client;
  /** Every `tools/call` received, in order. */
  readonly calls: SeenCall[];
  /** The cursor of every `tools/list` request received, in order. */
  readonly cursors: (string | undefined)[];
  /** Every JSON-RPC message the client sent, in order. */
  readonly sent: JSONRPCMessage[];
  /** With `wire: true`: every message's JSON text, both directions, in order. */
  readonly wire: string[];
  /** The SDK server, for `listedServer` (notifications such as `sendToolListChanged`). */
  readonly server?: Server;
  /** Closes the client (and so both transports). */
  close(): Promise<void>;
}

/** How a `listedServer` behaves. */
export interface ListedServerSpec {
  /** The listing, served as given (any JSON values). */
  tools: unknown[];
  /** Entries per page; all on one page when absent. */
  pageSize?: number;
  /** Answers `tools/call`; `{ content: [{ type: "text", text: "called" }] }` when absent. */
  call?: CallHandler;
  /** Replaces the paging: the whole `tools/list` result for a cursor. */
  list?: (cursor: string | undefined) => unknown | Promise<unknown>;
  /**
   * Sends every message, both ways, through JSON text with the SDK's own
   * stdio serializer and parser (`JSON.stringify`, then `JSON.parse` and the
   * message schema), as its stdio and HTTP transports do.
   */
  wire?: boolean;
  /** The client's options (e.g. `listChanged`). */
  clientOptions?: ClientOptions;
}

/** The SDK client's constructor options. */
export type ClientOptions = ConstructorParameters<typeof Client>[1];

const defaultResult = { content: [{ type: "text", text: "called" }] };

/** Starts a low-level SDK server with an explicit listing and connects a client to it. */
export async function listedServer(
  spec: ListedServerSpec,
): Promise<TestServer> {
  const server = new Server({ name: "remote", version: "0" }, {
    capabilities: { tools: { listChanged: true } },
  });
  const cursors: (string | undefined)[] = [];
  const calls: SeenCall[] = [];
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const cursor = request.params?.cursor;
    cursors.push(cursor);
    if (spec.list) return (await spec.list(cursor)) as never;
    return pageOf(spec.tools, spec.pageSize, cursor) as never;
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const seen: SeenCall = {
      name: request.params.name,
      arguments: request.params.arguments,
      signal: extra.signal,
      sendRequest: (req, schema) =>
        extra.sendRequest(req as never, schema as never),
    };
    calls.push(seen);
    const result = spec.call ? await spec.call(seen) : defaultResult;
    return result as never;
  });
  const [clientTransport, serverTransport] = InMemoryTransport
    .createLinkedPair();
  const wire: string[] = [];
  if (spec.wire) {
    throughText(clientTransport, wire);
    throughText(serverTransport, wire);
  }
  await server.connect(serverTransport);
  return await connectClient(
    clientTransport,
    { calls, cursors, wire, server },
    spec.clientOptions,
  );
}

function throughText(transport: InMemoryTransport, wire: string[]): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const text = serializeMessage(message);
    wire.push(text);
    return send(deserializeMessage(text.trimEnd()), options);
  };
}

function pageOf(
  tools: unknown[],
  pageSize: number | undefined,
  cursor: string | undefined,
) {
  const size = pageSize ?? Math.max(tools.length, 1);
  const start = cursor === undefined ? 0 : Number(cursor);
  const end = start + size;
  const page: Record<string, unknown> = { tools: tools.slice(start, end) };
  if (end < tools.length) page.nextCursor = String(end);
  return page;
}

/** A JSON-RPC failure a `rawPeer` handler throws to answer with an error. */
export class RpcFailure extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

/** Answers one request: a result, or throw an `RpcFailure`. `initialize` is answered for you. */
export type RawHandler = (
  method: string,
  params: Record<string, unknown> | undefined,
) => unknown | Promise<unknown>;

/**
 * Connects a client to a bare JSON-RPC responder: every result is sent
 * exactly as the handler returns it, no SDK validation on the server side.
 */
export async function rawPeer(handle: RawHandler): Promise<TestServer> {
  const [clientTransport, serverTransport] = InMemoryTransport
    .createLinkedPair();
  const calls: SeenCall[] = [];
  const cursors: (string | undefined)[] = [];
  serverTransport.onmessage = (message) => {
    if (!("method" in message) || !("id" in message)) return;
    const { id, method } = message;
    const params = message.params as Record<string, unknown> | undefined;
    if (method === "tools/call") {
      calls.push({
        name: String(params?.name),
        arguments: params?.arguments,
        signal: new AbortController().signal,
        sendRequest: () =>
          Promise.reject(new Error("a raw peer sends no requests")),
      });
    }
    if (method === "tools/list") {
      cursors.push(params?.cursor as string | undefined);
    }
    void answer(method, params).then(
      (result) =>
        serverTransport.send({ jsonrpc: "2.0", id, result } as JSONRPCMessage),
      (err: unknown) => {
        const code = err instanceof RpcFailure ? err.code : -32603;
        const text = err instanceof Error ? err.message : String(err);
        return serverTransport.send({
          jsonrpc: "2.0",
          id,
          error: { code, message: text },
        } as JSONRPCMessage);
      },
    ).catch(() => {/* the client went away */});
  };
  async function answer(
    method: string,
    params: Record<string, unknown> | undefined,
  ) {
    if (method === "initialize") {
      return {
        protocolVersion: params?.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "raw", version: "0" },
      };
    }
    return await handle(method, params);
  }
  await serverTransport.start();
  return await connectClient(clientTransport, { calls, cursors, wire: [] });
}

async function connectClient(
  transport: InMemoryTransport,
  seen: {
    calls: SeenCall[];
    cursors: (string | undefined)[];
    wire: string[];
    server?: Server;
  },
  options?: ClientOptions,
): Promise<TestServer> {
  const client = new Client({ name: "weft-test", version: "0" }, options);
  const sent: JSONRPCMessage[] = [];
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    sent.push(message);
    return send(message, options);
  };
  await client.connect(transport);
  const close = () => client.close();
  return {
    client,
    calls: seen.calls,
    cursors: seen.cursors,
    sent,
    wire: seen.wire,
    server: seen.server,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** A minimal listing entry: `{"type":"object"}` input, optional extras. */
export function entry(
  name: unknown,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { name, inputSchema: { type: "object" }, ...extra };
}

/** A text-only call result. */
export function textResult(
  text: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { content: [{ type: "text", text }], ...extra };
}

/** The messages among `messages` whose JSON-RPC method is `method`, in order. */
export function withMethod(
  messages: readonly JSONRPCMessage[],
  method: string,
): JSONRPCMessage[] {
  return messages.filter((m) => "method" in m && m.method === method);
}
