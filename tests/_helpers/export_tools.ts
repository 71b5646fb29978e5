/**
 * The tools the export tests share: the seed's `lookup_order` (typed, with
 * an output schema) and `echo` (typed, string output), a raw `mirror` that
 * answers with the argument text it received, and `pairWith`, a connected
 * pair with those tools exported.
 */

import { z } from "zod";
import { rawTool, tool, type ToolDef } from "../../src/core/tool.ts";
import { exportTools } from "../../src/bridge/export.ts";
import { connected, type Pair } from "./export_pair.ts";

/** The seed's typed tool with an object output schema. */
export const lookupOrder: ToolDef = tool({
  name: "lookup_order",
  description: "Look up an order by ID.",
  input: z.object({ order_id: z.string().describe("the order to look up") }),
  output: z.object({ id: z.string(), status: z.string() }),
  run: ({ order_id }) => ({ id: order_id, status: "shipped" }),
});

/** The seed's typed tool with a string output. */
export const echo: ToolDef = tool({
  name: "echo",
  description: "Echo the text.",
  input: z.object({ text: z.string() }),
  run: ({ text }) => "heard: " + text,
});

/** A raw tool that answers with the argument text it received. */
export function mirror(name = "mirror"): ToolDef {
  return rawTool({
    name,
    description: "Mirror the arguments.",
    run: (args) => args,
  });
}

/** A server with `tools` exported, connected to the SDK's real Client. */
export function pairWith(...tools: ToolDef[]): Promise<Pair> {
  return connected((server) => exportTools(server, ...tools));
}
