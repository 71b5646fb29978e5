/**
 * Code mode against direct calls, side by side.
 *
 * 1. What is sent to the model over a 20-call task (look up 20 orders, sum
 *    their totals): every request's JSON (system, messages, tool
 *    definitions) summed, in bytes and in tokens estimated as bytes / 4.
 *    Direct: one model step per call, each result read by the model.
 *    Code mode: one step writes the program, one reads its result.
 * 2. Per-program latency of the subprocess executor, a cold child per
 *    program against one from the warm pool (alternating rounds, medians).
 *
 * Run: `deno run -A bench/code_mode_bench.ts`
 *
 * @module
 */

import { Agent, tool } from "../mod.ts";
import { callTools, say, script, type Turn } from "../testing.ts";
import { subprocessExecutor } from "../sandbox.ts";
import { z } from "zod";
import { median } from "./_medians.ts";

const N = 20;

function orderTool() {
  return tool({
    name: "get_order",
    description: "Looks up one order by id: its customer, lines and total.",
    input: z.object({ id: z.number().int() }),
    output: z.object({
      id: z.number(),
      customer: z.string(),
      lines: z.array(z.object({ sku: z.string(), qty: z.number() })),
      total: z.number(),
    }),
    run: ({ id }) => ({
      id,
      customer: `customer-${id} with a long-ish display name`,
      lines: Array.from(
        { length: 6 },
        (_, i) => ({ sku: `SKU-${id}-${i}`, qty: i + 1 }),
      ),
      total: id * 10,
    }),
  });
}

function requestBytes(agent: Agent): number {
  const model = agent.model as ReturnType<typeof script>;
  return model.requests().reduce((sum, r) => sum + JSON.stringify(r).length, 0);
}

async function direct(): Promise<number> {
  const turns: Turn[] = [];
  for (let i = 1; i <= N; i++) {
    turns.push(callTools({ name: "get_order", args: { id: i } }));
  }
  turns.push(say("The total is 2100."));
  const agent = new Agent(script(...turns), {
    tools: [orderTool()],
    maxSteps: N + 2,
  });
  await agent.generate("Sum the totals of orders 1 to 20.");
  return requestBytes(agent);
}

async function codeMode(): Promise<number> {
  await using executor = subprocessExecutor();
  const code = `async () => {
  let total = 0;
  for (let id = 1; id <= 20; id++) total += (await codemode.get_order({ id })).total;
  return { total };
}`;
  const agent = new Agent(
    script(
      callTools({ name: "code", args: { code } }),
      say("The total is 2100."),
    ),
    { tools: [orderTool()], codeMode: { executor } },
  );
  const result = await agent.generate("Sum the totals of orders 1 to 20.");
  if (result.steps[0].results[0].content !== '{"total":2100}') {
    throw new Error("wrong sum");
  }
  return requestBytes(agent);
}

const d = await direct();
const c = await codeMode();
console.log(
  `20-call task, sent to the model: direct ${d} B (~${
    Math.round(d / 4)
  } tokens), code mode ${c} B (~${Math.round(c / 4)} tokens): ${
    (c / d * 100).toFixed(1)
  } %`,
);

await using cold = subprocessExecutor();
await using warm = subprocessExecutor({ pool: 2 });
const program = "async () => (await codemode.add({ a: 1 })) as number";
const fns = {
  add: (input: unknown) => Promise.resolve((input as { a: number }).a + 1),
};
const ROUNDS = 10;
const coldMs: number[] = [];
const warmMs: number[] = [];
const time = async (run: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await run();
  return performance.now() - started;
};
for (let i = 0; i < ROUNDS; i++) {
  // Alternating which side goes first; the pool refills between rounds, as
  // it would during a model turn.
  const sides = i % 2 === 0 ? ["cold", "warm"] : ["warm", "cold"];
  for (const side of sides) {
    if (side === "cold") {
      coldMs.push(await time(() => cold.execute(program, fns)));
    } else {
      await new Promise((r) => setTimeout(r, 500));
      warmMs.push(await time(() => warm.execute(program, fns)));
    }
  }
}
console.log(
  `program latency, median of ${ROUNDS} alternating rounds: cold child ${
    median(coldMs).toFixed(0)
  } ms, warm pool ${median(warmMs).toFixed(0)} ms`,
);
