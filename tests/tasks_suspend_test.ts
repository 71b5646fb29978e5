/**
 * Suspending a run while an imported task call is in flight (the client
 * host must stop or restart): the call stops polling without `tasks/cancel`
 * and parks with `suspended` naming the task; the run, saved to JSON and
 * resumed with `resume` on a new connection (and in another process),
 * polls the same task and gets its result — the tool runs once. A plain
 * abort still cancels the task. A weft task server (`serveTasks`) over
 * real HTTP on 127.0.0.1, in both task shapes (2025-11-25 and 2026-07-28).
 */

import assert from "node:assert/strict";
import {
  Agent,
  exportTools,
  httpHandler,
  importTools,
  rawTool,
  Server,
} from "../mod.ts";
import {
  CallSuspendedError,
  type PendingCall,
  resume,
  type RunResult,
} from "../core.ts";
import { serveTasks } from "../tasks.ts";
import { memoryStore } from "../store.ts";
import { connectHttp } from "../src/runtime/client/connect_http.ts";
import { callTools, say, script } from "../testing.ts";
import { childEnv } from "./fixtures/runtime_server_helpers.ts";
import { passOn } from "./_helpers/pass_on.ts";
import { waitFor } from "./_helpers/wait.ts";

const CHILD = new URL("./fixtures/tasks_resume_client.ts", import.meta.url)
  .pathname;

/** Fails fast instead of hanging: waits until `check` holds, or throws `what`. */
async function until(check: () => boolean, what: string): Promise<void> {
  await waitFor(check, what, { signal: AbortSignal.timeout(15_000) });
}

/**
 * A weft task server over HTTP whose `crawl` tool runs until `finish()`
 * (or its cancel); it counts runs and records every method it receives.
 */
function slowServer() {
  const store = memoryStore();
  const gate = Promise.withResolvers<void>();
  const seen = {
    runs: 0,
    signal: undefined as AbortSignal | undefined,
    methods: [] as string[],
  };
  const crawl = rawTool({
    name: "crawl",
    description: "Crawls for a while.",
    taskSupport: "required",
    // Read-only: an importer runs it beside other calls (not a barrier).
    annotations: { readOnlyHint: true },
    run: async (_args, ctx) => {
      seen.runs++;
      seen.signal = ctx.signal;
      ctx.progress?.({ message: "crawling" });
      await new Promise<void>((resolve, reject) => {
        gate.promise.then(resolve);
        ctx.signal.addEventListener(
          "abort",
          () => reject(ctx.signal.reason),
          { once: true },
        );
      });
      return "crawled 3 pages";
    },
  });
  const handler = httpHandler(() => {
    const server = new Server({ name: "crawler", version: "1" });
    exportTools(server, crawl);
    serveTasks(server, { store, pollIntervalMs: 10 });
    return server;
  });
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (received, info) => {
      const { text, request } = await passOn(received, info);
      if (request.method === "POST") {
        try {
          const body = JSON.parse(text);
          if (typeof body?.method === "string") seen.methods.push(body.method);
        } catch { /* not ours to judge */ }
      }
      return await handler(request, info);
    },
  );
  return {
    store,
    seen,
    url: `http://127.0.0.1:${listener.addr.port}/mcp`,
    finish: () => gate.resolve(),
    async [Symbol.asyncDispose]() {
      gate.resolve();
      await handler.close();
      await listener.shutdown();
      await store.close();
    },
  };
}

/** Starts a run of `crawl` with `suspend`, suspends it once the task is polled. */
async function suspendedRun(
  server: ReturnType<typeof slowServer>,
  protocol: "legacy" | "modern",
): Promise<RunResult> {
  await using client = await connectHttp(server.url, { protocol });
  const { tools } = await importTools(client);
  const agent = new Agent(script(callTools({ name: "crawl" })), { tools });
  const suspend = new AbortController();
  const run = agent.generate("crawl it", { suspend: suspend.signal });
  await until(
    () => server.seen.runs === 1 && server.seen.methods.includes("tasks/get"),
    "the task never started",
  );
  suspend.abort();
  return await run;
}

function taskOf(pending: PendingCall): string {
  assert.ok(pending.suspended, "the pending call is suspended");
  assert.equal(pending.input, undefined);
  const state = JSON.parse(pending.suspended.state);
  assert.equal(typeof state.task, "string");
  return state.task;
}

for (const protocol of ["legacy", "modern"] as const) {
  const shape = protocol === "legacy" ? "2025-11-25" : "2026-07-28";
  Deno.test({
    name:
      `${shape} over HTTP: a suspended run parks the working task (no tasks/cancel); resumed from JSON on a new connection it polls the same task, the tool runs once`,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      await using server = slowServer();
      const first = await suspendedRun(server, protocol);
      assert.equal(first.pending.length, 1);
      const id = taskOf(first.pending[0]);
      assert.deepEqual(first.pending[0].suspended, {
        server: "crawler",
        tool: "crawl",
        message:
          `task ${id} of tool "crawl" is still running on server "crawler"`,
        state: JSON.stringify({ era: "running", task: id, shape }),
      });
      // The model read nothing of it: no result for the call.
      assert.equal(first.messages.length, 2);
      assert.equal(server.seen.signal?.aborted, false, "the tool still runs");
      assert.equal(server.seen.methods.includes("tasks/cancel"), false);
      const record = await server.store.get<{ status: string }>(`task/${id}`);
      assert.equal(record?.value.status, "working");

      // The host saves the run and restarts: a new connection, the run from JSON.
      const saved: RunResult = JSON.parse(JSON.stringify(first));
      const before = server.seen.methods.length;
      await using again = await connectHttp(server.url, { protocol });
      const { tools } = await importTools(again);
      const agent = new Agent(script(say("crawled")), { tools });
      const resumed = agent.generate(saved.messages, {
        decisions: saved.pending.map(resume),
      });
      await until(
        () => server.seen.methods.slice(before).includes("tasks/get"),
        "the resumed run never polled",
      );
      server.finish();
      const result = await resumed;
      assert.equal(result.text, "crawled");
      assert.deepEqual(result.pending, []);
      assert.equal(
        (result.resumed[0] as { content: string }).content,
        "crawled 3 pages",
      );
      assert.equal(server.seen.runs, 1, "the tool ran once");
      const after = server.seen.methods.slice(before);
      assert.equal(after.includes("tools/call"), false, "no second call");
      assert.equal(server.seen.methods.includes("tasks/cancel"), false);
    },
  });
}

Deno.test({
  name:
    "a client process restarted mid-task: the run saved by one process is resumed by another, which gets the result without a second call",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await using server = slowServer();
    const first = await suspendedRun(server, "legacy");
    const before = server.seen.methods.length;
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", CHILD, server.url],
      env: childEnv(),
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(JSON.stringify(first)));
    await writer.close();
    try {
      await until(
        () => server.seen.methods.slice(before).includes("tasks/get"),
        "the other process never polled",
      );
    } catch (err) {
      try {
        child.kill("SIGKILL");
      } catch { /* it ended already */ }
      await child.output();
      throw err;
    }
    server.finish();
    const out = await child.output();
    assert.equal(out.code, 0);
    const result = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.equal(result.resumed[0].content, "crawled 3 pages");
    assert.equal(result.text, "crawled");
    assert.equal(server.seen.runs, 1, "the tool ran once");
    assert.equal(
      server.seen.methods.slice(before).includes("tools/call"),
      false,
    );
    assert.equal(server.seen.methods.includes("tasks/cancel"), false);
  },
});

Deno.test({
  name:
    "suspend lets other calls in flight finish: a local tool's result joins the transcript, the task call parks",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await using server = slowServer();
    await using client = await connectHttp(server.url, { protocol: "legacy" });
    const { tools } = await importTools(client);
    const local = Promise.withResolvers<void>();
    let localSignal: AbortSignal | undefined;
    const slow = rawTool({
      name: "note",
      description: "Writes a note, slowly.",
      run: async (_args, ctx) => {
        localSignal = ctx.signal;
        await local.promise;
        return "noted";
      },
    });
    const agent = new Agent(
      script(callTools({ name: "crawl" }, { name: "note" })),
      { tools: [...tools, slow] },
    );
    const suspend = new AbortController();
    const run = agent.generate("crawl and note", { suspend: suspend.signal });
    await until(
      () =>
        server.seen.methods.includes("tasks/get") && localSignal !== undefined,
      "the calls never started",
    );
    suspend.abort();
    local.resolve();
    const result = await run;
    assert.equal(localSignal?.aborted, false);
    assert.deepEqual(result.pending.map((p) => p.name), ["crawl"]);
    const results = result.messages[2].content as readonly {
      content: string;
    }[];
    assert.deepEqual(results.map((r) => r.content), ["noted"]);
    assert.equal(server.seen.methods.includes("tasks/cancel"), false);
  },
});

Deno.test({
  name:
    "a plain abort still cancels the task (tasks/cancel reaches the tool), with suspend given too",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await using server = slowServer();
    await using client = await connectHttp(server.url, { protocol: "legacy" });
    const { tools } = await importTools(client);
    const agent = new Agent(script(callTools({ name: "crawl" })), { tools });
    const stop = new AbortController();
    const suspend = new AbortController();
    const run = agent.generate("crawl it", {
      signal: stop.signal,
      suspend: suspend.signal,
    });
    await until(
      () => server.seen.methods.includes("tasks/get"),
      "the task never started",
    );
    stop.abort(new Error("the user stopped the run"));
    await assert.rejects(run);
    await until(
      () => server.seen.signal?.aborted === true,
      "the task was not cancelled",
    );
    assert.equal(server.seen.signal?.reason?.name, "TaskCancelledError");
    assert.ok(server.seen.methods.includes("tasks/cancel"));
  },
});

Deno.test({
  name:
    "a resume whose state names no task fails the call with the pinned text and never calls the tool",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await using server = slowServer();
    const first = await suspendedRun(server, "legacy");
    const pending = first.pending[0];
    const forged: PendingCall = {
      ...pending,
      suspended: { ...pending.suspended!, state: '{"era":"running"}' },
    };
    await using again = await connectHttp(server.url, { protocol: "legacy" });
    const { tools } = await importTools(again);
    const agent = new Agent(script(say("ok")), { tools });
    const result = await agent.generate(first.messages, {
      decisions: [resume(forged)],
    });
    const read = result.resumed[0] as { content: string; isError: boolean };
    assert.equal(
      read.content,
      'mcp: cannot continue the suspended call of tool "crawl": its state names no task; call the tool again only if running it twice is safe',
    );
    assert.equal(read.isError, true);
    assert.equal(server.seen.runs, 1);
  },
});

Deno.test("resume takes only a suspended pending call; CallSuspendedError pins its text", () => {
  assert.throws(
    () => resume({ id: "call_1", name: "x", args: "{}" }),
    {
      name: "TypeError",
      message:
        "weft: resume takes a pending call that was suspended (an entry of RunResult.pending with suspended); use approve, deny, resolve or answer for the others",
    },
  );
  const err = new CallSuspendedError("crawl", {
    server: "s",
    tool: "crawl",
    message: "m",
    state: "{}",
  });
  assert.equal(err.message, 'weft: tool call suspended: tool "crawl"');
  assert.equal(err.name, "CallSuspendedError");
});

Deno.test("a run suspended between steps ends with its transcript whole and goes on with generate(messages)", async () => {
  const suspend = new AbortController();
  const note = rawTool({
    name: "note",
    description: "Notes.",
    run: () => {
      suspend.abort();
      return "noted";
    },
  });
  const agent = new Agent(script(callTools({ name: "note" }), say("done")), {
    tools: [note],
  });
  const first = await agent.generate("note it", { suspend: suspend.signal });
  assert.deepEqual(first.pending, []);
  assert.equal(first.steps.length, 1, "no further step started");
  assert.equal(first.messages.length, 3);
  const rest = await new Agent(script(say("done"))).generate(first.messages);
  assert.equal(rest.text, "done");
});
