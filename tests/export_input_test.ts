/**
 * Exported tools asking their caller for input with `ctx.ask` (issue 18,
 * item 3): 2025 callers get `elicitation/create`; 2026-07-28 callers get
 * `input_required` with a signed `requestState`, verified on the retry.
 */

import assert from "node:assert/strict";
import {
  Agent,
  answer,
  Client,
  exportTools,
  importTools,
  InMemoryTransport,
  rawTool,
  serveAgent,
  Server,
  setRequestStateKey,
} from "../mod.ts";
import { callTools, say, script } from "../testing.ts";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ElicitRequestSchema,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import { signState } from "../src/bridge/_request_state.ts";

const FORM = {
  type: "object",
  properties: { name: { type: "string" } },
  required: ["name"],
};

/** Asks for a name, then for a confirmation; counts its runs. */
function greeter(runs: { count: number }) {
  return rawTool({
    name: "greet",
    description: "Greets someone after asking whom.",
    run: async (_args, ctx) => {
      runs.count++;
      const who = await ctx.ask!({ message: "Whom?", schema: FORM });
      if (who.action !== "accept") return `no greeting (${who.action})`;
      const sure = await ctx.ask!({ message: `Greet ${who.content?.name}?` });
      return sure.action === "accept" ? `hello ${who.content?.name}` : "unsure";
    },
  });
}

async function legacyPair(
  server: Server,
  capabilities: Record<string, unknown>,
): Promise<Client & AsyncDisposable> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "host", version: "1.0.0" }, {
    capabilities,
  });
  await client.connect(clientSide);
  return Object.assign(client, {
    [Symbol.asyncDispose]: async () => {
      await client.close();
      await server.close();
    },
  });
}

Deno.test("2025: ask sends elicitation/create to the caller and resolves to its answer", async () => {
  const server = new Server({ name: "greeter", version: "1.0.0" });
  const runs = { count: 0 };
  exportTools(server, greeter(runs));
  await using client = await legacyPair(server, { elicitation: {} });
  const asked: unknown[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params.message);
    return asked.length === 1
      ? { action: "accept", content: { name: "Ada" } }
      : { action: "accept" };
  });
  const result = await client.callTool({ name: "greet", arguments: {} });
  assert.deepEqual(result.content, [{ type: "text", text: "hello Ada" }]);
  assert.deepEqual(asked, ["Whom?", "Greet Ada?"]);
  assert.equal(runs.count, 1);
});

Deno.test("2025 both ways: importTools' onInput answers an exported tool's ask", async () => {
  const server = new Server({ name: "greeter", version: "1.0.0" });
  exportTools(server, greeter({ count: 0 }));
  await using client = await legacyPair(server, { elicitation: {} });
  const { tools } = await importTools(client, {
    onInput: (request) =>
      request.method === "elicitation/create" &&
        request.params.message === "Whom?"
        ? { action: "accept", content: { name: "Bo" } }
        : { action: "decline" },
  });
  assert.equal(await tools[0].invoke("{}"), "unsure");
});

Deno.test("2025: a caller without the elicitation capability makes ask fail with the pinned text", async () => {
  const server = new Server({ name: "greeter", version: "1.0.0" });
  exportTools(server, greeter({ count: 0 }));
  await using client = await legacyPair(server, {});
  const result = await client.callTool({ name: "greet", arguments: {} });
  assert.equal(result.isError, true);
  assert.deepEqual(result.content, [{
    type: "text",
    text:
      'tool "greet" asked for input, but the client declared no elicitation capability',
  }]);
});

/** A raw JSON-RPC peer of an exported server, speaking 2026-07-28 without initialize. */
async function modernPeer(server: Server) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const waiting = new Map<number, (message: JSONRPCMessage) => void>();
  clientSide.onmessage = (message) => {
    const id = (message as { id?: number }).id;
    if (id !== undefined) waiting.get(id)?.(message);
  };
  await clientSide.start();
  let next = 0;
  return {
    async call(
      params: Record<string, unknown>,
      capabilities: Record<string, unknown> = { elicitation: {} },
    ): Promise<Record<string, unknown>> {
      const id = ++next;
      const answer = new Promise<JSONRPCMessage>((resolve) =>
        waiting.set(id, resolve)
      );
      await clientSide.send({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: {
          ...params,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
          },
        },
      });
      const message = await answer;
      return message as unknown as Record<string, unknown>;
    },
    [Symbol.asyncDispose]: () => server.close(),
  };
}

Deno.test("2026-07-28: ask answers input_required with a signed requestState; the retry re-runs the tool with the answers", async () => {
  const server = new Server({ name: "greeter", version: "1.0.0" });
  const runs = { count: 0 };
  exportTools(server, greeter(runs));
  await using peer = await modernPeer(server);
  const base = { name: "greet", arguments: { to: 1 } };

  const first = (await peer.call(base)).result as Record<string, unknown>;
  assert.equal(first.resultType, "input_required");
  assert.deepEqual(first.inputRequests, {
    ask_0: {
      method: "elicitation/create",
      params: { message: "Whom?", requestedSchema: FORM },
    },
  });
  assert.equal(typeof first.requestState, "string");
  assert.match(first.requestState as string, /^[\w-]+\.[\w-]+$/);

  const second = (await peer.call({
    ...base,
    requestState: first.requestState,
    inputResponses: { ask_0: { action: "accept", content: { name: "Ada" } } },
  })).result as Record<string, unknown>;
  assert.equal(second.resultType, "input_required");
  assert.deepEqual(Object.keys(second.inputRequests as object), ["ask_1"]);

  const third = (await peer.call({
    ...base,
    requestState: second.requestState,
    inputResponses: { ask_1: { action: "accept" } },
  })).result as Record<string, unknown>;
  assert.deepEqual(third.content, [{ type: "text", text: "hello Ada" }]);
  assert.equal(third.resultType, undefined);
  assert.equal(runs.count, 3);
});

Deno.test("2026-07-28: an altered, expired or misapplied requestState is refused with InvalidParams", async () => {
  const server = new Server({ name: "greeter", version: "1.0.0" });
  const secret = "0123456789abcdef0123456789abcdef";
  setRequestStateKey(server, secret);
  exportTools(server, greeter({ count: 0 }));
  await using peer = await modernPeer(server);
  const base = { name: "greet", arguments: {} };
  const first = (await peer.call(base)).result as Record<string, unknown>;
  const state = first.requestState as string;

  const refusal = async (requestState: string) =>
    (await peer.call({ ...base, requestState })).error;

  const altered = state.slice(0, -2) + (state.endsWith("A") ? "BB" : "AA");
  assert.deepEqual(await refusal(altered), {
    code: -32602,
    message:
      "invalid requestState: not signed by this server (altered, or signed with another key); call the tool again without it",
  });
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const payload = JSON.parse(
    atob(state.split(".")[0].replace(/-/g, "+").replace(/_/g, "/")),
  );
  const expired = await signState(key, { ...payload, expires: Date.now() - 1 });
  assert.deepEqual(await refusal(expired), {
    code: -32602,
    message: "invalid requestState: expired; call the tool again without it",
  });
  const other = (await peer.call({
    name: "greet",
    arguments: { x: 1 },
    requestState: state,
  })).error;
  assert.deepEqual(other, {
    code: -32602,
    message:
      "invalid requestState: issued for another tool call (a different tool or arguments)",
  });
});

Deno.test("2026-07-28: a caller without the elicitation capability makes ask fail, with no input_required", async () => {
  const server = new Server({ name: "greeter", version: "1.0.0" });
  exportTools(server, greeter({ count: 0 }));
  await using peer = await modernPeer(server);
  const result = (await peer.call({ name: "greet", arguments: {} }, {}))
    .result as Record<string, unknown>;
  assert.equal(result.isError, true);
  assert.equal(result.resultType, undefined);
});

Deno.test("serveAgent: the agent's tools ask their caller too", async () => {
  const server = new Server({ name: "greeter", version: "1.0.0" });
  const agent = new Agent(script(), {
    name: "concierge",
    tools: [greeter({ count: 0 })],
  });
  serveAgent(server, agent, "Greets people.");
  await using client = await legacyPair(server, { elicitation: {} });
  client.setRequestHandler(
    ElicitRequestSchema,
    () => ({ action: "accept", content: { name: "Cy" } }),
  );
  const result = await client.callTool({ name: "greet", arguments: {} });
  assert.deepEqual(result.content, [{ type: "text", text: "hello Cy" }]);
});

Deno.test("2026-07-28 both ways: importTools answers an exported tool's input_required, parked and resumed", async () => {
  const server = new Server({ name: "greeter", version: "1.0.0" });
  const runs = { count: 0 };
  exportTools(server, greeter(runs));
  await using client = await legacyPair(server, {});
  // What the era client adapter adds to every request: the modern envelope.
  const modern = {
    request: (
      request: { method: string; params?: Record<string, unknown> },
      schema: unknown,
      options?: Record<string, unknown>,
    ) =>
      client.request(
        {
          ...request,
          params: {
            ...request.params,
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
            },
          },
        } as never,
        schema as never,
        options,
      ),
  };
  const { tools } = await importTools(modern);
  const agent = new Agent(
    script(callTools({ name: "greet", args: {} }), say("Done.")),
    { tools },
  );
  const first = await agent.generate("Greet.");
  assert.deepEqual(Object.keys(first.pending[0].input!.requests), ["ask_0"]);
  const second = await agent.generate(first.messages, {
    decisions: [
      answer(first.pending[0], { action: "accept", content: { name: "Di" } }),
    ],
  });
  assert.deepEqual(Object.keys(second.pending[0].input!.requests), ["ask_1"]);
  const third = await agent.generate(second.messages, {
    decisions: [answer(second.pending[0], { action: "accept" })],
  });
  assert.equal(third.text, "Done.");
  assert.match(JSON.stringify(third.messages), /hello Di/);
  assert.equal(runs.count, 3);
});

Deno.test("an imported tool exported again passes its server's question on to its own caller (2025 both hops)", async () => {
  // The origin: a 2025 server whose tool asks; weft imports it...
  const origin = new Server({ name: "origin", version: "1.0.0" });
  exportTools(origin, greeter({ count: 0 }));
  await using upstream = await legacyPair(origin, { elicitation: {} });
  const { tools } = await importTools(upstream);
  // ...and exports it on a proxy, whose caller answers.
  const proxy = new Server({ name: "proxy", version: "1.0.0" });
  exportTools(proxy, ...tools);
  await using caller = await legacyPair(proxy, { elicitation: {} });
  const asked: string[] = [];
  caller.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params.message);
    return asked.length === 1
      ? { action: "accept", content: { name: "Eve" } }
      : { action: "accept" };
  });
  const result = await caller.callTool({ name: "greet", arguments: {} });
  assert.deepEqual(result.content, [{ type: "text", text: "hello Eve" }]);
  assert.deepEqual(asked, ["Whom?", "Greet Eve?"]);
});

Deno.test("one key scheme in both eras: the n-th question of a parked call is ask_<n>, over a 2025 and a 2026-07-28 connection, as in the loop", async () => {
  /** The keys each parked round showed, resuming until done. */
  async function parkedKeys(
    tools: Awaited<ReturnType<typeof importTools>>["tools"],
  ): Promise<string[][]> {
    const agent = new Agent(
      script(callTools({ name: "greet", args: {} }), say("Done.")),
      { tools },
    );
    const seen: string[][] = [];
    let run = await agent.generate("Greet.", {
      signal: AbortSignal.timeout(10_000),
    });
    const replies = [{ action: "accept", content: { name: "Di" } }, {
      action: "accept",
    }] as const;
    while (run.pending.length > 0) {
      const pending = run.pending[0];
      const keys = Object.keys(pending.input!.requests);
      seen.push(keys);
      run = await agent.generate(run.messages, {
        signal: AbortSignal.timeout(10_000),
        decisions: [
          answer(pending, { [keys[0]]: replies[seen.length - 1] }),
        ],
      });
    }
    assert.match(JSON.stringify(run.messages), /hello Di/);
    return seen;
  }
  const expected = [["ask_0"], ["ask_1"]];

  // 2025: the server's elicitation/create requests, parked on the live connection.
  const legacyServer = new Server({ name: "greeter", version: "1.0.0" });
  exportTools(legacyServer, greeter({ count: 0 }));
  await using legacy = await legacyPair(legacyServer, { elicitation: {} });
  assert.deepEqual(
    await parkedKeys((await importTools(legacy)).tools),
    expected,
  );

  // 2026-07-28: input_required's inputRequests.
  const modernServer = new Server({ name: "greeter", version: "1.0.0" });
  exportTools(modernServer, greeter({ count: 0 }));
  await using client = await legacyPair(modernServer, {});
  const modern = {
    request: (
      request: { method: string; params?: Record<string, unknown> },
      schema: unknown,
      options?: Record<string, unknown>,
    ) =>
      client.request(
        {
          ...request,
          params: {
            ...request.params,
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
            },
          },
        } as never,
        schema as never,
        options,
      ),
  };
  assert.deepEqual(
    await parkedKeys((await importTools(modern)).tools),
    expected,
  );

  // The loop: a local tool's ctx.ask.
  assert.deepEqual(await parkedKeys([greeter({ count: 0 })]), expected);
});
