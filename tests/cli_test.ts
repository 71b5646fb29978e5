/**
 * `weft-mcp` (cli.ts): the pure parts (argument parsing, the inspection
 * text, the schema walk) pinned directly, then the program itself run as a
 * child process — `deno task start`, inspect and call over stdio and HTTP,
 * and each failure's exit code and message.
 */

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/server/index"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  DEFAULT_TIMEOUT_MS,
  ExitCode,
  extraKeywords,
  formatInspection,
  parseCommandLine,
  runCli,
  targetLabel,
  USAGE,
  UsageError,
} from "../cli.ts";
import { httpHandler } from "../src/runtime/http/handler.ts";
import { withProgress } from "../src/cli/connect.ts";
import { EmptyNameError, NonObjectEntryError } from "../bridge.ts";
import { ImportError, rawTool, SchemaError } from "../mod.ts";
import { serveHttp } from "../examples/server.ts";

const ROOT = new URL("../", import.meta.url).pathname;

/** The inspection of examples/server.ts, byte for byte. */
const BUNDLED = `server weft-getting-started 0: 2 tools imported, 0 skipped

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

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function run(
  args: string[],
  options: { signalAfter?: number } = {},
): Promise<Ran> {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.signalAfter !== undefined) {
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

/** `deno` arguments that run cli.ts. */
const CLI = ["run", "-A", "--quiet", "cli.ts"];

/** The bundled server as an explicit stdio command (after `--`). */
const SERVER_COMMAND = [
  Deno.execPath(),
  "run",
  "-A",
  "--quiet",
  "examples/server.ts",
];

function cli(...args: string[]): Promise<Ran> {
  return run([...CLI, ...args]);
}

/** Whether any process's command line has `needle` as one of its words. */
async function processWithArg(needle: string): Promise<boolean> {
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
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  return port;
}

async function withHttpServer(
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
function oddServer(failList: boolean): Server {
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

async function withOddServer(
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

Deno.test("parseCommandLine", async (t) => {
  await t.step("no arguments inspects the bundled server", () => {
    assert.deepEqual(parseCommandLine([]), {
      kind: "inspect",
      target: { kind: "default" },
      timeout: DEFAULT_TIMEOUT_MS,
    });
  });
  await t.step("inspect a command after --, options before it", () => {
    assert.deepEqual(
      parseCommandLine([
        "inspect",
        "--timeout",
        "500",
        "--",
        "npx",
        "-y",
        "srv",
        "--timeout",
        "9",
      ]),
      {
        kind: "inspect",
        target: {
          kind: "command",
          command: "npx",
          args: ["-y", "srv", "--timeout", "9"],
        },
        timeout: 500,
      },
    );
  });
  await t.step("inspect a URL", () => {
    const cmd = parseCommandLine([
      "inspect",
      "--timeout=20",
      "http://127.0.0.1:8000/mcp",
    ]);
    assert.equal(cmd.kind, "inspect");
    assert.ok(cmd.kind === "inspect" && cmd.target.kind === "url");
    assert.equal(cmd.target.url.href, "http://127.0.0.1:8000/mcp");
    assert.equal(cmd.timeout, 20);
  });
  await t.step("call: tool, JSON (default {}), then the target", () => {
    assert.deepEqual(parseCommandLine(["call", "t"]), {
      kind: "call",
      tool: "t",
      args: "{}",
      target: { kind: "default" },
      timeout: DEFAULT_TIMEOUT_MS,
    });
    const cmd = parseCommandLine([
      "call",
      "t",
      '{"a":1}',
      "https://example.com/mcp",
    ]);
    assert.ok(cmd.kind === "call" && cmd.target.kind === "url");
    assert.equal(cmd.args, '{"a":1}');
    assert.equal(cmd.target.url.hostname, "example.com");
    const viaUrlOnly = parseCommandLine(["call", "t", "http://h/mcp"]);
    assert.ok(
      viaUrlOnly.kind === "call" && viaUrlOnly.target.kind === "url" &&
        viaUrlOnly.args === "{}",
    );
  });
  await t.step("help, --help and -h", () => {
    for (
      const argv of [["help"], ["--help"], ["inspect", "-h"], [
        "call",
        "x",
        "--help",
      ]]
    ) {
      assert.deepEqual(parseCommandLine(argv), { kind: "help" });
    }
  });
  await t.step("usage errors say what was wrong", () => {
    const cases: [string[], string][] = [
      [["frobnicate"], 'weft-mcp: unknown command "frobnicate"'],
      [["inspect", "--verbose"], "weft-mcp: unknown option --verbose"],
      [
        ["inspect", "server.ts"],
        "weft-mcp: not an http(s) URL: server.ts (put a server command after --)",
      ],
      [
        ["inspect", "http://a/", "--", "x"],
        "weft-mcp: give either a URL or -- <command>, not both",
      ],
      [["inspect", "--"], "weft-mcp: -- must be followed by a command"],
      [
        ["inspect", "http://a/", "http://b/"],
        "weft-mcp: more than one target: http://a/ http://b/",
      ],
      [["call"], "weft-mcp: call needs a tool name"],
      [
        ["call", "t", "{}", "{}"],
        "weft-mcp: call takes one JSON argument, got 2",
      ],
      [
        ["--timeout", "0"],
        "weft-mcp: --timeout needs a positive number of milliseconds, got 0",
      ],
      [
        ["--timeout"],
        "weft-mcp: --timeout needs a positive number of milliseconds, got nothing",
      ],
    ];
    for (const [argv, message] of cases) {
      assert.throws(() => parseCommandLine(argv), (err: unknown) => {
        assert.ok(err instanceof UsageError);
        assert.equal(err.message, message);
        return true;
      });
    }
  });
});

Deno.test("targetLabel quotes command words a shell would split", () => {
  assert.equal(
    targetLabel({ kind: "command", command: "sh", args: ["-c", "it's here"] }),
    `sh -c 'it'\\''s here'`,
  );
  assert.equal(
    targetLabel({ kind: "url", url: new URL("http://127.0.0.1:9/mcp") }),
    "http://127.0.0.1:9/mcp",
  );
  assert.equal(
    targetLabel({ kind: "default" }, {
      command: "deno",
      args: [],
      label: "examples/server.ts",
    }),
    "examples/server.ts",
  );
});

Deno.test("extraKeywords walks every subschema, never data, with JSON Pointers", () => {
  const found = extraKeywords({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: {
      "a/b": { type: "integer", minimum: 1, maximum: 9 },
      state: {
        enum: [{ minimum: "data, not a keyword" }],
        default: { pattern: "data" },
      },
      list: { type: "array", items: { type: "string", pattern: "^x" } },
      tuple: {
        type: "array",
        prefixItems: [{ const: 1 }],
        items: [{ minLength: 2 }],
      },
      ref: { $ref: "#/$defs/Thing" },
    },
    $defs: {
      Thing: {
        oneOf: [{ type: "string", minLength: 1 }, { not: { type: "null" } }],
      },
    },
    additionalProperties: { type: "string", maxLength: 3 },
  });
  assert.deepEqual(found, [
    { keyword: "$schema", at: [""] },
    { keyword: "minimum", at: ["/properties/a~1b"] },
    { keyword: "maximum", at: ["/properties/a~1b"] },
    { keyword: "enum", at: ["/properties/state"] },
    { keyword: "default", at: ["/properties/state"] },
    { keyword: "pattern", at: ["/properties/list/items"] },
    { keyword: "prefixItems", at: ["/properties/tuple"] },
    { keyword: "const", at: ["/properties/tuple/prefixItems/0"] },
    {
      keyword: "minLength",
      at: ["/properties/tuple/items/0", "/$defs/Thing/oneOf/0"],
    },
    { keyword: "$ref", at: ["/properties/ref"] },
    { keyword: "$defs", at: [""] },
    { keyword: "oneOf", at: ["/$defs/Thing"] },
    { keyword: "not", at: ["/$defs/Thing/oneOf/1"] },
    { keyword: "maxLength", at: ["/additionalProperties"] },
  ]);
  assert.deepEqual(
    extraKeywords({
      type: "object",
      properties: { q: { type: "string", description: "d" } },
    }),
    [],
  );
});

Deno.test("formatInspection: every tool's model view, then every skipped tool", () => {
  const search = rawTool({
    name: "gh_search",
    description: "Search issues.\nReturns at most 30.",
    inputSchema: {
      type: "object",
      properties: {
        q: { type: "string" },
        state: { enum: ["open", "closed"] },
      },
      required: ["q"],
    },
    outputSchema: {
      type: "object",
      properties: { total: { type: "integer" } },
    },
    run: () => "",
  });
  const wipe = rawTool({
    name: "wipe",
    description: "",
    inputSchema: { type: "object" },
    sequential: true,
    run: () => "",
  });
  const skipped = new ImportError([
    {
      name: "bad",
      index: 2,
      error: new SchemaError('top-level type must be "object", got "array"'),
    },
    { name: "", index: 3, error: new EmptyNameError() },
    { name: "", index: 4, error: new NonObjectEntryError() },
  ]);
  const text = formatInspection({
    server: { name: "github", version: "1.2.0" },
    tools: [search, wipe],
    skipped,
  });
  assert.equal(
    text,
    `server github 1.2.0: 2 tools imported, 3 skipped

gh_search
  runs: parallel: the server marked it readOnlyHint
  description: Search issues.
               Returns at most 30.
  input schema: {"type":"object","properties":{"q":{"type":"string"},"state":{"enum":["open","closed"]}},"required":["q"]}
  kept beyond the core's view: enum at /properties/state
  output schema: {"type":"object","properties":{"total":{"type":"integer"}}}

wipe
  runs: sequential: the server did not mark it readOnlyHint
  description: (empty)
  input schema: {"type":"object"}
  kept beyond the core's view: none
  output schema: none

skipped 3 tools:
  "bad": weft: parseSchema: top-level type must be "object", got "array"
  entry 3: empty name
  entry 4: not an object
`,
  );
  assert.equal(
    formatInspection({ tools: [] }),
    "server (no serverInfo): 0 tools imported, 0 skipped\n",
  );
});

Deno.test("withProgress writes a line per second while pending, none after", async () => {
  const lines: string[] = [];
  const slow = new Promise<string>((resolve) =>
    setTimeout(() => resolve("up"), 2300)
  );
  assert.equal(
    await withProgress(slow, {
      label: "srv",
      write: (line) => lines.push(line),
    }),
    "up",
  );
  assert.deepEqual(lines, [
    "weft-mcp: connecting to srv (1s)\n",
    "weft-mcp: connecting to srv (2s)\n",
  ]);
  const quick: string[] = [];
  await withProgress(Promise.resolve(1), {
    label: "srv",
    write: (line) => quick.push(line),
  });
  await new Promise((resolve) => setTimeout(resolve, 1100));
  assert.deepEqual(quick, []);
});

Deno.test("deno task start prints the inspection of the bundled server", async () => {
  const ran = await run(["task", "start"]);
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(ran.stdout, BUNDLED);
});

Deno.test("inspect", async (t) => {
  await t.step("with no target: the bundled server", async () => {
    const ran = await cli("inspect");
    assert.equal(ran.code, ExitCode.ok, ran.stderr);
    assert.equal(ran.stdout, BUNDLED);
  });
  await t.step("a stdio command after --", async () => {
    const ran = await cli("inspect", "--", ...SERVER_COMMAND);
    assert.equal(ran.code, ExitCode.ok, ran.stderr);
    assert.equal(ran.stdout, BUNDLED);
  });
  await t.step("a Streamable HTTP URL", async () => {
    await withHttpServer(async (url) => {
      const ran = await cli("inspect", url.href);
      assert.equal(ran.code, ExitCode.ok, ran.stderr);
      assert.equal(ran.stdout, BUNDLED);
    });
  });
  await t.step(
    "a slow start shows progress on stderr, stdout stays the inspection",
    async () => {
      const ran = await cli(
        "inspect",
        "--",
        "sh",
        "-c",
        'sleep 1.5; exec "$0" run -A --quiet examples/server.ts',
        Deno.execPath(),
      );
      assert.equal(ran.code, ExitCode.ok, ran.stderr);
      assert.equal(ran.stdout, BUNDLED);
      assert.match(
        ran.stderr,
        /^weft-mcp: connecting to sh -c 'sleep 1\.5; exec "\$0" run .*' \S+ \(1s\)$/m,
      );
    },
  );
});

Deno.test("call", async (t) => {
  await t.step("prints the result text the model sees", async () => {
    const ran = await cli("call", "lookup_order", '{"order_id":"42"}');
    assert.equal(ran.code, ExitCode.ok, ran.stderr);
    assert.equal(ran.stdout, '{"id":"42","status":"shipped"}\n');
  });
  await t.step("over HTTP, the agent tool", async () => {
    await withHttpServer(async (url) => {
      const ran = await cli(
        "call",
        "getting-started",
        '{"prompt":"Where is 1234?"}',
        url.href,
      );
      assert.equal(ran.code, ExitCode.ok, ran.stderr);
      assert.equal(ran.stdout, "Order 1234 shipped and is on its way.\n");
    });
  });
  await t.step("a tool error prints its text and exits 1", async () => {
    const ran = await cli(
      "call",
      "lookup_order",
      "{}",
      "--",
      ...SERVER_COMMAND,
    );
    assert.equal(ran.code, ExitCode.toolError);
    assert.equal(
      ran.stdout,
      'INVALID_INPUT: tool "lookup_order": missing required field "order_id"\n',
    );
  });
  await t.step("an unknown tool names the ones there are, exit 2", async () => {
    const ran = await cli("call", "nope");
    assert.equal(ran.code, ExitCode.failure);
    assert.equal(ran.stdout, "");
    assert.equal(
      ran.stderr,
      'weft-mcp: examples/server.ts has no tool named "nope" (its tools: getting-started, lookup_order)\n',
    );
  });
});

Deno.test("inspect and call a server with a read-only tool and a skipped one", async (t) => {
  await withOddServer(false, async (url) => {
    await t.step(
      "inspect shows the parallel tool and the skipped one, exit 0",
      async () => {
        const ran = await cli("inspect", url);
        assert.equal(ran.code, ExitCode.ok, ran.stderr);
        assert.equal(
          ran.stdout,
          `server odd 1: 1 tool imported, 1 skipped

search
  runs: parallel: the server marked it readOnlyHint
  description: Search.
  input schema: {"type":"object","properties":{"q":{"type":"string","minLength":1}}}
  kept beyond the core's view: minLength at /properties/q
  output schema: none

skipped 1 tool:
  "broken": weft: parseSchema: top-level type must be "object", got "array"
`,
        );
      },
    );
    await t.step(
      "call of a skipped tool says why it is not there, exit 2",
      async () => {
        const ran = await cli("call", "broken", url);
        assert.equal(ran.code, ExitCode.failure);
        assert.equal(
          ran.stderr,
          'weft-mcp: tool "broken" was not imported: weft: parseSchema: top-level type must be "object", got "array"\n',
        );
      },
    );
  });
  await withOddServer(true, async (url) => {
    await t.step(
      "a failing tools/list: exit 2 with the server's error",
      async () => {
        const ran = await cli("inspect", url);
        assert.equal(ran.code, ExitCode.failure);
        assert.equal(ran.stdout, "");
        assert.equal(
          ran.stderr,
          `weft-mcp: cannot list the tools of ${url}: MCP error -32603: listing is down\n`,
        );
      },
    );
  });
});

Deno.test("runCli without a bundled server asks for a target", async () => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli([], {
    output: { stdout: (t) => out.push(t), stderr: (t) => err.push(t) },
  });
  assert.equal(code, ExitCode.failure);
  assert.deepEqual(out, []);
  assert.deepEqual(err, [
    "weft-mcp: no target given, and the bundled example server is only there in a clone; pass a URL or -- <command>\n",
  ]);
});

Deno.test("failures", async (t) => {
  await t.step(
    "a server that exits at once: exit 2 with the cause",
    async () => {
      const ran = await cli("inspect", "--", "false");
      assert.equal(ran.code, ExitCode.failure);
      assert.equal(ran.stdout, "");
      assert.match(
        ran.stderr,
        /^weft-mcp: cannot connect to false: server process exited with code 1\n$/m,
      );
    },
  );
  await t.step("a closed 127.0.0.1 port: exit 2", async () => {
    const url = `http://127.0.0.1:${closedPort()}/mcp`;
    const ran = await cli("inspect", url);
    assert.equal(ran.code, ExitCode.failure);
    assert.equal(ran.stdout, "");
    assert.ok(
      ran.stderr.startsWith(`weft-mcp: cannot connect to ${url}: `),
      ran.stderr,
    );
  });
  await t.step(
    "--timeout ends a server that never answers, and leaves no process",
    async () => {
      const started = performance.now();
      const ran = await cli(
        "--timeout",
        "400",
        "inspect",
        "--",
        "sleep",
        "31.4159",
      );
      assert.equal(ran.code, ExitCode.failure);
      assert.equal(
        ran.stderr,
        "weft-mcp: timed out after 400 ms connecting to sleep 31.4159 (--timeout)\n",
      );
      assert.ok(performance.now() - started < 10_000);
      assert.equal(await processWithArg("31.4159"), false);
    },
  );
  await t.step("SIGINT closes the server and exits 130", async () => {
    const ran = await run([...CLI, "inspect", "--", "sleep", "27.1828"], {
      signalAfter: 1500,
    });
    assert.equal(ran.code, ExitCode.interrupted, ran.stderr);
    assert.match(
      ran.stderr,
      /weft-mcp: interrupted while connecting to sleep 27\.1828\n$/,
    );
    assert.equal(await processWithArg("27.1828"), false);
  });
  await t.step(
    "usage errors: the reason, then the usage, on stderr, exit 64",
    async () => {
      const ran = await cli("frobnicate");
      assert.equal(ran.code, ExitCode.usage);
      assert.equal(ran.stdout, "");
      assert.equal(
        ran.stderr,
        `weft-mcp: unknown command "frobnicate"\n\n${USAGE}`,
      );
    },
  );
  await t.step("--help prints the usage on stdout, exit 0", async () => {
    for (const arg of ["--help", "help"]) {
      const ran = await cli(arg);
      assert.equal(ran.code, ExitCode.ok);
      assert.equal(ran.stdout, USAGE);
      assert.equal(ran.stderr, "");
    }
  });
});
