/**
 * `EraTransport`'s parts that no end-to-end test held: the internal
 * `initialize` memoized per server (`_internal_requests.ts`: shared by the
 * transports of one pooled server, sent again for another envelope, not
 * kept when the server refused it) and the members of a client capability
 * (`_client_capabilities.ts`: `sampling: {}` does not cover a sampling
 * request with tools, nor `elicitation: {}` a URL elicitation). Driven
 * message by message over a recording wire, with the test playing the
 * server: no SDK `Server`, no timers.
 */

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Transport } from "../src/runtime/sdk_types.ts";
import { META, MODERN_PROTOCOL_VERSION } from "../src/runtime/era/era.ts";
import { EraTransport } from "../src/runtime/era/era_server.ts";
import { resolveCacheHints } from "../src/runtime/era/cache_hints.ts";
import type { InitMemo } from "../src/runtime/era/envelope.ts";

type Message = Record<string, unknown> & {
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
};

/** The client's wire: what the transport sent to the client. */
class Wire implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly sent: Message[] = [];
  start(): Promise<void> {
    return Promise.resolve();
  }
  close(): Promise<void> {
    this.onclose?.();
    return Promise.resolve();
  }
  send(message: JSONRPCMessage): Promise<void> {
    this.sent.push(message as Message);
    return Promise.resolve();
  }
}

const SERVER_INFO = { name: "played", version: "9.9.9" };

/** An `EraTransport` over a recording wire; the test answers as the server. */
function rig(memo: InitMemo = {}) {
  const wire = new Wire();
  const era = new EraTransport(wire, {
    cacheHints: resolveCacheHints(undefined, "test"),
    memo,
  });
  const seen: Message[] = [];
  const waiters: (() => void)[] = [];
  era.onmessage = (message) => {
    seen.push(message as Message);
    for (const wake of waiters.splice(0)) wake();
  };
  /** A client message arriving. */
  const fromClient = (message: Message) =>
    wire.onmessage?.(message as JSONRPCMessage);
  /** The server's answer leaving. */
  const fromServer = (message: Message) =>
    era.send(message as JSONRPCMessage, {
      relatedRequestId: message.id as string | number | undefined,
    });
  /** The first message the server saw matching `pick` (waits on a latch). */
  const serverSaw = async (pick: (m: Message) => boolean) => {
    for (;;) {
      const found = seen.find(pick);
      if (found !== undefined) return found;
      await new Promise<void>((wake) => waiters.push(wake));
    }
  };
  return { wire, era, seen, fromClient, fromServer, serverSaw };
}

function modern(
  id: number,
  method: string,
  envelope: { capabilities?: unknown; clientInfo?: unknown } = {},
  params: Record<string, unknown> = {},
): Message {
  return {
    jsonrpc: "2.0",
    id,
    method,
    params: {
      ...params,
      _meta: {
        [META.protocolVersion]: MODERN_PROTOCOL_VERSION,
        [META.clientCapabilities]: envelope.capabilities ?? {},
        ...(envelope.clientInfo !== undefined &&
          { [META.clientInfo]: envelope.clientInfo }),
      },
    },
  };
}

const initializes = (seen: Message[]) =>
  seen.filter((m) => m.method === "initialize");

const initializeResult = {
  protocolVersion: "2025-11-25",
  capabilities: { tools: {} },
  serverInfo: SERVER_INFO,
};

Deno.test("EraTransport: the transports of one server share its internal initialize; another envelope initializes again", async () => {
  const memo: InitMemo = {};
  const alice = { name: "alice", version: "1" };
  const first = rig(memo);
  first.fromClient(modern(1, "tools/list", { clientInfo: alice }));
  const init = initializes(first.seen);
  assert.equal(init.length, 1);
  assert.deepEqual(init[0].params!.clientInfo, alice);
  await first.fromServer({
    jsonrpc: "2.0",
    id: init[0].id,
    result: initializeResult,
  });
  await first.fromServer({ jsonrpc: "2.0", id: 1, result: { tools: [] } });
  // The internal initialize's answer never reached the client.
  assert.deepEqual(first.wire.sent.map((m) => m.id), [1]);
  assert.deepEqual(
    first.wire.sent[0].result!._meta,
    { [META.serverInfo]: SERVER_INFO },
  );

  // A second transport of the same server, the same envelope: no initialize.
  const second = rig(memo);
  second.fromClient(modern(2, "tools/list", { clientInfo: alice }));
  assert.deepEqual(second.seen.map((m) => m.method), ["tools/list"]);
  await second.fromServer({ jsonrpc: "2.0", id: 2, result: { tools: [] } });
  assert.deepEqual(
    second.wire.sent[0].result!._meta,
    { [META.serverInfo]: SERVER_INFO },
  );

  // Another caller's capabilities: the server is initialized again.
  const third = rig(memo);
  third.fromClient(
    modern(3, "tools/list", { clientInfo: alice, capabilities: { roots: {} } }),
  );
  const again = initializes(third.seen);
  assert.equal(again.length, 1);
  assert.deepEqual(again[0].params!.capabilities, { roots: {} });
});

Deno.test("EraTransport: an internal initialize the server refused is not kept; the next request tries again", async () => {
  const memo: InitMemo = {};
  const { seen, fromClient, fromServer, wire } = rig(memo);
  fromClient(modern(1, "tools/list"));
  const [refused] = initializes(seen);
  await fromServer({
    jsonrpc: "2.0",
    id: refused.id,
    error: { code: -32600, message: "no" },
  });
  await fromServer({ jsonrpc: "2.0", id: 1, result: { tools: [] } });
  // Without facts the result leaves as the server gave it.
  assert.deepEqual(wire.sent, [{
    jsonrpc: "2.0",
    id: 1,
    result: { tools: [] },
  }]);
  assert.equal(memo.facts, undefined);

  fromClient(modern(2, "tools/list"));
  const all = initializes(seen);
  assert.equal(all.length, 2, "a second initialize for the second request");
  assert.notEqual(all[1].id, refused.id);
});

/**
 * A modern `tools/call` declaring `capabilities` in flight, and the
 * server's `request` made from its handler: what reached the client, and
 * the error the server's own request got when it was refused.
 */
async function serverAsks(
  capabilities: unknown,
  request: { method: string; params: Record<string, unknown> },
) {
  const { era, seen, fromClient, fromServer, wire, serverSaw } = rig();
  fromClient(modern(7, "tools/call", { capabilities }, { name: "t" }));
  const [init] = initializes(seen);
  await fromServer({ jsonrpc: "2.0", id: init.id, result: initializeResult });
  await era.send(
    { jsonrpc: "2.0", id: "ask-1", ...request } as JSONRPCMessage,
    { relatedRequestId: 7 },
  );
  const toClient = wire.sent.at(-1)!;
  const refusedToServer = toClient.id === 7
    ? await serverSaw((m) => m.id === "ask-1" && "error" in m)
    : undefined;
  return { toClient, refusedToServer };
}

Deno.test("EraTransport: a sampling request with tools needs sampling.tools, not sampling alone (-32021)", async () => {
  const withTools = {
    method: "sampling/createMessage",
    params: { messages: [], maxTokens: 1, tools: [] },
  };
  const refused = await serverAsks({ sampling: {} }, withTools);
  assert.equal(refused.toClient.id, 7);
  assert.equal(refused.toClient.error?.code, -32021);
  assert.deepEqual(refused.toClient.error?.data, {
    requiredCapabilities: { sampling: { tools: {} } },
  });
  assert.equal(refused.refusedToServer?.error?.code, -32021);

  const allowed = await serverAsks({ sampling: { tools: {} } }, withTools);
  assert.equal(allowed.toClient.method, "sampling/createMessage");
  assert.equal(allowed.refusedToServer, undefined);
});

Deno.test("EraTransport: a URL elicitation needs elicitation.url, not elicitation alone (-32021)", async () => {
  const url = {
    method: "elicitation/create",
    params: {
      mode: "url",
      message: "m",
      url: "https://x.test",
      elicitationId: "e",
    },
  };
  const refused = await serverAsks({ elicitation: {} }, url);
  assert.equal(refused.toClient.error?.code, -32021);
  assert.deepEqual(refused.toClient.error?.data, {
    requiredCapabilities: { elicitation: { url: {} } },
  });
  assert.equal(refused.refusedToServer?.error?.code, -32021);

  const form = {
    method: "elicitation/create",
    params: { message: "m", requestedSchema: { type: "object" } },
  };
  const allowed = await serverAsks({ elicitation: {} }, form);
  assert.equal(allowed.toClient.method, "elicitation/create");
});
