/**
 * An SDK `Server` and the SDK's real `Client`, connected over
 * `InMemoryTransport.createLinkedPair()`, for the export and serve tests.
 * `setup` runs before connect (where `exportTools`/`serveAgent` usually
 * go); every message the server sends is recorded in `fromServer`.
 */

import { Client } from "@modelcontextprotocol/sdk/client";
import { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type CallToolResult,
  CallToolResultSchema,
  type JSONRPCMessage,
  type ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";

/** A connected server and client. Disposing closes the client (and so both ends). */
export interface Pair extends AsyncDisposable {
  readonly server: Server;
  readonly client: Client;
  /** Every JSON-RPC message the server sent, in order. */
  readonly fromServer: JSONRPCMessage[];
}

/** How `connected` builds the server. */
export interface PairOptions {
  /** The server's declared capabilities; none when absent. */
  capabilities?: ServerCapabilities;
  /** The server's name; `demo` when absent. */
  name?: string;
}

/** Builds a server, runs `setup` on it, then connects a client (`demo-client`/`0`). */
export async function connected(
  setup: (server: Server) => void,
  options: PairOptions = {},
): Promise<Pair> {
  const server = new Server(
    { name: options.name ?? "demo", version: "0" },
    options.capabilities ? { capabilities: options.capabilities } : undefined,
  );
  setup(server);
  const [clientTransport, serverTransport] = InMemoryTransport
    .createLinkedPair();
  const fromServer: JSONRPCMessage[] = [];
  const send = serverTransport.send.bind(serverTransport);
  serverTransport.send = (message, sendOptions) => {
    fromServer.push(message);
    return send(message, sendOptions);
  };
  await server.connect(serverTransport);
  const client = new Client({ name: "demo-client", version: "0" });
  await client.connect(clientTransport);
  return {
    server,
    client,
    fromServer,
    async [Symbol.asyncDispose]() {
      await client.close();
    },
  };
}

/**
 * `tools/call` through the client's raw `request` with the SDK's plain result
 * schema: no client-side output-schema check, so the server's answer is seen
 * as sent.
 */
export function callRaw(
  client: Client,
  name: string,
  args?: unknown,
  options: { signal?: AbortSignal } = {},
): Promise<CallToolResult> {
  const params: Record<string, unknown> = { name };
  if (args !== undefined) params.arguments = args;
  return client.request(
    { method: "tools/call", params } as never,
    CallToolResultSchema,
    options,
  ) as Promise<CallToolResult>;
}

/** The text of a result's single text item; throws when the shape is anything else. */
export function onlyText(result: CallToolResult): string {
  if (result.content.length !== 1) {
    throw new Error(`expected one content item, got ${result.content.length}`);
  }
  const item = result.content[0];
  if (item.type !== "text") throw new Error(`expected text, got ${item.type}`);
  return item.text;
}
