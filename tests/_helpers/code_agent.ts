/**
 * An agent in code mode over three file tools whose every execution is
 * appended to a log file (the "server" side, shared between processes):
 * `read_file`, `stat` and the approval-gated `write_file`.
 */

import { Agent, tool } from "../../mod.ts";
import type { Executor } from "../../mod.ts";
import { script, type Turn } from "../../testing.ts";
import { z } from "zod";

/** The program the model writes: two calls, then the gated write. */
export const PROGRAM = `async () => {
  const text = await codemode.read_file({ path: "a.txt" });
  const info = await codemode.stat({ path: "a.txt" });
  await codemode.write_file({ path: "b.txt", text: text + info.size });
  return "copied";
}`;

/** Builds the agent; every tool execution appends `<tool>\n` to `log`. */
export function codeAgent(
  log: string,
  turns: Turn[],
  executor: Executor,
  options: { typeCheck?: boolean } = {},
): Agent {
  const note = (name: string) =>
    Deno.writeTextFileSync(log, `${name}\n`, { append: true });
  const read = tool({
    name: "read_file",
    description: "Reads a file.",
    input: z.object({ path: z.string(), encoding: z.string().optional() }),
    run: ({ path }) => {
      note("read_file");
      return `contents of ${path}`;
    },
  });
  const stat = tool({
    name: "stat",
    description: "A file's size.",
    input: z.object({ path: z.string() }),
    output: z.object({ size: z.number() }),
    run: () => {
      note("stat");
      return { size: 7 };
    },
  });
  const write = tool({
    name: "write_file",
    description: "Writes a file.",
    input: z.object({ path: z.string(), text: z.string() }),
    requireApproval: true,
    run: ({ path, text }) => {
      note(`write_file ${path} ${text}`);
      return "written";
    },
  });
  return new Agent(script(...turns), {
    tools: [read, stat, write],
    codeMode: { executor, typeCheck: options.typeCheck === true },
  });
}

/** The executions the log holds, one per line. */
export function executions(log: string): string[] {
  try {
    return Deno.readTextFileSync(log).split("\n").filter((l) => l !== "");
  } catch {
    // No log yet: nothing was executed.
    return [];
  }
}
