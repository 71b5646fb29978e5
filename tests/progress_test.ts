/**
 * The tool progress channel end to end (ADR 0066): `ctx.progress` in the
 * core (tool_progress events, invoke, callTool), the export (a plain tool's
 * notifications/progress), the import (remote progress into ctx.progress
 * and the loop's events) and a chain export → import → export.
 */

import assert from "node:assert/strict";
import { z } from "zod";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import {
  Agent,
  exportTools,
  importTools,
  rawTool,
  type RunEvent,
  serveAgent,
  tool,
  type ToolContext,
} from "../mod.ts";
import type { ToolProgress } from "../core.ts";
import { toolProgressMessage } from "../src/bridge/_progress.ts";
import { callTools, say, script } from "../testing.ts";
import { connected, onlyText } from "./_helpers/export_pair.ts";

const tick = (ms = 0): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/** Reports `updates` one by one (a tick apart), then answers `done`. */
function reporter(name: string, updates: ToolProgress[]) {
  return tool({
    name,
    description: "reports progress",
    input: z.object({}),
    run: async (_input, ctx) => {
      for (const update of updates) {
        ctx.progress?.(update);
        await tick();
      }
      return "done";
    },
  });
}

function toolEvents(events: RunEvent[]): RunEvent[] {
  return events.filter((e) => e.type.startsWith("tool_"));
}

Deno.test("core: tool_progress events sit between start and finish, seq gap-free and ordered", async () => {
  const events: RunEvent[] = [];
  const agent = new Agent(
    script(callTools({ name: "a" }, { name: "b" }), say("ok")),
    {
      tools: [
        reporter("a", [{ progress: 1, total: 2, message: "half" }, {
          progress: 2,
          total: 2,
        }]),
        reporter("b", [{ message: "working" }]),
      ],
      onEvent: (e) => events.push(e),
    },
  );
  await agent.generate("go", { runId: "r1" });
  const tools = toolEvents(events) as (RunEvent & { seq: number })[];
  assert.deepEqual(tools.map((e) => e.seq), tools.map((_, i) => i + 1));
  const progress = tools.filter((e) => e.type === "tool_progress");
  assert.deepEqual(
    progress.map(({ seq: _seq, callId: _id, ...rest }) => rest),
    [
      {
        type: "tool_progress",
        runId: "r1",
        name: "a",
        progress: 1,
        total: 2,
        message: "half",
      },
      { type: "tool_progress", runId: "r1", name: "b", message: "working" },
      { type: "tool_progress", runId: "r1", name: "a", progress: 2, total: 2 },
    ],
  );
  for (const p of progress) {
    const start = tools.findIndex((e) =>
      e.type === "tool_start" && e.callId === p.callId
    );
    const finish = tools.findIndex((e) =>
      e.type === "tool_finish" && e.callId === p.callId
    );
    const at = tools.indexOf(p);
    assert.ok(
      start < at && at < finish,
      `${p.name}: start < progress < finish`,
    );
  }
});

Deno.test("core: a non-finite number or a non-string message is left out of the event", async () => {
  const events: RunEvent[] = [];
  const odd = rawTool({
    name: "odd",
    description: "",
    run: (_args, ctx) => {
      ctx.progress?.({ progress: NaN, total: Infinity, message: 7 as never });
      ctx.progress?.(null as never);
      return "ok";
    },
  });
  const agent = new Agent(script(callTools({ name: "odd" }), say("ok")), {
    tools: [odd],
    onEvent: (e) => events.push(e),
  });
  await agent.generate("go");
  const progress = events.filter((e) => e.type === "tool_progress");
  assert.equal(progress.length, 2);
  for (const p of progress) {
    assert.deepEqual(Object.keys(p), [
      "type",
      "runId",
      "seq",
      "callId",
      "name",
    ]);
  }
});

Deno.test("core: no listener, no ctx.progress; invoke and callTool pass theirs", async () => {
  const seen: (ToolContext["progress"])[] = [];
  const probe = rawTool({
    name: "probe",
    description: "",
    run: (_args, ctx) => {
      seen.push(ctx.progress);
      ctx.progress?.({ progress: 1, message: "m" });
      return "ok";
    },
  });
  const agent = new Agent(script(callTools({ name: "probe" }), say("ok")), {
    tools: [probe],
  });
  await agent.generate("go");
  await probe.invoke("{}");
  await agent.callTool("probe", "{}");
  assert.deepEqual(seen, [undefined, undefined, undefined]);

  const got: ToolProgress[] = [];
  await probe.invoke("{}", { progress: (u) => got.push(u) });
  await agent.callTool("probe", "{}", { progress: (u) => got.push(u) });
  assert.deepEqual(got, [{ progress: 1, message: "m" }, {
    progress: 1,
    message: "m",
  }]);
});

Deno.test("core: nothing after the call's tool_finish, after its timeout, or after cancellation", async (t) => {
  await t.step("after finish", async () => {
    let late: ToolContext["progress"];
    const events: RunEvent[] = [];
    const leaks = rawTool({
      name: "leaks",
      description: "",
      run: (_args, ctx) => {
        late = ctx.progress;
        return "ok";
      },
    });
    const agent = new Agent(script(callTools({ name: "leaks" }), say("ok")), {
      tools: [leaks],
      onEvent: (e) => events.push(e),
    });
    await agent.generate("go");
    assert.equal(typeof late, "function");
    const count = events.length;
    late?.({ message: "too late" });
    assert.equal(events.length, count);
    assert.equal(events.some((e) => e.type === "tool_progress"), false);
  });

  await t.step("after the call's timeout", async () => {
    const events: RunEvent[] = [];
    const reported = Promise.withResolvers<void>();
    const slow = rawTool({
      name: "slow",
      description: "",
      timeout: 5,
      run: (_args, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener("abort", () => {
            ctx.progress?.({ message: "after abort" });
            reported.resolve();
            reject(ctx.signal.reason);
          });
        }),
    });
    const agent = new Agent(script(callTools({ name: "slow" }), say("ok")), {
      tools: [slow],
      onEvent: (e) => events.push(e),
    });
    await agent.generate("go");
    await reported.promise;
    assert.deepEqual(toolEvents(events).map((e) => e.type), [
      "tool_start",
      "tool_finish",
    ]);
  });

  await t.step("after cancellation", async () => {
    const events: RunEvent[] = [];
    const controller = new AbortController();
    const started = Promise.withResolvers<ToolContext>();
    const waits = rawTool({
      name: "waits",
      description: "",
      run: (_args, ctx) => {
        ctx.progress?.({ message: "before" });
        started.resolve(ctx);
        return new Promise((_resolve, reject) =>
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))
        );
      },
    });
    const agent = new Agent(script(callTools({ name: "waits" }), say("no")), {
      tools: [waits],
      onEvent: (e) => events.push(e),
    });
    const run = agent.generate("go", { signal: controller.signal });
    const ctx = await started.promise;
    controller.abort(new Error("stop"));
    ctx.progress?.({ message: "after" });
    await assert.rejects(run);
    const messages = events.flatMap((e) =>
      e.type === "tool_progress" ? [e.message] : []
    );
    assert.deepEqual(messages, ["before"]);
  });
});

Deno.test("export: a plain tool's progress reaches the client's onprogress before the result, strictly increasing", async () => {
  let late: ToolContext["progress"];
  const plain = tool({
    name: "plain",
    description: "",
    input: z.object({}),
    run: async (_input, ctx) => {
      late = ctx.progress;
      // none given → last+1; 5 kept; 3 (not above 5) → 6; 7 kept.
      for (
        const update of [
          { message: "starting" },
          { progress: 5, total: 10 },
          { progress: 3, total: 10, message: "back" },
          { progress: 7, total: 10 },
        ]
      ) {
        ctx.progress?.(update);
        await tick();
      }
      return "plain done";
    },
  });
  await using pair = await connected((server) => exportTools(server, plain));
  const seen: Progress[] = [];
  const res = await pair.client.callTool(
    { name: "plain", arguments: {} },
    undefined,
    { onprogress: (p) => seen.push(p) },
  );
  assert.equal(onlyText(res as never), "plain done");
  assert.deepEqual(seen, [
    { progress: 1, message: "starting" },
    { progress: 5, total: 10 },
    { progress: 6, total: 10, message: "back" },
    { progress: 7, total: 10 },
  ]);
  late?.({ message: "after the result" });
  await tick(10);
  const methods = pair.fromServer.map((m) =>
    "method" in m ? m.method : "result" in m ? "result" : "other"
  );
  const notes = methods.filter((m) => m === "notifications/progress").length;
  assert.equal(notes, 4, "nothing after the result");
  assert.ok(
    methods.lastIndexOf("notifications/progress") <
      methods.lastIndexOf("result"),
  );
});

Deno.test("export: without a progress token the tool gets no ctx.progress and nothing is sent", async () => {
  const seen: unknown[] = [];
  const probe = rawTool({
    name: "probe",
    description: "",
    run: (_args, ctx) => {
      seen.push(ctx.progress);
      return "ok";
    },
  });
  await using pair = await connected((server) => exportTools(server, probe));
  await pair.client.callTool({ name: "probe", arguments: {} });
  assert.deepEqual(seen, [undefined]);
  assert.equal(
    pair.fromServer.some((m) =>
      "method" in m && m.method === "notifications/progress"
    ),
    false,
  );
});

Deno.test("export: serveAgent forwards child tools' progress in its cadence, and its tools get the channel", async () => {
  const lookup = reporter("lookup", [{ message: "querying" }, {
    progress: 1,
    total: 4,
  }]);
  const agent = new Agent(
    script(callTools({ name: "lookup" }), say("found")),
    { name: "support", tools: [lookup] },
  );
  await using pair = await connected((server) =>
    serveAgent(server, agent, "d")
  );
  const seen: Progress[] = [];
  const res = await pair.client.callTool(
    { name: "support", arguments: { prompt: "go" } },
    undefined,
    { onprogress: (p) => seen.push(p) },
  );
  assert.equal(onlyText(res as never), "found");
  assert.deepEqual(seen, [
    { progress: 1, message: 'tool "lookup": querying' },
    { progress: 2, message: 'tool "lookup": 1/4' },
    { progress: 3, message: 'tool "lookup" finished' },
    { progress: 4, message: "step 1 finished" },
    { progress: 5, message: "step 2 finished" },
  ]);
  const direct: Progress[] = [];
  await pair.client.callTool({ name: "lookup", arguments: {} }, undefined, {
    onprogress: (p) => direct.push(p),
  });
  assert.deepEqual(direct, [
    { progress: 1, message: "querying" },
    { progress: 2, total: 4 },
  ]);
});

Deno.test("export: child progress messages without a message", () => {
  assert.equal(toolProgressMessage({ name: "x", message: "m" }), 'tool "x": m');
  assert.equal(
    toolProgressMessage({ name: "x", progress: 2, total: 5 }),
    'tool "x": 2/5',
  );
  assert.equal(toolProgressMessage({ name: "x", progress: 2 }), 'tool "x": 2');
  assert.equal(toolProgressMessage({ name: "x" }), 'tool "x": progress');
});

const remote = reporter("remote", [
  { progress: 0, total: 100, message: "begin" },
  { progress: 50, total: 100 },
  { progress: 100 },
]);

Deno.test("import: remote progress reaches ctx.progress as given; no listener, no token", async () => {
  await using pair = await connected((server) => exportTools(server, remote));
  const { tools } = await importTools(pair.client);
  const got: ToolProgress[] = [];
  assert.equal(
    await tools[0].invoke("{}", { progress: (u) => got.push(u) }),
    "done",
  );
  assert.deepEqual(got, [
    { progress: 0, total: 100, message: "begin" },
    { progress: 50, total: 100 },
    { progress: 100 },
  ]);
  const signal = new AbortController().signal;
  const got2: ToolProgress[] = [];
  await tools[0].invoke("{}", { signal, progress: (u) => got2.push(u) });
  assert.equal(got2.length, 3, "with a signal too");
  const before = pair.fromServer.length;
  await tools[0].invoke("{}");
  await tools[0].invoke("{}", { signal });
  const notes = pair.fromServer.slice(before).filter((m) =>
    "method" in m && m.method === "notifications/progress"
  );
  assert.equal(notes.length, 0, "no onprogress, so no token, so no progress");
});

Deno.test("import: a weft agent over an imported tool sees tool_progress events", async () => {
  await using pair = await connected((server) => exportTools(server, remote));
  const { tools } = await importTools(pair.client, { prefix: "r_" });
  const events: RunEvent[] = [];
  const agent = new Agent(script(callTools({ name: "r_remote" }), say("ok")), {
    tools,
    onEvent: (e) => events.push(e),
  });
  await agent.generate("go");
  assert.deepEqual(
    toolEvents(events).map((e) =>
      e.type === "tool_progress"
        ? [e.type, e.name, e.progress, e.total, e.message]
        : [e.type]
    ),
    [
      ["tool_start"],
      ["tool_progress", "r_remote", 0, 100, "begin"],
      ["tool_progress", "r_remote", 50, 100, undefined],
      ["tool_progress", "r_remote", 100, undefined, undefined],
      ["tool_finish"],
    ],
  );
});

Deno.test("chain: export → import → export carries progress through", async () => {
  await using inner = await connected((server) => exportTools(server, remote));
  const { tools } = await importTools(inner.client);
  await using outer = await connected((server) =>
    exportTools(server, ...tools)
  );
  const seen: Progress[] = [];
  const res = await outer.client.callTool(
    { name: "remote", arguments: {} },
    undefined,
    { onprogress: (p) => seen.push(p) },
  );
  assert.equal(onlyText(res as never), "done");
  assert.deepEqual(seen, [
    { progress: 0, total: 100, message: "begin" },
    { progress: 50, total: 100 },
    { progress: 100 },
  ]);
});
