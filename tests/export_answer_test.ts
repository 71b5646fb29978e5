/**
 * An exported tool's `ctx.ask` gets only answers checked against what it
 * asked, in both eras: a 2026-07-28 retry carrying anything else is
 * refused (-32602, saying what was wrong) before the tool runs again; a
 * 2025 caller's reply makes `ask` reject with the same kind of error.
 */

import assert from "node:assert/strict";
import {
  exportTools,
  InMemoryTransport,
  type InputResponse,
  rawTool,
  Server,
} from "../mod.ts";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

const WANTS_OK = {
  type: "object",
  properties: { ok: { type: "boolean" } },
  required: ["ok"],
};

/** Asks one question; records every answer it was given. */
function confirmTool(seen: unknown[]) {
  return rawTool({
    name: "confirm",
    description: "Asks for a confirmation.",
    run: async (_args, ctx) => {
      try {
        const answer = await ctx.ask!({ message: "OK?", schema: WANTS_OK });
        seen.push(answer);
        return JSON.stringify(answer);
      } catch (err) {
        const e = err as Error & { code?: number };
        // Only the refusal is caught: parking the call must go through.
        if (typeof e.code !== "number") throw err;
        return `refused ${e.code}: ${e.message}`;
      }
    },
  });
}

type Reply = { result?: Record<string, unknown>; error?: unknown };

/** A raw JSON-RPC peer of `server`: 2026-07-28 calls, or a 2025 session answering `elicitation/create` with `reply`. */
async function peer(server: Server, reply?: (params: unknown) => unknown) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const waiting = new Map<number, (message: JSONRPCMessage) => void>();
  clientSide.onmessage = (message) => {
    const m = message as { id?: number; method?: string; params?: unknown };
    if (m.method === "elicitation/create" && m.id !== undefined) {
      clientSide.send({
        jsonrpc: "2.0",
        id: m.id,
        result: reply!(m.params),
      } as JSONRPCMessage);
      return;
    }
    if (m.id !== undefined && m.method === undefined) {
      waiting.get(m.id)?.(message);
    }
  };
  await clientSide.start();
  let next = 0;
  const request = async (
    method: string,
    params: Record<string, unknown>,
  ): Promise<Reply> => {
    const id = ++next;
    const answer = new Promise<JSONRPCMessage>((resolve) =>
      waiting.set(id, resolve)
    );
    await clientSide.send({ jsonrpc: "2.0", id, method, params });
    // Fail fast: an answer that never comes is a failure, not a hang.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer to ${method} within 10 s`)),
        10_000,
      );
    });
    try {
      return await Promise.race([answer, late]) as unknown as Reply;
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    request,
    modern: (params: Record<string, unknown>) =>
      request("tools/call", {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
        },
      }),
    async initialize(): Promise<void> {
      await request("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: { elicitation: {} },
        clientInfo: { name: "raw", version: "0" },
      });
      await clientSide.send({
        jsonrpc: "2.0",
        method: "notifications/initialized",
      });
    },
    [Symbol.asyncDispose]: () => server.close(),
  };
}

function textOf(reply: Reply): string {
  const content = reply.result?.content as { text: string }[] | undefined;
  return content?.[0]?.text ?? JSON.stringify(reply);
}

/** Garbage answers, and what the refusal says of each. */
const GARBAGE: [unknown, string][] = [
  [
    "accept",
    'expected an elicitation result object ({ action, content? }), got string "accept"',
  ],
  [
    1,
    "expected an elicitation result object ({ action, content? }), got number 1",
  ],
  [
    null,
    "expected an elicitation result object ({ action, content? }), got null",
  ],
  [
    { action: "accept", content: { ok: "yes" } },
    "content does not match the requested schema: data/ok must be boolean",
  ],
  [
    { ok: "yes" },
    'action must be "accept", "decline" or "cancel", got none',
  ],
  [
    { content: { ok: true } },
    'action must be "accept", "decline" or "cancel", got none',
  ],
  [
    { action: "maybe", content: { ok: true } },
    'action must be "accept", "decline" or "cancel", got "maybe"',
  ],
  [
    { action: "accept" },
    "content does not match the requested schema: data must have required property 'ok'",
  ],
  [
    { action: "accept", content: { ok: { deep: true } } },
    'content field "ok" must be a string, number, boolean or array of strings, got an object',
  ],
  [
    { action: "accept", content: [true] },
    "content must be an object, got an array",
  ],
];

Deno.test("2026-07-28: an answer that does not answer the form is refused with -32602 before the tool runs again; the state is not spent", async () => {
  const seen: unknown[] = [];
  const server = new Server({ name: "desk", version: "1.0.0" });
  exportTools(server, confirmTool(seen));
  await using p = await peer(server);
  const base = { name: "confirm", arguments: {} };
  const first = (await p.modern(base)).result!;
  assert.equal(first.resultType, "input_required");
  const requestState = first.requestState;

  for (const [answer, reason] of GARBAGE) {
    const reply = await p.modern({
      ...base,
      requestState,
      inputResponses: { ask_0: answer },
    });
    assert.deepEqual(reply.error, {
      code: -32602,
      message: `invalid inputResponses "ask_0": ${reason}`,
    }, JSON.stringify(answer));
  }
  assert.deepEqual(
    (await p.modern({ ...base, requestState, inputResponses: "accept" }))
      .error,
    {
      code: -32602,
      message:
        "invalid inputResponses: expected an object of answers by request key",
    },
  );
  assert.deepEqual(seen, []);

  // The tool sees only what it asked for: extra fields are dropped.
  const done = await p.modern({
    ...base,
    requestState,
    inputResponses: {
      ask_0: { action: "accept", content: { ok: true }, _sneaky: 1 },
    },
  });
  assert.equal(textOf(done), '{"action":"accept","content":{"ok":true}}');
  assert.deepEqual(seen, [{ action: "accept", content: { ok: true } }]);
});

Deno.test("2026-07-28: decline and cancel reach the tool without content", async () => {
  for (const action of ["decline", "cancel"] as const) {
    const seen: unknown[] = [];
    const server = new Server({ name: "desk", version: "1.0.0" });
    exportTools(server, confirmTool(seen));
    await using p = await peer(server);
    const base = { name: "confirm", arguments: {} };
    const requestState = (await p.modern(base)).result!.requestState;
    await p.modern({
      ...base,
      requestState,
      inputResponses: { ask_0: { action, content: { ok: "ignored" } } },
    });
    assert.deepEqual(seen, [{ action }]);
  }
});

Deno.test("2025: an elicitation result that does not answer the form makes ask reject with -32602; the tool never sees it", async () => {
  // A JSON-RPC result that is not an object is no response at all to the
  // SDK's protocol layer (it never reaches ask): objects only here.
  const objects = GARBAGE.filter(([answer]) =>
    answer !== null && typeof answer === "object"
  );
  assert.equal(objects.length, 7);
  for (const [answer, reason] of objects) {
    const seen: unknown[] = [];
    const server = new Server({ name: "desk", version: "1.0.0" });
    exportTools(server, confirmTool(seen));
    await using p = await peer(server, () => answer);
    await p.initialize();
    const reply = await p.request("tools/call", {
      name: "confirm",
      arguments: {},
    });
    assert.equal(
      textOf(reply),
      `refused -32602: invalid elicitation result: ${reason}`,
      JSON.stringify(answer),
    );
    assert.deepEqual(seen, []);
  }
});

Deno.test("2025: a valid elicitation result reaches the tool, checked and trimmed", async () => {
  const seen: InputResponse[] = [];
  const server = new Server({ name: "desk", version: "1.0.0" });
  exportTools(server, confirmTool(seen));
  await using p = await peer(
    server,
    () => ({ action: "accept", content: { ok: false }, _meta: {} }),
  );
  await p.initialize();
  const reply = await p.request("tools/call", {
    name: "confirm",
    arguments: {},
  });
  assert.equal(textOf(reply), '{"action":"accept","content":{"ok":false}}');
  assert.deepEqual(seen, [{ action: "accept", content: { ok: false } }]);
});
