/**
 * Shared pieces of the `weft-mcp` tests: running cli.ts as a child process,
 * the bundled server's inspection, HTTP and odd servers to point it at.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/server/index"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { httpHandler } from "../../src/runtime/http/handler.ts";
import { serveHttp } from "../../examples/server.ts";
import { waitFor } from "./wait.ts";

/** The repository root. */
export const ROOT = new URL("../../", import.meta.url).pathname;

/**
 * `inspect`'s text without the era it names (`, protocol <revision>
 * (<era>)` on the server line, `, <era>` in a `--config` header): the
 * bundled server's era depends on the server side, not on the text.
 */
export function withoutEra(text: string): string {
  return text
    .replace(/^(server .*?), protocol \S+ \((modern|legacy)\):/m, "$1:")
    .replace(/^(== .*? \(.*?), (modern|legacy)\):/gm, "$1):");
}

/** The server line of an inspection names the era: `, protocol <revision> (<era>):`. */
export const ERA_SHOWN =
  /^server .*, protocol \d{4}-\d{2}-\d{2} \((modern|legacy)\):/;

/** The inspection of examples/server.ts, byte for byte. */
export const BUNDLED =
  `server weft-getting-started 0: 2 tools imported, 0 skipped

getting-started
  runs: sequential: the server did not mark it readOnlyHint
  description: Answer where a customer's order is.
  input schema: {"type":"object","properties":{"prompt":{"type":"string","description":"The task, stated in full: the agent sees only this prompt, not the conversation."}},"required":["prompt"]}
  kept beyond the core's view: none
  output schema: none

lookup_order
  runs: sequential: the server did not mark it readOnlyHint
  description: Look up an order by ID.
  input schema: {"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"order_id":{"type":"string","description":"the order to look up"}},"required":["order_id"]}
  kept beyond the core's view: $schema at /
  output schema: {"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","propertyNames":{"type":"string"},"additionalProperties":{"type":"string"}}
`;

export interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export async function run(
  args: string[],
  options: {
    signalAfter?: number;
    /**
     * SIGINT once a process runs whose command line starts with these
     * words (the server the CLI started: it is connecting then, its
     * handlers set), then after `signalAfter` ms more; at most 20 s of
     * waiting.
     */
    signalWhenRunning?: readonly string[];
  } = {},
): Promise<Ran> {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const command = options.signalWhenRunning;
  if (command !== undefined) {
    (async () => {
      // Signalled once the command runs, or after 20 s regardless.
      await waitFor(() => processRunning(command), `${command} running`, {
        signal: AbortSignal.timeout(20_000),
        everyMs: 50,
      }).catch(() => {});
      setTimeout(() => child.kill("SIGINT"), options.signalAfter ?? 0);
    })();
  } else if (options.signalAfter !== undefined) {
    setTimeout(() => child.kill("SIGINT"), options.signalAfter);
  }
  const out = await child.output();
  const text = new TextDecoder();
  return {
    code: out.code,
    stdout: text.decode(out.stdout),
    stderr: text.decode(out.stderr),
  };
}

/**
 * What the CLI wrote to stderr, without the progress lines it writes while a
 * connect takes more than a second (`connecting to <x> (<n>s)`): how many
 * there are depends on the machine's load.
 */
export function withoutProgress(stderr: string): string {
  return stderr.replace(/^weft-mcp: connecting to .* \(\d+s\)\n/gm, "");
}

/** `deno` arguments that run cli.ts. */
export const CLI = ["run", "-A", "--quiet", "cli.ts"];

/** The bundled server as an explicit stdio command (after `--`). */
export const SERVER_COMMAND = [
  Deno.execPath(),
  "run",
  "-A",
  "--quiet",
  "examples/server.ts",
];

export function cli(...args: string[]): Promise<Ran> {
  return run([...CLI, ...args]);
}

/** Whether any process's command line has `needle` as one of its words. */
/** Whether a process runs whose command line starts with `words`. */
async function processRunning(words: readonly string[]): Promise<boolean> {
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const argv = (await Deno.readTextFile(`/proc/${entry.name}/cmdline`))
        .split("\0");
      if (words.every((w, i) => argv[i] === w)) return true;
    } catch {
      // gone meanwhile
    }
  }
  return false;
}

export async function processWithArg(needle: string): Promise<boolean> {
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const words = (await Deno.readTextFile(`/proc/${entry.name}/cmdline`))
        .split("\0");
      if (words.includes(needle)) return true;
    } catch {
      // gone meanwhile
    }
  }
  return false;
}

/** A 127.0.0.1 port nothing listens on (bound, then released). */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  return port;
}

export async function withHttpServer(
  body: (url: URL) => Promise<void>,
): Promise<void> {
  const stop = new AbortController();
  const listening = Promise.withResolvers<URL>();
  const serving = serveHttp({
    signal: stop.signal,
    onListen: listening.resolve,
  });
  try {
    await body(await listening.promise);
  } finally {
    stop.abort();
    await serving;
  }
}

// A server with a read-only tool and one importTools refuses; or, with
// `failList`, one whose tools/list fails.
export function oddServer(failList: boolean): Server {
  const server = new Server({ name: "odd", version: "1" }, {
    capabilities: { tools: {} },
  });
  server.setRequestHandler(ListToolsRequestSchema, () => {
    if (failList) throw new Error("listing is down");
    return {
      tools: [
        {
          name: "search",
          description: "Search.",
          inputSchema: {
            type: "object",
            properties: { q: { type: "string", minLength: 1 } },
          },
          annotations: { readOnlyHint: true },
        },
        { name: "broken", description: "", inputSchema: { type: "array" } },
      ],
    };
  });
  return server;
}

export async function withOddServer(
  failList: boolean,
  body: (url: string) => Promise<void>,
): Promise<void> {
  await using handler = httpHandler(() => oddServer(failList));
  await using server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
  }, handler);
  await body(`http://127.0.0.1:${server.addr.port}/mcp`);
}
