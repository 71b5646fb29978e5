/**
 * The client lane's shared deadline timer on a fake clock (no sleeps): the
 * deadlines found overdue together — a loop blocked past several of them —
 * fire earliest first, as the SDK's separate timers would; a call's
 * progress moves its deadline on (`resetTimeoutOnProgress`) and the total
 * timeout still holds; an idle lane keeps no timer armed.
 */

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { Client, InMemoryTransport } from "../mod.ts";
import { shareDeadlines } from "../src/runtime/client/_protocol_lane.ts";
import { DeadlineHeap } from "../src/runtime/client/_deadlines.ts";
import type { Clock } from "../src/runtime/clock.ts";

/** A clock whose time moves only when told; its timers fire in due order. */
class FakeClock implements Clock {
  #now = 1_000;
  #next = 1;
  readonly timers = new Map<number, { due: number; run: () => void }>();

  now(): number {
    return this.#now;
  }
  setTimeout(callback: () => void, delay: number): number {
    const id = this.#next++;
    this.timers.set(id, { due: this.#now + delay, run: callback });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  /** Moves time `ms` on at once, then runs every timer now due. */
  async advance(ms: number): Promise<void> {
    this.#now += ms;
    for (;;) {
      let first: [number, { due: number; run: () => void }] | undefined;
      for (const entry of this.timers) {
        if (
          entry[1].due <= this.#now && (!first || entry[1].due < first[1].due)
        ) {
          first = entry;
        }
      }
      if (!first) break;
      this.timers.delete(first[0]);
      first[1].run();
    }
    // Let the rejections and their handlers run.
    for (let i = 0; i < 10; i++) await Promise.resolve();
  }
}

/** A peer that answers `initialize` only; `progress(id)` reports progress on a call. */
async function silentPeer(side: InMemoryTransport): Promise<{
  cancelled: unknown[];
  progress(token: unknown): Promise<void>;
}> {
  const cancelled: unknown[] = [];
  side.onmessage = (message: JSONRPCMessage) => {
    if (!("method" in message)) return;
    if (message.method === "notifications/cancelled") {
      cancelled.push((message.params as { requestId: unknown }).requestId);
    }
    if (message.method !== "initialize" || !("id" in message)) return;
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
    cancelled,
    progress: (token) =>
      side.send({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: token as string, progress: 1 },
      }),
  };
}

async function laneOnFakeClock(): Promise<{
  client: Client;
  clock: FakeClock;
  peer: Awaited<ReturnType<typeof silentPeer>>;
}> {
  const clock = new FakeClock();
  const [mine, theirs] = InMemoryTransport.createLinkedPair();
  const peer = await silentPeer(theirs);
  const client = new Client({ name: "c", version: "1" });
  shareDeadlines(client, clock);
  await client.connect(mine);
  return { client, clock, peer };
}

Deno.test("deadlines overdue together fire earliest first (60, 20, 40 → 20, 40, 60)", async () => {
  const { client, clock, peer } = await laneOnFakeClock();
  try {
    const order: number[] = [];
    const calls = [60, 20, 40].map((timeout) =>
      client.callTool({ name: "silent", arguments: {} }, undefined, { timeout })
        .catch((error: Error) => {
          order.push(timeout);
          return error;
        })
    );
    // One timer armed for all three, at the earliest deadline.
    assert.equal(clock.timers.size, 1);
    assert.equal([...clock.timers.values()][0].due, clock.now() + 20);
    // The loop was blocked past every deadline: all three are overdue at once.
    await clock.advance(100);
    const errors = await Promise.all(calls);
    assert.deepEqual(order, [20, 40, 60]);
    for (const [i, timeout] of [60, 20, 40].entries()) {
      assert.match(
        `${errors[i]} ${
          JSON.stringify((errors[i] as { data?: unknown }).data)
        }`,
        new RegExp(`Request timed out.*"timeout":${timeout}`),
      );
    }
    // The peer is told of each, in the same order.
    assert.equal(peer.cancelled.length, 3);
    assert.equal(clock.timers.size, 0, "an idle lane keeps no timer");
  } finally {
    await client.close();
  }
});

Deno.test("each deadline fires on its own when time passes one at a time", async () => {
  const { client, clock } = await laneOnFakeClock();
  try {
    const order: number[] = [];
    const calls = [60, 20, 40].map((timeout) =>
      client.callTool({ name: "silent", arguments: {} }, undefined, { timeout })
        .catch(() => order.push(timeout))
    );
    await clock.advance(19);
    assert.deepEqual(order, []);
    await clock.advance(1);
    assert.deepEqual(order, [20]);
    await clock.advance(20);
    assert.deepEqual(order, [20, 40]);
    await clock.advance(19);
    assert.deepEqual(order, [20, 40]);
    await clock.advance(1);
    assert.deepEqual(order, [20, 40, 60]);
    await Promise.all(calls);
    assert.equal(clock.timers.size, 0);
  } finally {
    await client.close();
  }
});

Deno.test("progress moves a call's deadline on; the total timeout still holds", async () => {
  const { client, clock, peer } = await laneOnFakeClock();
  try {
    let settled = "";
    const call = client.callTool({ name: "slow", arguments: {} }, undefined, {
      timeout: 50,
      resetTimeoutOnProgress: true,
      maxTotalTimeout: 200,
      onprogress: () => {},
    }).then(() => "ok", (error: Error) => error.message);
    void call.then((text) => settled = text);
    // The call's progress token is its request id (0 was initialize).
    await clock.advance(40);
    await peer.progress(1);
    await clock.advance(40); // 80 ms since the call, 40 since its progress
    assert.equal(settled, "", "progress at 40 ms moved the deadline to 90");
    await peer.progress(1);
    await clock.advance(45); // 125: due at 130 now
    assert.equal(settled, "");
    await clock.advance(5);
    assert.match(settled, /Request timed out/);

    // Progress after the total timeout fails the call at once.
    let total = "";
    void client.callTool({ name: "slow", arguments: {} }, undefined, {
      timeout: 50,
      resetTimeoutOnProgress: true,
      maxTotalTimeout: 60,
      onprogress: () => {},
    }).catch((error: Error) => total = error.message);
    await clock.advance(45);
    await peer.progress(2);
    await clock.advance(30); // 75: past the 60 ms total, due at 95 by progress
    await peer.progress(2);
    await clock.advance(0);
    assert.match(total, /Maximum total timeout exceeded/);
    assert.equal(clock.timers.size, 0);
  } finally {
    await client.close();
  }
});

Deno.test("the deadline heap pops by due time, ties in push order, and drops stale entries in bulk", () => {
  const heap = new DeadlineHeap<string>();
  const pushed = [
    ["c", 30],
    ["a", 10],
    ["d", 30],
    ["b", 20],
    ["e", 5],
  ] as const;
  for (const [key, due] of pushed) heap.push(key, due);
  heap.retain((entry) => entry.key !== "e");
  const out: string[] = [];
  for (let top = heap.pop(); top; top = heap.pop()) out.push(top.key);
  assert.deepEqual(out, ["a", "b", "c", "d"]);
  assert.equal(heap.size, 0);
});

Deno.test("progress leaves the deadline of a lane call without resetTimeoutOnProgress where it was", async () => {
  const { client, clock, peer } = await laneOnFakeClock();
  try {
    for (const reset of [undefined, false]) {
      let settled = "";
      void client.callTool({ name: "slow", arguments: {} }, undefined, {
        timeout: 50,
        ...(reset === undefined ? {} : { resetTimeoutOnProgress: reset }),
        onprogress: () => {},
      }).then(() => settled = "ok", (error: Error) => settled = error.message);
      // Request ids: 0 was initialize, then 1 and 2.
      const token = reset === undefined ? 1 : 2;
      await clock.advance(40);
      await peer.progress(token);
      await clock.advance(9); // 49: still due at 50
      assert.equal(settled, "", `reset ${reset}: not due yet`);
      await clock.advance(1); // 50: progress at 40 moved nothing
      assert.match(settled, /Request timed out/, `reset ${reset}`);
    }
    assert.equal(clock.timers.size, 0);
  } finally {
    await client.close();
  }
});
