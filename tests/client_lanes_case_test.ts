/**
 * One case table for the client side: every case — a plain result, an
 * error answer, an odd result the SDK's check refuses, a listing, progress,
 * an elicitation answered, a timeout, the total timeout under progress, an
 * abort, a close with a call in flight — gives the outcome the table pins
 * (the result's JSON, or the error's class, code, message and data) on
 * every lane: the SDK's own `Client`, `McpClient` (the client lane), and
 * the client lane on a fake clock, where no timer of the process runs.
 * The SDK's `Client` takes no clock: its timer cases run on short real
 * timers, bounded.
 */

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ElicitRequestSchema,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import { Client, InMemoryTransport, McpClient } from "../mod.ts";
import { shareDeadlines } from "../src/runtime/client/_protocol_lane.ts";
import type { Clock } from "../src/runtime/clock.ts";

const DEADLINE = 5_000;

/** A clock whose time moves only when told; its timers run in due order. */
class FakeClock implements Clock {
  #now = 1_000;
  #next = 1;
  readonly #timers = new Map<number, { due: number; run: () => void }>();

  now(): number {
    return this.#now;
  }
  setTimeout(callback: () => void, delay: number): number {
    const id = this.#next++;
    this.#timers.set(id, { due: this.#now + delay, run: callback });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }
  /** Moves time `ms` on, then runs every timer due, earliest first. */
  advance(ms: number): void {
    this.#now += ms;
    for (;;) {
      let first: [number, { due: number; run: () => void }] | undefined;
      for (const entry of this.#timers) {
        if (entry[1].due > this.#now) continue;
        if (first === undefined || entry[1].due < first[1].due) first = entry;
      }
      if (first === undefined) return;
      this.#timers.delete(first[0]);
      first[1].run();
    }
  }
}

type LaneName = "sdk" | "lane" | "lane, fake clock";
const LANES: readonly LaneName[] = ["sdk", "lane", "lane, fake clock"];

/** A connected lane, with how time passes on it and what its peer is sent. */
interface Lane {
  readonly client: Client;
  /** Lets `ms` pass: the fake clock moves; real timers are waited for. */
  pass(ms: number): Promise<void>;
  /** Sends a progress notification for the call the peer holds. */
  progress(): Promise<void>;
  /** The peer got a `tools/call` (a latch, opened per call). */
  called(): Promise<void>;
  readonly cancelled: unknown[];
}

/** A peer answering `tools/call {name}` by `name`; `hold` never answers. */
async function peer(side: InMemoryTransport) {
  const cancelled: unknown[] = [];
  let token: unknown;
  let onCall: (() => void) | undefined;
  const reply = (message: JSONRPCMessage) => void side.send(message);
  side.onmessage = (message) => {
    if (!("method" in message)) return;
    if (message.method === "notifications/cancelled") {
      cancelled.push((message.params as { requestId: unknown }).requestId);
    }
    if (!("id" in message)) return;
    const { id, method } = message;
    const params = (message.params ?? {}) as Record<string, unknown>;
    if (method === "initialize") {
      return reply({
        jsonrpc: "2.0",
        id,
        result: {
          protocolVersion: "2025-06-18",
          capabilities: { tools: {} },
          serverInfo: { name: "peer", version: "1" },
        },
      });
    }
    if (method === "tools/list") {
      return reply({
        jsonrpc: "2.0",
        id,
        result: { tools: [{ name: "t", inputSchema: { type: "object" } }] },
      });
    }
    token = (params._meta as { progressToken?: unknown } | undefined)
      ?.progressToken;
    onCall?.();
    switch (params.name) {
      case "hold":
        return;
      case "fail":
        return reply({
          jsonrpc: "2.0",
          id,
          error: { code: -32602, message: "no such tool", data: { n: 1 } },
        });
      case "odd":
        return reply({
          jsonrpc: "2.0",
          id,
          result: { content: [{ type: "text", text: 7 }] } as never,
        });
      case "steps":
        void side.send({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: token as string, progress: 1, total: 2 },
        });
        // The result a turn later: the SDK hands notifications over a
        // microtask after they arrive, after a response sent with them.
        setTimeout(() =>
          reply({
            jsonrpc: "2.0",
            id,
            result: { content: [{ type: "text", text: "walked" }] },
          }), 0);
        return;
      case "ask": {
        void side.send({
          jsonrpc: "2.0",
          id: "q1",
          method: "elicitation/create",
          params: {
            message: "Which?",
            requestedSchema: { type: "object", properties: {} },
          },
        });
        const before = side.onmessage!;
        side.onmessage = (answer) => {
          side.onmessage = before;
          reply({
            jsonrpc: "2.0",
            id,
            result: {
              content: [{ type: "text", text: JSON.stringify(answer) }],
            },
          });
        };
        return;
      }
    }
    reply({
      jsonrpc: "2.0",
      id,
      result: { content: [{ type: "text", text: "hi" }] },
    });
  };
  await side.start();
  return {
    cancelled,
    progress: () =>
      side.send({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: token as string, progress: 1 },
      }),
    called: () => new Promise<void>((r) => onCall = r),
  };
}

async function open(name: LaneName): Promise<Lane> {
  const [mine, theirs] = InMemoryTransport.createLinkedPair();
  const p = await peer(theirs);
  const info = { name: "c", version: "1" };
  const options = { capabilities: { elicitation: {} } };
  const link = {
    lost: () => undefined,
    close: (c: () => Promise<void>) => c(),
  };
  const client = name === "sdk"
    ? new Client(info, options)
    : new McpClient(info, options, link);
  const clock = name === "lane, fake clock" ? new FakeClock() : undefined;
  if (clock !== undefined) shareDeadlines(client, clock);
  client.setRequestHandler(
    ElicitRequestSchema,
    () => ({ action: "accept", content: { pick: "a" } }),
  );
  await client.connect(mine);
  return {
    client,
    cancelled: p.cancelled,
    progress: p.progress,
    called: p.called,
    pass: async (ms) => {
      if (clock !== undefined) return clock.advance(ms);
      // The SDK's own timers: real time, as short as the case allows.
      await new Promise((r) => setTimeout(r, ms + 5));
    },
  };
}

/** An outcome as comparable text: the result's JSON, or the error's kind and fields. */
async function outcome(run: Promise<unknown>): Promise<string> {
  try {
    return "ok " + JSON.stringify(await run);
  } catch (error) {
    const e = error as Error & { code?: unknown; data?: unknown };
    return `error ${e.constructor.name} ${String(e.code)} ${e.message} ${
      JSON.stringify(e.data)
    }`;
  }
}

interface ClientCase {
  readonly label: string;
  /** Runs the case on a lane; returns its outcome. */
  run(lane: Lane): Promise<string>;
  /** The outcome every lane gives. */
  readonly expect: string;
}

const call = (lane: Lane, name: string, options?: Record<string, unknown>) =>
  lane.client.callTool({ name, arguments: {} }, undefined, options);

const CASES: readonly ClientCase[] = [
  {
    label: "a plain result",
    run: (lane) => outcome(call(lane, "text")),
    expect: 'ok {"content":[{"type":"text","text":"hi"}]}',
  },
  {
    label: "an error answer",
    run: (lane) => outcome(call(lane, "fail")),
    expect: 'error McpError -32602 MCP error -32602: no such tool {"n":1}',
  },
  {
    label: "a result the SDK's check refuses",
    run: async (lane) =>
      (await outcome(call(lane, "odd"))).replace(/\s+/g, " ").slice(0, 72),
    expect:
      'error $ZodError undefined [ { "code": "invalid_union", "errors": [ [ { "',
  },
  {
    label: "a listing",
    run: (lane) => outcome(lane.client.listTools()),
    expect: 'ok {"tools":[{"name":"t","inputSchema":{"type":"object"}}]}',
  },
  {
    label: "progress, then the result",
    run: async (lane) => {
      const heard: unknown[] = [];
      const result = await outcome(
        call(lane, "steps", { onprogress: (p: unknown) => heard.push(p) }),
      );
      return `${JSON.stringify(heard)} ${result}`;
    },
    expect:
      '[{"progress":1,"total":2}] ok {"content":[{"type":"text","text":"walked"}]}',
  },
  {
    label: "an elicitation, answered",
    run: (lane) => outcome(call(lane, "ask")),
    expect:
      'ok {"content":[{"type":"text","text":"{\\"result\\":{\\"action\\":\\"accept\\",\\"content\\":{\\"pick\\":\\"a\\"}},\\"jsonrpc\\":\\"2.0\\",\\"id\\":\\"q1\\"}"}]}',
  },
  {
    label: "a timeout; the peer is told",
    run: async (lane) => {
      const called = lane.called();
      const pending = outcome(call(lane, "hold", { timeout: 30 }));
      await called;
      await lane.pass(30);
      return `${await pending} ${JSON.stringify(lane.cancelled)}`;
    },
    expect:
      'error McpError -32001 MCP error -32001: Request timed out {"timeout":30} [1]',
  },
  {
    label: "progress after the total timeout",
    run: async (lane) => {
      const called = lane.called();
      const pending = outcome(call(lane, "hold", {
        timeout: 1_000,
        maxTotalTimeout: 20,
        resetTimeoutOnProgress: true,
        onprogress: () => {},
      }));
      await called;
      await lane.pass(20);
      await lane.progress();
      return (await pending).replace(/"totalElapsed":\d+/, '"totalElapsed":_');
    },
    expect:
      'error McpError -32001 MCP error -32001: Maximum total timeout exceeded {"maxTotalTimeout":20,"totalElapsed":_}',
  },
  {
    label: "progress resets the deadline",
    run: async (lane) => {
      const called = lane.called();
      let settled = false;
      const pending = outcome(call(lane, "hold", {
        timeout: 40,
        resetTimeoutOnProgress: true,
        onprogress: () => {},
      })).finally(() => settled = true);
      await called;
      await lane.pass(25);
      await lane.progress();
      await lane.pass(25);
      const early = settled;
      await lane.pass(20);
      return `${early} ${await pending}`;
    },
    expect:
      'false error McpError -32001 MCP error -32001: Request timed out {"timeout":40}',
  },
];

function bounded<T>(promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("hung")), DEADLINE);
    }),
  ]).finally(() => clearTimeout(timer));
}

for (const name of LANES) {
  Deno.test(`client lanes, ${name}: every case gets the pinned outcome`, async () => {
    for (const c of CASES) {
      const lane = await open(name);
      try {
        assert.equal(await bounded(c.run(lane)), c.expect, c.label);
      } finally {
        await lane.client.close();
      }
    }
  });

  Deno.test(`client lanes, ${name}: a close with a call in flight fails it as the SDK does`, async () => {
    const lane = await open(name);
    const called = lane.called();
    const pending = outcome(call(lane, "hold"));
    await called;
    await lane.client.close();
    assert.equal(
      await bounded(pending),
      "error McpError -32000 MCP error -32000: Connection closed undefined",
    );
  });
}
