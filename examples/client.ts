/**
 * The import side, end to end: two MCP servers connected at once — the
 * example server as a stdio child (`connectStdio`) and again as a Streamable
 * HTTP child (`examples/server.ts --http`, reached with `connectHttp`) —
 * under one deadline, their tools imported under the prefixes `stdio_` and
 * `http_`, and a scripted agent that calls one tool on each in the same turn,
 * then answers. (The loop runs the two calls one after the other: the
 * example server does not mark its tools `readOnlyHint`, as `deno task
 * start` shows, and an unmarked imported tool is sequential.)
 *
 *     deno run -A examples/client.ts
 *
 * The final text goes to stdout; skipped tools, the tool results and the
 * servers' logs go to stderr. Everything started here is closed before the
 * process ends, on failure too.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import {
  Agent,
  connectHttp,
  connectStdio,
  type ImportResult,
  importTools,
  type RunResult,
} from "../mod.ts";
import { callTools, say, script } from "../testing.ts";

const SERVER = fileURLToPath(new URL("./server.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../", import.meta.url));

type Connected = Awaited<ReturnType<typeof connectStdio>>;

/** The agent's final answer (scripted). */
export const FINAL_TEXT =
  "Order 1234 has shipped: the warehouse record and the support agent agree.";

/** Options of {@link run}. */
export interface RunOptions {
  /** The deadline for everything: connecting, listing, the run. Default `AbortSignal.timeout(30_000)`. */
  signal?: AbortSignal;
  /** Where log lines go. Default `console.error`. */
  log?: (line: string) => void;
}

/**
 * Starts both servers, imports their tools, runs the scripted agent and
 * resolves to its result; every connection and child is closed before it
 * settles.
 */
export async function run(options: RunOptions = {}): Promise<RunResult> {
  const signal = options.signal ?? AbortSignal.timeout(30_000);
  const log = options.log ?? ((line: string) => console.error(line));
  await using stack = new AsyncDisposableStack();
  // Both connect at once; allSettled, so a sibling still connecting when the
  // other fails is owned (and closed) too.
  const settled = await Promise.allSettled([
    connectStdio(Deno.execPath(), {
      args: ["run", "-A", SERVER],
      cwd: ROOT,
      signal,
    })
      .then((client) => stack.use(client)),
    startHttpServer({ signal, log }).then((server) => {
      stack.use(server);
      return connectHttp(server.url, { signal });
    }).then((client) => stack.use(client)),
  ]);
  for (const outcome of settled) {
    if (outcome.status === "rejected") throw outcome.reason;
  }
  const [stdio, http] = settled.map((outcome) =>
    (outcome as PromiseFulfilledResult<Connected>).value
  );
  const [local, remote] = await Promise.all([
    importTools(stdio, { prefix: "stdio_", signal }),
    importTools(http, { prefix: "http_", signal }),
  ]);
  logSkipped([local, remote], log);
  const model = script(
    callTools(
      { name: "stdio_lookup_order", args: { order_id: "1234" } },
      {
        name: "http_getting-started",
        args: { prompt: "Where is order 1234?" },
      },
    ),
    say(FINAL_TEXT),
  );
  const agent = new Agent(model, {
    name: "orders",
    tools: [...local.tools, ...remote.tools],
    onEvent: (event) => {
      if (event.type === "tool_finish") {
        log(`${event.name} -> ${event.content}`);
      }
    },
  });
  return await agent.generate("Where is order 1234?", { signal });
}

/**
 * Logs, for each import that skipped tools, its `ImportError` message (`mcp:
 * <N> tool(s) not imported: …`): the good tools were imported and the run
 * goes on without the others.
 */
export function logSkipped(
  imports: readonly ImportResult[],
  log: (line: string) => void,
): void {
  for (const { skipped } of imports) {
    if (skipped !== undefined) log(skipped.message);
  }
}

/** The HTTP child: its endpoint, and disposal that stops it and waits for its exit. */
interface HttpServerChild extends AsyncDisposable {
  readonly url: URL;
}

// Spawns `server.ts --http` on a free port and resolves once it prints its
// endpoint on stderr; its later stderr lines are logged with a prefix.
async function startHttpServer(
  options: { signal: AbortSignal; log: (line: string) => void },
): Promise<HttpServerChild> {
  const { signal, log } = options;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", SERVER, "--http"],
    cwd: ROOT,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const lines = child.stderr.pipeThrough(new TextDecoderStream()).pipeThrough(
    splitLines(),
  );
  const reader = lines.getReader();
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch {
      // already exited
    }
    await child.status;
    await pump;
  };
  let pump: Promise<void> = Promise.resolve();
  // The deadline ends the wait: killing the child ends its stderr.
  const onAbort = () => void stop();
  signal.addEventListener("abort", onAbort, { once: true });
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      signal.removeEventListener("abort", onAbort);
      await stop();
      signal.throwIfAborted();
      throw new Error("examples/server.ts --http exited before it listened");
    }
    const found = value.match(/serving on (http:\/\/\S+)/);
    if (found === null) {
      log(`[http] ${value}`);
      continue;
    }
    signal.removeEventListener("abort", onAbort);
    pump = (async () => {
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        log(`[http] ${r.value}`);
      }
    })();
    return { url: new URL(found[1]), [Symbol.asyncDispose]: stop };
  }
}

function splitLines(): TransformStream<string, string> {
  let rest = "";
  return new TransformStream({
    transform(chunk, controller) {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop() ?? "";
      for (const part of parts) controller.enqueue(part);
    },
    flush(controller) {
      if (rest !== "") controller.enqueue(rest);
    },
  });
}

if (import.meta.main) {
  // Our own timer, cleared at the end: a pending AbortSignal.timeout with
  // listeners would keep the process alive until it fired.
  const deadline = new AbortController();
  const timer = setTimeout(
    () =>
      deadline.abort(new DOMException("client: 30 s deadline", "TimeoutError")),
    30_000,
  );
  try {
    const result = await run({ signal: deadline.signal });
    console.log(result.text);
  } catch (error) {
    console.error(
      `client: ${error instanceof Error ? error.message : String(error)}`,
    );
    Deno.exitCode = 1;
  } finally {
    clearTimeout(timer);
  }
}
