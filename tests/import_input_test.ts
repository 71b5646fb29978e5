/**
 * Importing from a server that asks for input mid-call (issue 18, item 3):
 * 2025 servers send `elicitation/create`, 2026-07-28 servers answer
 * `input_required`; the importer's `onInput` answers at once, or the call
 * parks in the agent run until `answer` resumes it.
 */

import assert from "node:assert/strict";
import {
  Agent,
  answer,
  Client,
  importTools,
  InMemoryTransport,
  InputRequiredError,
  type InputResponse,
  Server,
} from "../mod.ts";
import type { InputHandler } from "../bridge.ts";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  ListToolsRequestSchema,
  RequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { callTools, say, script } from "../testing.ts";

const FORM = {
  type: "object",
  properties: {
    name: { type: "string", default: "John Doe" },
    age: { type: "integer", default: 30 },
  },
};

const LISTING = {
  tools: [{
    name: "register",
    description: "Registers a person.",
    inputSchema: { type: "object" },
  }],
};

/** A tools/call schema that keeps every param (the SDK's strips unknown ones). */
const LOOSE_CALL = RequestSchema.extend({
  method: CallToolRequestSchema.shape.method,
});

interface Pair extends AsyncDisposable {
  readonly client: Client;
}

async function pair(server: Server, elicitation = true): Promise<Pair> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client(
    { name: "host", version: "1.0.0" },
    { capabilities: elicitation ? { elicitation: {} } : {} },
  );
  await client.connect(clientSide);
  return {
    client,
    [Symbol.asyncDispose]: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** A 2025 server whose tool asks `elicitation/create` and answers with what it got. */
function legacyServer(): Server {
  const server = new Server(
    { name: "people", version: "1.0.0" },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => LISTING);
  server.setRequestHandler(CallToolRequestSchema, async (_request, extra) => {
    const reply = await extra.sendRequest(
      {
        method: "elicitation/create",
        params: { message: "Who are you?", requestedSchema: FORM },
      },
      ElicitResultSchema,
    );
    return {
      content: [{ type: "text", text: `got ${JSON.stringify(reply)}` }],
    };
  });
  return server;
}

/** A 2026-07-28 server: input_required first, then the answer it was retried with. */
function modernServer(retries: unknown[]): Server {
  const server = new Server(
    { name: "people", version: "1.0.0" },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => LISTING);
  server.setRequestHandler(LOOSE_CALL, (request) => {
    const params = request.params as Record<string, unknown>;
    if (params.requestState === undefined) {
      return {
        resultType: "input_required",
        inputRequests: {
          who: {
            method: "elicitation/create",
            params: { message: "Who are you?", requestedSchema: FORM },
          },
        },
        requestState: "state-1",
      };
    }
    retries.push({
      requestState: params.requestState,
      inputResponses: params.inputResponses,
      arguments: params.arguments,
    });
    return {
      content: [{
        type: "text",
        text: `got ${JSON.stringify(params.inputResponses)}`,
      }],
    };
  });
  return server;
}

const accept: InputHandler = () => ({
  action: "accept",
  content: { name: "Ada" },
});

Deno.test("2025: onInput answers the server's elicitation/create at once, the form's defaults filled in", async () => {
  await using peer = await pair(legacyServer());
  const seen: unknown[] = [];
  const { tools } = await importTools(peer.client, {
    onInput: (request, context) => {
      seen.push(request, context.server, context.tool);
      return accept(request, context);
    },
  });
  const text = await tools[0].invoke("{}", {
    signal: AbortSignal.timeout(20_000),
  });
  assert.equal(
    text,
    'got {"action":"accept","content":{"name":"Ada","age":30}}',
  );
  assert.deepEqual(seen, [
    {
      method: "elicitation/create",
      params: { message: "Who are you?", requestedSchema: FORM },
    },
    "people",
    "register",
  ]);
});

Deno.test("2025: without onInput the call parks in the run, and answer sends the reply to the waiting request", async () => {
  await using peer = await pair(legacyServer());
  const { tools } = await importTools(peer.client);
  const agent = new Agent(
    script(callTools({ name: "register", args: {} }), say("Registered.")),
    { tools },
  );
  const parked = await agent.generate("Register me.", {
    signal: AbortSignal.timeout(20_000),
  });
  assert.equal(parked.pending.length, 1);
  const input = parked.pending[0].input!;
  assert.equal(input.server, "people");
  assert.equal(input.tool, "register");
  assert.deepEqual(input.requests, {
    ask_0: {
      method: "elicitation/create",
      params: { message: "Who are you?", requestedSchema: FORM },
    },
  });
  assert.ok(!JSON.stringify(parked.messages).includes("Who are you?"));
  const done = await agent.generate(parked.messages, {
    signal: AbortSignal.timeout(20_000),
    decisions: [
      answer(parked.pending[0], {
        action: "accept",
        content: { name: "Bo", age: 7 },
      }),
    ],
  });
  assert.equal(done.text, "Registered.");
  const result = done.messages.find((m) => m.role === "tool")?.content[0];
  assert.deepEqual(
    result && "content" in result ? result.content : "",
    [
      'got {"action":"accept","content":{"name":"Bo","age":7}}',
    ].join(""),
  );
});

Deno.test("2025: a resumed call whose request no longer waits reads the pinned text", async () => {
  await using peer = await pair(legacyServer());
  const { tools } = await importTools(peer.client);
  const stale: InputResponse = { action: "accept", content: {} };
  await assert.rejects(
    tools[0].invoke("{}", {
      call: {
        runId: "r",
        step: 0,
        callId: "c",
        name: "register",
        approved: true,
        answer: {
          responses: { ask_0: stale },
          state: JSON.stringify({ era: "legacy", ticket: "gone" }),
        },
      },
    }),
    (err: Error) => {
      assert.equal(
        err.message,
        'mcp: the input request of server "people" no longer waits (its connection closed, or the run resumed in another process); call the tool again',
      );
      return true;
    },
  );
});

Deno.test("2025: outside the loop, a call the server asks about rejects with InputRequiredError", async () => {
  await using peer = await pair(legacyServer());
  const { tools } = await importTools(peer.client);
  await assert.rejects(
    tools[0].invoke("{}"),
    (err: Error) =>
      err instanceof InputRequiredError &&
      err.message === 'weft: tool call requires input: tool "register"',
  );
});

Deno.test("2026-07-28: onInput answers input_required and the retry carries requestState and inputResponses", async () => {
  const retries: unknown[] = [];
  await using peer = await pair(modernServer(retries), false);
  const { tools } = await importTools(peer.client, { onInput: accept });
  const text = await tools[0].invoke('{"x":1}');
  assert.equal(
    text,
    'got {"who":{"action":"accept","content":{"name":"Ada","age":30}}}',
  );
  assert.deepEqual(retries, [{
    requestState: "state-1",
    inputResponses: {
      who: { action: "accept", content: { name: "Ada", age: 30 } },
    },
    arguments: { x: 1 },
  }]);
});

Deno.test("2026-07-28: without onInput the call parks, and answer retries with the server's requestState", async () => {
  const retries: unknown[] = [];
  await using peer = await pair(modernServer(retries), false);
  const { tools } = await importTools(peer.client, { prefix: "p_" });
  const agent = new Agent(
    script(callTools({ name: "p_register", args: { x: 2 } }), say("Done.")),
    { tools },
  );
  const parked = await agent.generate("Register.");
  const input = parked.pending[0].input!;
  assert.equal(input.tool, "register");
  assert.deepEqual(Object.keys(input.requests), ["who"]);
  assert.deepEqual(retries, []);
  // Stored and read back: a resume in another process works for this era.
  const stored = JSON.parse(JSON.stringify(parked.pending[0]));
  const done = await agent.generate(parked.messages, {
    decisions: [answer(stored, { action: "decline" })],
  });
  assert.equal(done.text, "Done.");
  assert.deepEqual(retries, [{
    requestState: "state-1",
    inputResponses: { who: { action: "decline" } },
    arguments: { x: 2 },
  }]);
});

Deno.test("2026-07-28: a server that keeps asking fails the call after the round cap", async () => {
  const server = new Server(
    { name: "pest", version: "1.0.0" },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => LISTING);
  let calls = 0;
  server.setRequestHandler(LOOSE_CALL, () => {
    calls++;
    return {
      resultType: "input_required",
      inputRequests: {
        again: {
          method: "elicitation/create",
          params: { message: "Again?", requestedSchema: FORM },
        },
      },
      requestState: `s${calls}`,
    };
  });
  await using peer = await pair(server, false);
  const { tools } = await importTools(peer.client, { onInput: accept });
  await assert.rejects(
    tools[0].invoke("{}"),
    (err: Error) =>
      err.message ===
        "mcp: the server asked for input 10 times in a row; giving up",
  );
  assert.equal(calls, 11);
});

Deno.test("2025: a request during two waiting calls cannot be attributed and is answered cancel", async () => {
  await using peer = await pair(legacyServer());
  let asked = 0;
  const { tools } = await importTools(peer.client, {
    onInput: () => {
      asked++;
      return { action: "accept", content: {} };
    },
  });
  const both = await Promise.all([
    tools[0].invoke("{}"),
    tools[0].invoke("{}"),
  ]);
  assert.equal(both[0], 'got {"action":"cancel"}');
  assert.equal(asked, both.filter((t) => t.includes("accept")).length);
});

Deno.test("2025: a parked call does not hold the route: the next call's request reaches its own handler", async () => {
  await using peer = await pair(legacyServer());
  const parking = await importTools(peer.client);
  await assert.rejects(parking.tools[0].invoke("{}"), InputRequiredError);
  const answering = await importTools(peer.client, { onInput: accept });
  assert.equal(
    await answering.tools[0].invoke("{}"),
    'got {"action":"accept","content":{"name":"Ada","age":30}}',
  );
});
