import assert from "node:assert/strict";
import { Agent, type RunEvent } from "../mod.ts";
import type { ToolResultPart } from "../core.ts";
import { rawTool } from "../src/core/tool.ts";
import { callTools, say, script } from "../testing.ts";

const STEPS = 50;
const CALLS = 200;

/** A small deterministic PRNG (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

Deno.test("200 parallel calls per step over 50 steps: results in call order, no leaked timers or listeners", async () => {
  const next = random(7);
  let inFlight = 0;
  let peak = 0;
  const work = rawTool({
    name: "work",
    description: "Waits a little, then echoes its index.",
    timeout: 5_000, // every call arms a timer the loop must clear
    run: (args, ctx) =>
      new Promise<string>((resolve, reject) => {
        const { i } = JSON.parse(args) as { i: number };
        peak = Math.max(peak, ++inFlight);
        const timer = setTimeout(() => {
          ctx.signal.removeEventListener("abort", onAbort);
          inFlight--;
          if (i % 50 === 49) reject(new Error(`failed ${i}`));
          else resolve(`done ${i}`);
        }, Math.floor(next() * 4));
        const onAbort = (): void => {
          clearTimeout(timer);
          reject(ctx.signal.reason);
        };
        ctx.signal.addEventListener("abort", onAbort, { once: true });
      }),
  });
  const turns = Array.from(
    { length: STEPS },
    (_, s) =>
      callTools(
        ...Array.from(
          { length: CALLS },
          (_, i) => ({ name: "work", args: { i }, id: `s${s}_${i}` }),
        ),
      ),
  );
  const seqs: number[] = [];
  let finishes = 0;
  const agent = new Agent(script(...turns, say("all done")), {
    tools: [work],
    parallelism: CALLS,
    maxSteps: STEPS + 1,
    onEvent: (e: RunEvent) => {
      if (e.type === "tool_start" || e.type === "tool_finish") seqs.push(e.seq);
      if (e.type === "tool_finish") finishes++;
    },
  });
  // Count the listeners the loop leaves on the run's signal.
  const signal = new AbortController().signal;
  let listeners = 0;
  let peakListeners = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = (...args: Parameters<typeof add>): void => {
    peakListeners = Math.max(peakListeners, ++listeners);
    add(...args);
  };
  signal.removeEventListener = (...args: Parameters<typeof remove>): void => {
    listeners--;
    remove(...args);
  };
  const result = await agent.generate("go", { signal });
  assert.equal(listeners, 0, "every listener on the run's signal was removed");
  assert.ok(
    peakListeners >= CALLS,
    `the loop listened per call (peak ${peakListeners})`,
  );
  assert.equal(result.text, "all done");
  assert.equal(result.steps.length, STEPS + 1);
  for (let s = 0; s < STEPS; s++) {
    const parts = result.messages[2 + 2 * s].content as ToolResultPart[];
    assert.equal(parts.length, CALLS);
    for (let i = 0; i < CALLS; i++) {
      assert.equal(parts[i].callId, `s${s}_${i}`);
      assert.equal(
        parts[i].content,
        i % 50 === 49 ? `failed ${i}` : `done ${i}`,
      );
      assert.equal(parts[i].isError, i % 50 === 49);
    }
  }
  assert.equal(finishes, STEPS * CALLS);
  assert.deepEqual(
    seqs,
    Array.from({ length: 2 * STEPS * CALLS }, (_, k) => k + 1),
  );
  assert.equal(inFlight, 0);
  assert.ok(peak > 4, `calls ran in parallel (peak ${peak})`);
});
