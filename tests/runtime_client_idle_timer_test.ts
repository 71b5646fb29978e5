/**
 * "An idle client keeps nothing alive": the client lane's shared deadline
 * timer is cleared as soon as no request waits — its last request answered,
 * failed by the peer or cancelled by its caller, not only timed out
 * (tests/runtime_client_deadlines_test.ts) — instead of staying armed for a
 * deadline nobody waits on (60 s for `initialize`'s). On a clock that keeps
 * the timers it arms, and over a real connection (`connectHttp` to a
 * listener on 127.0.0.1, the process's own timers watched); nothing sleeps.
 */

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { Client, InMemoryTransport } from "../mod.ts";
import { connectHttp } from "../src/runtime/client/connect_http.ts";
import { shareDeadlines } from "../src/runtime/client/_protocol_lane.ts";
import type { Clock } from "../src/runtime/clock.ts";
import { listen } from "./fixtures/http_test_server.ts";

/** A clock that stands still and keeps the timers armed on it, by handle. */
class ArmedTimers implements Clock {
  readonly armed = new Map<number, number>();
  #next = 1;

  now(): number {
    return 1_000;
  }
  setTimeout(_callback: () => void, delay: number): number {
    const id = this.#next++;
    this.armed.set(id, this.now() + delay);
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.armed.delete(handle as number);
  }

  /** The timers armed now, each named with when it falls due. */
  names(): string[] {
    return [...this.armed.values()].map((due) =>
      `the shared deadline timer, due in ${due - this.now()} ms`
    );
  }
}

/**
 * A peer that answers `initialize` at once and holds every other request
 * until the test says: `answer(id)` with a result, `fail(id)` with an error.
 */
async function heldPeer(side: InMemoryTransport): Promise<{
  held: (string | number)[];
  answer(id: string | number): Promise<void>;
  fail(id: string | number): Promise<void>;
}> {
  const held: (string | number)[] = [];
  side.onmessage = (message: JSONRPCMessage) => {
    if (!("method" in message) || !("id" in message)) return;
    if (message.method !== "initialize") return void held.push(message.id);
    void side.send({
      jsonrpc: "2.0",
      id: message.id,
      result: {
        protocolVersion: "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "peer", version: "1" },
      },
    });
  };
  await side.start();
  return {
    held,
    answer: (id) => side.send({ jsonrpc: "2.0", id, result: { content: [] } }),
    fail: (id) =>
      side.send({
        jsonrpc: "2.0",
        id,
        error: { code: -32000, message: "no" },
      }),
  };
}

Deno.test("an idle client keeps nothing alive: the shared deadline timer is cleared once the last request is answered, fails or is cancelled", async () => {
  const clock = new ArmedTimers();
  const [mine, theirs] = InMemoryTransport.createLinkedPair();
  const peer = await heldPeer(theirs);
  const client = new Client({ name: "c", version: "1" });
  shareDeadlines(client, clock);
  try {
    await client.connect(mine);
    assertNoTimer(clock, "initialize answered");

    // Answered (request ids: 0 was initialize).
    const answered = client.callTool({ name: "a", arguments: {} }, undefined, {
      timeout: 50,
    });
    assert.deepEqual(clock.names(), [
      "the shared deadline timer, due in 50 ms",
    ]);
    await peer.answer(1);
    await answered;
    assertNoTimer(clock, "the call answered");

    // Failed by the peer.
    const failed = client.callTool({ name: "b", arguments: {} }, undefined, {
      timeout: 50,
    }).then(() => "answered", (error: Error) => error.message);
    await peer.fail(2);
    assert.match(await failed, /no$/);
    assertNoTimer(clock, "the call failed");

    // Cancelled by its caller.
    const controller = new AbortController();
    const cancelled = client.callTool(
      { name: "c", arguments: {} },
      undefined,
      { timeout: 50, signal: controller.signal },
    ).then(() => "answered", (error: Error) => error.message);
    controller.abort();
    assert.match(await cancelled, /AbortError: The signal has been aborted/);
    assertNoTimer(clock, "the call cancelled");

    // Two in flight: the timer stays while one waits, then goes.
    const first = client.callTool({ name: "d", arguments: {} }, undefined, {
      timeout: 50,
    });
    const second = client.callTool({ name: "e", arguments: {} }, undefined, {
      timeout: 80,
    });
    await peer.answer(5);
    await second;
    assert.deepEqual(
      clock.names(),
      ["the shared deadline timer, due in 50 ms"],
      "the first call still waits",
    );
    await peer.answer(4);
    await first;
    assertNoTimer(clock, "both calls answered");
    assert.deepEqual(peer.held, [1, 2, 3, 4, 5]);
  } finally {
    await client.close();
  }
});

/** Asserts that `clock` has no timer armed: the lane's shared deadline timer was cleared. */
function assertNoTimer(clock: ArmedTimers, after: string): void {
  assert.deepEqual(
    clock.names(),
    [],
    `${after}, no request waits: the shared deadline timer is cleared`,
  );
}

/**
 * Watches the process's timers until disposed: each one armed and not yet
 * run or cleared, named by where under src/runtime/client it was armed
 * (those armed elsewhere — the listener's own — are left out).
 */
function watchClientTimers(): { live(): string[] } & Disposable {
  const live = new Map<unknown, string>();
  const realSet = globalThis.setTimeout;
  const realClear = globalThis.clearTimeout;
  globalThis.setTimeout = ((callback: () => void, delay?: number) => {
    // Its first two frames under src/runtime/client: the clock, its caller.
    const frames = (new Error().stack ?? "").split("\n")
      .filter((line) => line.includes("/src/runtime/client/"))
      .slice(0, 2).map((line) => line.trim().replace(/^at /, ""));
    const site = frames.length === 0 ? undefined : frames.join(" ← ");
    const id = realSet(() => {
      live.delete(id);
      callback();
    }, delay);
    if (site !== undefined) live.set(id, `${site} (${delay} ms)`);
    return id;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((id?: number) => {
    live.delete(id);
    realClear(id);
  }) as typeof clearTimeout;
  return {
    live: () => [...live.values()],
    [Symbol.dispose]() {
      globalThis.setTimeout = realSet;
      globalThis.clearTimeout = realClear;
    },
  };
}

Deno.test("an idle client keeps nothing alive over a real connection: connectHttp's client, its calls answered or cancelled, has no timer armed", async () => {
  using timers = watchClientTimers();
  const listening = listen();
  try {
    await using client = await connectHttp(listening.url);
    assert.deepEqual(timers.live(), [], "connected: no request waits");
    const result = await client.callTool({ name: "echo", arguments: {} });
    assert.deepEqual(result.structuredContent, {});
    assert.deepEqual(timers.live(), [], "the call answered: no request waits");

    // While a call waits, its deadline timer is armed (the watch sees it);
    // cancelled, the call leaves none.
    const controller = new AbortController();
    const waiting = client.callTool(
      { name: "wait", arguments: { ms: 60_000 } },
      undefined,
      { signal: controller.signal },
    ).then(() => "answered", (error: Error) => error.message);
    await listening.started;
    assert.equal(timers.live().length, 1, "a call waits: one deadline timer");
    assert.match(timers.live()[0], /_protocol_lane\.ts/);
    controller.abort();
    assert.match(await waiting, /signal has been aborted/);
    assert.deepEqual(timers.live(), [], "the call cancelled: no request waits");
    await listening.aborted; // the server's tool stopped too
  } finally {
    await listening.close();
  }
});
