/**
 * Code mode: the model writes one program over the agent's tools; a
 * permissionless Deno child runs it, and only its result reaches the model.
 * A scripted model stands in for a real one. Run with
 * `deno run -A examples/code_mode.ts`.
 *
 * @module
 */

import { Agent, tool } from "@weft/mcp";
import { subprocessExecutor } from "@weft/mcp/sandbox";
import { callTools, say, script } from "@weft/mcp/testing";
import { z } from "zod";

const PRICES: Record<string, number> = { apple: 3, pear: 4, plum: 2 };

/** Runs the demo; resolves to what the program returned to the model. */
export async function codeModeDemo(): Promise<string> {
  const price = tool({
    name: "price",
    description: "The price of one fruit, in cents.",
    input: z.object({ fruit: z.string() }),
    output: z.object({ cents: z.number() }),
    run: ({ fruit }) => ({ cents: PRICES[fruit] ?? 0 }),
  });
  // Twenty lookups, one model round trip: the program sums them.
  const program = `async () => {
    const fruits = ["apple", "pear", "plum", "apple"];
    let total = 0;
    for (const fruit of fruits) total += (await codemode.price({ fruit })).cents;
    return { total };
  }`;
  await using executor = subprocessExecutor({ timeout: 10_000, memoryMb: 64 });
  const agent = new Agent(
    script(
      callTools({ name: "code", args: { code: program } }),
      say("12 cents"),
    ),
    { tools: [price], codeMode: { executor, typeCheck: false } },
  );
  const result = await agent.generate("What do these fruits cost?");
  return result.steps[0].results[0].content;
}

if (import.meta.main) console.log(await codeModeDemo());
