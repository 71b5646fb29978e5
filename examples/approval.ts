/**
 * Approval and resume: an agent whose `refund` tool needs a person's yes.
 * The run parks the call on `result.pending`, the program shows it, and a
 * second `generate` resumes the transcript with the decision — here one run
 * approved and one denied, each printing what the model read back.
 *
 *     deno run -A examples/approval.ts
 *
 * The model is scripted (`@weft/mcp/testing`), so this runs offline; with a
 * real model (`aiSdkModel`, see examples/agent.ts) the flow is the same.
 *
 * @module
 */

import { z } from "zod";
import { Agent, approve, deny, type RunResult, tool } from "../mod.ts";
import type { ToolResultPart } from "../core.ts";
import { callTools, say, script } from "../testing.ts";

const refund = tool({
  name: "refund",
  description: "Refund an order.",
  input: z.object({ order_id: z.string(), amount: z.number() }),
  requireApproval: true,
  run: ({ order_id, amount }) => `refunded ${amount} on order ${order_id}`,
});

function agent(): Agent {
  return new Agent(
    script(
      callTools({ name: "refund", args: { order_id: "1234", amount: 20 } }),
      say("Done."),
    ),
    { tools: [refund] },
  );
}

/** What one decision led to: the parked call, then what the model read. */
export interface Decided {
  /** The parked call, as `result.pending` held it. */
  readonly parked: { readonly name: string; readonly args: string };
  /** The tool result the model read after the decision. */
  readonly read: ToolResultPart;
  /** The resumed run's final text. */
  readonly text: string;
}

/** Runs until the call parks, then resumes with `approve` or `deny`. */
export async function decide(yes: boolean): Promise<Decided> {
  const a = agent();
  const parked = await a.generate("Refund 20 on order 1234.");
  const [call] = parked.pending;
  const resumed: RunResult = await a.generate(parked.messages, {
    decisions: [yes ? approve(call.id) : deny(call.id, "over the limit")],
  });
  const read = resumed.messages.flatMap((m) =>
    m.role === "tool" ? m.content : []
  ).find((part): part is ToolResultPart =>
    part.type === "tool_result" && part.callId === call.id
  )!;
  return {
    parked: { name: call.name, args: call.args },
    read,
    text: resumed.text,
  };
}

if (import.meta.main) {
  for (const yes of [true, false]) {
    const { parked, read, text } = await decide(yes);
    console.log(`parked: ${parked.name} ${parked.args}`);
    console.log(
      `${yes ? "approved" : "denied"}: the model read "${read.content}"`,
    );
    console.log(`answer: ${text}\n`);
  }
}
