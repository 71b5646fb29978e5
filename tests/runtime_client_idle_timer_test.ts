/**
 * "An idle client keeps nothing alive": the client lane's shared deadline
 * timer is cleared as soon as no request waits — its last request answered,
 * failed by the peer or cancelled by its caller, not only timed out
 * (tests/runtime_client_deadlines_test.ts) — instead of staying armed for a
 * deadline nobody waits on (60 s for `initialize`'s). On a clock that keeps
 * the timers it arms; nothing sleeps.
 */

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { Client, InMemoryTransport } from "../mod.ts";
import { shareDeadlines } from "../src/runtime/client/_protocol_lane.ts";
import type { LaneClock } from "../src/runtime/client/_deadlines.ts";

/** A clock that stands still and keeps the timers armed on it, by handle. */
class ArmedTimers implements LaneClock {
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
