/**
 * The stateless fast path (`tools/list` and `tools/call` answered from the
 * export registry, no SDK `Protocol` connected) answers exactly as the
 * SDK's path does: the same request set — good and bad arguments, an
 * unknown tool, thrown failures, output-schema failures, content results,
 * progress, missing scopes, a tool asking for input, odd `params` that
 * fall back, both eras — sent once with the fast path and once with it
 * switched off, over a real listener on 127.0.0.1, gives byte-identical
 * responses (status, headers, body). Cancellation: a dropped request
 * aborts the tool with the same reason on both paths. The fast path is
 * really taken (a server whose Protocol would be connected is never
 * connected).
 */

import assert from "node:assert/strict";
import { z } from "zod";
import type { AuthInfo } from "../auth.ts";
import {
  content,
  exportTools,
  httpHandler,
  rawTool,
  Server,
  tool,
} from "../mod.ts";
import { fastPath } from "../src/runtime/fast/fast_tools.ts";
import {
  META,
  MODERN_PROTOCOL_VERSION as MODERN,
} from "../src/runtime/era/era.ts";
import { pace, waitFor } from "./_helpers/wait.ts";

const DEADLINE = 10_000;

const auth = {
  resource: "http://127.0.0.1/mcp",
  authorizationServers: ["http://127.0.0.1:9/issuer"],
  verify: (token: string): AuthInfo => ({
    token,
    clientId: "app",
    scopes: token.split("+"),
    extra: { sub: "alice" },
  }),
};

/** What the tools saw: cancellation reasons, by call. */
const seen: string[] = [];
let release: (() => void) | undefined;

const tools = [
  tool({
    name: "echo",
    description: "Echoes.",
    input: z.object({ text: z.string() }),
    run: ({ text }) => "heard: " + text,
  }),
  tool({
    name: "sum",
    description: "Adds, structured.",
    input: z.object({ a: z.number(), b: z.number() }),
    output: z.object({ sum: z.number() }),
    run: ({ a, b }) => ({ sum: a + b }),
  }),
  tool({
    name: "liar",
    description: "Breaks its output schema.",
    input: z.object({}),
    output: z.object({ sum: z.number() }),
    run: () => ({ sum: "many" } as unknown as { sum: number }),
  }),
  rawTool({
    name: "prose",
    description: "Claims an output schema, answers prose.",
    outputSchema: { type: "object" },
    run: () => "not json",
  }),
  rawTool({
    name: "scalar",
    description: "Claims an output schema, answers a number.",
    outputSchema: { type: "object" },
    run: () => "42",
  }),
  rawTool({
    name: "boom",
    description: "Throws.",
    run: () => {
      throw new Error("kaput");
    },
  }),
  rawTool({
    name: "picture",
    description: "A content result.",
    run: () =>
      content("a dot", {
        type: "image",
        data: "iVBORw0KGgo=",
        mimeType: "image/png",
      }),
  }),
  rawTool({
    name: "odd_content",
    description: "A content item the SDK's check refuses.",
    run: () =>
      content({ type: "image" } as unknown as { type: "text"; text: string }),
  }),
  rawTool({
    name: "steps",
    description: "Reports progress, slowly.",
    run: async (_args, ctx) => {
      for (let i = 1; i <= 3; i++) {
        ctx.progress?.({ progress: i, total: 3, message: `step ${i}` });
        await pace(5, "a progress cadence: reports spread over the call");
      }
      return "walked";
    },
  }),
  rawTool({
    name: "guarded",
    description: "Needs a scope.",
    scopes: ["orders:write"],
    run: (_args, ctx) => `for ${ctx.auth?.clientId ?? "nobody"}`,
  }),
  rawTool({
    name: "ask",
    description: "Asks its caller.",
    run: async (_args, ctx) => {
      const answer = await ctx.ask!({
        message: "Which?",
        schema: { type: "object", properties: { pick: { type: "string" } } },
      });
      return JSON.stringify(answer);
    },
  }),
  rawTool({
    name: "wait",
    description: "Waits for its signal.",
    run: (_args, ctx) =>
      new Promise<string>((resolve) => {
        release?.();
        ctx.signal?.addEventListener("abort", () => {
          const reason = ctx.signal?.reason;
          seen.push(reason instanceof Error ? reason.message : String(reason));
          resolve("stopped");
        });
      }),
  }),
];

/** Servers the factory made, and those the SDK's Protocol was connected on. */
const made: Server[] = [];
const connected = new WeakSet<Server>();

function serve(withAuth: boolean) {
  const handler = httpHandler(() => {
    const server = new Server({ name: "fast", version: "1" });
    exportTools(server, ...tools);
    made.push(server);
    const connect = server.connect.bind(server);
    server.connect = (transport) => {
      connected.add(server);
      return connect(transport);
    };
    return server;
  }, { onerror: () => {}, ...(withAuth ? { auth } : {}) });
  const stop = new AbortController();
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    handler,
  );
  return {
    url: `http://127.0.0.1:${listener.addr.port}/mcp`,
    close: () => handler.close(),
    async [Symbol.asyncDispose]() {
      await handler.close();
      stop.abort();
      await listener.finished;
    },
  };
}

const ENVELOPE = {
  [META.protocolVersion]: MODERN,
  [META.clientCapabilities]: {},
  [META.clientInfo]: { name: "t", version: "1" },
};

interface Case {
  readonly label: string;
  readonly method: string;
  readonly params?: Record<string, unknown>;
  readonly token?: string;
}

const CASES: Case[] = [
  { label: "list", method: "tools/list", params: {} },
  { label: "list, no params", method: "tools/list" },
  { label: "list, a cursor", method: "tools/list", params: { cursor: "x" } },
  { label: "list, a bad cursor", method: "tools/list", params: { cursor: 5 } },
  {
    label: "call",
    method: "tools/call",
    params: { name: "echo", arguments: { text: "hi" } },
  },
  {
    label: "missing argument",
    method: "tools/call",
    params: { name: "echo", arguments: {} },
  },
  {
    label: "wrong type",
    method: "tools/call",
    params: { name: "echo", arguments: { text: 5 } },
  },
  { label: "no arguments", method: "tools/call", params: { name: "echo" } },
  {
    label: "null arguments",
    method: "tools/call",
    params: { name: "echo", arguments: null },
  },
  {
    label: "array arguments",
    method: "tools/call",
    params: { name: "echo", arguments: [1] },
  },
  {
    label: "string arguments",
    method: "tools/call",
    params: { name: "echo", arguments: "x" },
  },
  {
    label: "unknown tool",
    method: "tools/call",
    params: { name: "nope", arguments: {} },
  },
  { label: "no name", method: "tools/call", params: { arguments: {} } },
  { label: "a numeric name", method: "tools/call", params: { name: 5 } },
  {
    label: "structured",
    method: "tools/call",
    params: { name: "sum", arguments: { a: 1, b: 2 } },
  },
  {
    label: "output schema failure",
    method: "tools/call",
    params: { name: "liar", arguments: {} },
  },
  {
    label: "non-JSON structured",
    method: "tools/call",
    params: { name: "prose" },
  },
  {
    label: "scalar structured",
    method: "tools/call",
    params: { name: "scalar" },
  },
  { label: "thrown", method: "tools/call", params: { name: "boom" } },
  { label: "content", method: "tools/call", params: { name: "picture" } },
  {
    label: "invalid content",
    method: "tools/call",
    params: { name: "odd_content" },
  },
  {
    label: "progress",
    method: "tools/call",
    params: { name: "steps", _meta: { progressToken: "p1" } },
  },
  {
    label: "a numeric progress token",
    method: "tools/call",
    params: { name: "steps", _meta: { progressToken: 7 } },
  },
  {
    label: "a fractional progress token",
    method: "tools/call",
    params: {
      name: "echo",
      arguments: { text: "x" },
      _meta: { progressToken: 1.5 },
    },
  },
  {
    label: "a traceparent",
    method: "tools/call",
    params: {
      name: "echo",
      arguments: { text: "t" },
      _meta: {
        traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      },
    },
  },
  {
    label: "a task asked",
    method: "tools/call",
    params: { name: "echo", arguments: { text: "t" }, task: {} },
  },
  { label: "asks", method: "tools/call", params: { name: "ask" } },
  {
    label: "a bad requestState",
    method: "tools/call",
    params: { name: "ask", requestState: "forged" },
  },
  {
    label: "scoped, granted",
    method: "tools/call",
    params: { name: "guarded" },
    token: "orders:write",
  },
  {
    label: "scoped, lacking",
    method: "tools/call",
    params: { name: "guarded" },
    token: "orders:read",
  },
  {
    label: "unscoped with a token",
    method: "tools/call",
    params: { name: "echo", arguments: { text: "a" } },
    token: "x",
  },
];

/** The request of `c` in an era: modern ones carry the envelope and headers. */
function requestOf(c: Case, modern: boolean, id: number): RequestInit {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  let params = c.params;
  if (modern) {
    params = {
      ...params,
      _meta: { ...(params?._meta as object | undefined), ...ENVELOPE },
    };
    headers["mcp-protocol-version"] = MODERN;
    headers["mcp-method"] = c.method;
    if (typeof params.name === "string") headers["mcp-name"] = params.name;
  }
  if (c.token !== undefined) headers.authorization = `Bearer ${c.token}`;
  return {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: c.method,
      ...(params === undefined ? {} : { params }),
    }),
    signal: AbortSignal.timeout(DEADLINE),
  };
}

/**
 * A response as compared: status, headers, body; a signed requestState's
 * random parts masked. Whether the body went whole (`content-length`) or
 * streamed (`transfer-encoding`) is timing — an answer ready by the end of
 * the event-loop turn goes whole, a later one (a crypto verification off
 * the main thread) streams — so neither header is compared.
 */
async function answerOf(res: Response): Promise<string> {
  const body = (await res.text()).replace(
    /"requestState":"[^"]*"/g,
    '"requestState":"<signed>"',
  );
  return JSON.stringify({
    status: res.status,
    headers: [...res.headers].filter(([k]) =>
      k !== "date" && k !== "content-length" && k !== "transfer-encoding"
    ),
    body,
  });
}

async function answers(withAuth: boolean, modern: boolean): Promise<string[]> {
  await using server = serve(withAuth);
  const out: string[] = [];
  let id = 1;
  for (const c of CASES) {
    if ((c.token !== undefined) !== withAuth) continue;
    const res = await fetch(server.url, requestOf(c, modern, id++));
    out.push(`${c.label}: ${await answerOf(res)}`);
  }
  return out;
}

async function bothPaths<T>(run: () => Promise<T>): Promise<[T, T]> {
  assert.equal(fastPath.enabled, true);
  const fast = await run();
  fastPath.enabled = false;
  try {
    return [fast, await run()];
  } finally {
    fastPath.enabled = true;
  }
}

for (const modern of [false, true]) {
  const era = modern ? "2026-07-28" : "2025-11-25 (stateless)";
  Deno.test(`fast path, ${era}: every request answered byte for byte as the SDK's path answers it`, async () => {
    const [fast, full] = await bothPaths(async () => [
      ...await answers(false, modern),
      ...await answers(true, modern),
    ]);
    assert.equal(fast.length, CASES.length);
    for (let i = 0; i < fast.length; i++) assert.equal(fast[i], full[i]);
  });

  Deno.test(`fast path, ${era}: a dropped call's tool sees the same cancellation reason`, async () => {
    const [fast, full] = await bothPaths(async () => {
      await using server = serve(false);
      seen.length = 0;
      const started = new Promise<void>((r) => release = r);
      const drop = new AbortController();
      const init = requestOf(
        { label: "wait", method: "tools/call", params: { name: "wait" } },
        modern,
        1,
      );
      const pending = fetch(server.url, { ...init, signal: drop.signal })
        .then((res) => res.text()).catch(() => "dropped");
      await started;
      drop.abort();
      assert.equal(await pending, "dropped");
      await waitFor(() => seen.length > 0, "the tool sees its abort", {
        signal: AbortSignal.timeout(DEADLINE),
      }).catch(() => {}); // the caller asserts on what was seen
      return [...seen];
    });
    assert.deepEqual(fast, ["the HTTP request was dropped"]);
    assert.deepEqual(full, fast);
  });

  Deno.test(`fast path, ${era}: closing the handler mid-call ends the stream and aborts the tool alike`, async () => {
    const [fast, full] = await bothPaths(async () => {
      await using server = serve(false);
      seen.length = 0;
      const started = new Promise<void>((r) => release = r);
      const res = await fetch(
        server.url,
        requestOf(
          { label: "wait", method: "tools/call", params: { name: "wait" } },
          modern,
          1,
        ),
      );
      await started;
      await server.close();
      const text = await res.text();
      await waitFor(() => seen.length > 0, "the tool sees its abort", {
        signal: AbortSignal.timeout(DEADLINE),
      }).catch(() => {}); // the caller asserts on what was seen
      return { status: res.status, text, seen: [...seen] };
    });
    assert.equal(fast.seen.length, 1);
    assert.deepEqual(fast, full);
  });
}

Deno.test("fast path: tools/call and tools/list are answered without connecting the server", async () => {
  await using server = serve(false);
  const connects = async (): Promise<number> => {
    made.length = 0;
    for (const c of [CASES[0], CASES[4]]) {
      for (const modern of [false, true]) {
        const res = await fetch(server.url, requestOf(c, modern, 1));
        assert.equal(res.status, 200);
        assert.match(await res.text(), /"result"/);
      }
    }
    assert.equal(made.length, 4);
    return made.filter((s) => connected.has(s)).length;
  };
  const [fast, full] = await bothPaths(connects);
  assert.equal(fast, 0);
  assert.equal(full, 4);
});

Deno.test("fast path: what one call's handler writes on its close reason never reaches another caller's", async () => {
  const { FastDispatch } = await import("../src/runtime/fast/fast_tools.ts");
  const reasons: unknown[] = [];
  let running = 0;
  const hanging = {
    list: () => ({ tools: [] }),
    call: (_params: Record<string, unknown>, extra: unknown) =>
      new Promise<Record<string, unknown>>((resolve) => {
        const signal = (extra as { signal: AbortSignal }).signal;
        signal.addEventListener("abort", () => {
          reasons.push(signal.reason);
          resolve({ content: [] });
        });
        running++;
      }),
  };
  const link = { send: () => Promise.resolve() };
  // Two callers, each on a server of its own; both closed mid-call.
  const first = new FastDispatch({}, hanging, link);
  const second = new FastDispatch({}, hanging, link);
  first.request("tools/call", 1, { name: "t" }, undefined);
  second.request("tools/call", 1, { name: "t" }, undefined);
  await waitFor(() => running === 2, "both handlers run");
  first.closed();
  assert.equal(reasons.length, 1);
  const mine = reasons[0] as DOMException;
  assert.equal(mine.name, "AbortError");
  // The first handler, after its answer is moot, writes on its reason.
  Reflect.set(mine, "leak", "first caller's secret");
  second.closed();
  assert.equal(reasons.length, 2);
  const theirs = reasons[1] as DOMException & { leak?: unknown };
  assert.equal(theirs.name, "AbortError");
  assert.equal(theirs.leak, undefined);
});
