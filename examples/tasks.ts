/**
 * Long-running work as an MCP task: a served agent that takes about 30 s
 * (three steps of a slow tool), called as a task over Streamable HTTP. The
 * caller gets a task handle at once, keeps only its id, disconnects
 * halfway (a restart), connects again and fetches the result — the agent
 * ran once, detached from any request.
 *
 *     deno run -A examples/tasks.ts            # about 30 s
 *     deno run -A examples/tasks.ts --fast     # a second
 *
 * Task records live in the store given to `serveTasks` (here memory; pass
 * the same `redisStore(url)` or `denoKvStore(kv)` to `httpHandler` and
 * `serveTasks` on every instance, and any instance answers for any task).
 * The model is scripted (`@weft/mcp/testing`), so this runs offline.
 *
 * @module
 */

import {
  Agent,
  Client,
  httpHandler,
  rawTool,
  serveAgent,
  Server,
} from "../mod.ts";

import { serveTasks } from "../tasks.ts";
import { memoryStore } from "../store.ts";
import { callTools, say, script } from "../testing.ts";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
} from "@modelcontextprotocol/sdk/types.js";

/** What the run showed. */
export interface TaskRun {
  /** The task id the first connection kept. */
  readonly taskId: string;
  /** The status the second connection saw first. */
  readonly seenAfterRestart: string;
  /** The result text. */
  readonly text: string;
  /** How many times the agent's slow tool ran. */
  readonly steps: number;
}

/** Serves a slow research agent as a task and calls it across a caller restart. */
export async function run(stepMs: number): Promise<TaskRun> {
  let steps = 0;
  const dig = rawTool({
    name: "dig",
    description: "Digs through sources (slow).",
    run: async (_args, ctx) => {
      await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, stepMs);
        ctx.signal?.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(ctx.signal?.reason);
        });
      });
      return `finding ${++steps}`;
    },
  });
  const store = memoryStore();
  const handler = httpHandler(() => {
    // A new agent per session: its scripted model plays the turns once.
    const research = new Agent(
      script(
        callTools({ name: "dig" }),
        callTools({ name: "dig" }),
        callTools({ name: "dig" }),
        say("Report: three findings."),
      ),
      { name: "research", tools: [dig] },
    );
    const server = new Server({ name: "research", version: "1.0.0" });
    serveAgent(server, research, "Researches a topic in depth (slow).", {
      taskSupport: "required",
    });
    serveTasks(server, { store, pollIntervalMs: Math.min(stepMs, 1_000) });
    return server;
  }, { sessions: true, store });
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    handler,
  );
  const url = new URL(`http://127.0.0.1:${listener.addr.port}/mcp`);
  try {
    // The first caller: starts the task and keeps only its id.
    const first = new Client({ name: "caller", version: "1.0.0" });
    await first.connect(new StreamableHTTPClientTransport(url));
    const created = await first.request({
      method: "tools/call",
      params: {
        name: "research",
        arguments: { prompt: "MCP tasks" },
        task: { ttl: 600_000 },
      },
    }, CreateTaskResultSchema);
    const taskId = created.task.taskId;
    // Halfway through, the caller goes away.
    await new Promise((resolve) => setTimeout(resolve, stepMs * 1.5));
    await first.close();

    // Restarted: a new connection that knows the id only.
    const second = new Client({ name: "caller", version: "1.0.0" });
    await second.connect(new StreamableHTTPClientTransport(url));
    try {
      const seen = await second.experimental.tasks.getTask(taskId);
      const result = await second.experimental.tasks.getTaskResult(
        taskId,
        CallToolResultSchema,
      );
      const text = result.content
        .map((item) => item.type === "text" ? item.text : "")
        .join("");
      return { taskId, seenAfterRestart: seen.status, text, steps };
    } finally {
      await second.close();
    }
  } finally {
    await handler.close();
    await listener.shutdown();
    await store.close();
  }
}

if (import.meta.main) {
  const stepMs = Deno.args.includes("--fast") ? 300 : 10_000;
  const outcome = await run(stepMs);
  console.log(`task ${outcome.taskId}`);
  console.log(`after the restart: ${outcome.seenAfterRestart}`);
  console.log(
    `result: ${outcome.text} (the slow tool ran ${outcome.steps} times)`,
  );
}
