/**
 * MCP Apps, a view's call of an approval-gated tool (issue 37: "through the
 * same policy, approval, scopes and pins as the agent's own calls"): it
 * parks in the run it belongs to, nothing runs; the page approves (the tool
 * runs once, the view's call is answered with its result, recorded as
 * app-made) or denies (nothing runs, the view reads `DENIED: <reason>`)
 * through `appHost`'s decisions route with the core `approve`/`deny`. With
 * pins, a changed view parks the same way (a denied one is never shown).
 */

import assert from "node:assert/strict";
import {
  Agent,
  approve,
  Client,
  deny,
  exportTools,
  importTools,
  InMemoryTransport,
  rawTool,
  resolve,
  Server,
} from "../mod.ts";
import { appHost, type AppHostHandler } from "../apps.ts";
import { callTools, say, script } from "../testing.ts";
import { ApprovalRequiredError, type ToolMiddleware } from "../core.ts";
import { memoryStore } from "../store.ts";
import type { PinStore } from "../bridge.ts";
import { atOnce } from "./_helpers/app_host_reads.ts";
import { waitFor } from "./_helpers/wait.ts";

const HOST = "http://host.test";
const SANDBOX = "http://sandbox.test";

async function rig(
  {
    pins,
    showHtml = "<!doctype html><p>show</p>",
    wrapTools = [],
    maxParkedCalls,
  }: {
    pins?: PinStore;
    showHtml?: string;
    wrapTools?: ToolMiddleware[];
    maxParkedCalls?: number;
  } = {},
) {
  let wipes = 0;
  let shows = 0;
  const server = new Server({ name: "clock", version: "1" });
  exportTools(
    server,
    rawTool({
      name: "show",
      description: "Shows the time.",
      app: { html: showHtml },
      run: () => `12:0${shows++}`,
    }),
    rawTool({
      name: "wipe",
      description: "Wipes the clock (gated).",
      app: { html: "<!doctype html><p>wipe</p>" },
      run: () => `wiped ${++wipes}`,
    }),
  );
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: "host", version: "1" });
  await client.connect(a);
  const { tools, appTools = [] } = await importTools(client, {
    apps: { server: "clock" },
    policy: { requireApproval: ["wipe"] },
  });
  const clock = { name: "clock", client, tools: [...tools, ...appTools] };
  const model = script(callTools({ name: "show" }), say("ok"));
  const handler = appHost([clock], {
    agent: new Agent(model, { tools: clock.tools, wrapTools }),
    hostOrigin: HOST,
    sandboxOrigin: SANDBOX,
    ...(pins === undefined ? {} : { pins }),
    ...(maxParkedCalls === undefined ? {} : { maxParkedCalls }),
  });
  return {
    handler,
    model,
    wipes: () => wipes,
    shows: () => shows,
    async [Symbol.asyncDispose]() {
      handler.close();
      await client.close();
    },
  };
}

function post(
  handler: AppHostHandler,
  path: string,
  body: unknown,
): Promise<Response> {
  return handler(
    new Request(HOST + path, { method: "POST", body: JSON.stringify(body) }),
  );
}

// Reads the run until `done` holds of it (the page's polling), failing fast.
async function until(
  handler: AppHostHandler,
  runId: string,
  done: (run: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  return await waitFor(
    async () => {
      const run = await (await handler(new Request(`${HOST}/runs/${runId}`)))
        .json();
      return done(run) && run as Record<string, unknown>;
    },
    "the run reaches the state",
    {
      signal: AbortSignal.timeout(5_000),
      everyMs: 2,
    },
  );
}

async function started(handler: AppHostHandler): Promise<string> {
  const res = await post(handler, "/runs", { input: "what time is it?" });
  const { runId } = await res.json();
  await until(handler, runId, (run) => run.status === "idle");
  return runId;
}

// Starts a run (the model shows the view) and has its view call "wipe":
// the view's call, still waiting, and the run as the page sees it parked.
async function parkedWipe(handler: AppHostHandler) {
  const runId = await started(handler);
  const viewCall = post(handler, `/runs/${runId}/views/call`, {
    server: "clock",
    name: "wipe",
    arguments: { hard: true },
  });
  const run = await until(handler, runId, (run) => run.pending !== undefined);
  return { runId, viewCall, run };
}

const PENDING = {
  type: "app_pending",
  from: "app",
  id: "app_call_1",
  server: "clock",
  tool: "wipe",
  input: { hard: true },
};

Deno.test("appHost: a view's call of a gated tool parks; approve runs it once, answers the view, recorded as app-made", async () => {
  await using r = await rig();
  const { runId, viewCall, run } = await parkedWipe(r.handler);
  // Parked: on the run's pending list and in its log; nothing ran.
  assert.deepEqual(run.pending, [PENDING]);
  assert.deepEqual(
    (run.log as { type: string }[]).filter((e) => e.type === "app_pending"),
    [PENDING],
  );
  assert.equal(r.wipes(), 0);
  // Only approve or deny, only a parked id.
  const wrong = await post(r.handler, `/runs/${runId}/decisions`, {
    decisions: [resolve("app_call_1", "done by hand")],
  });
  assert.equal(wrong.status, 400);
  assert.match(await wrong.text(), /takes approve or deny, got "resolve"/);
  const unknown = await post(r.handler, `/runs/${runId}/decisions`, {
    decisions: [approve("app_call_9")],
  });
  assert.equal(unknown.status, 404);
  assert.deepEqual((await unknown.json()).error, {
    gate: "unknown_call",
    message:
      `appHost: run ${runId} has no view call "app_call_9" waiting for approval`,
  });
  assert.equal(r.wipes(), 0);

  const decided = await post(r.handler, `/runs/${runId}/decisions`, {
    decisions: [approve("app_call_1")],
  });
  assert.equal(decided.status, 200);
  const result = { content: [{ type: "text", text: "wiped 1" }] };
  assert.deepEqual(await decided.json(), {
    decided: [{ id: "app_call_1", result }],
  });
  // The view's waiting tools/call is answered with the result.
  const answered = await viewCall;
  assert.equal(answered.status, 200);
  assert.deepEqual(await answered.json(), result);
  assert.equal(r.wipes(), 1);
  const after = await until(r.handler, runId, () => true);
  assert.equal(after.pending, undefined);
  assert.deepEqual(
    (after.log as { type: string }[]).filter((e) => e.type === "app_call"),
    [{
      type: "app_call",
      from: "app",
      id: "app_call_1",
      server: "clock",
      tool: "wipe",
      input: { hard: true },
      result,
      isError: false,
      decision: "approve",
    }],
  );
  // A replayed approval runs nothing again.
  const replay = await post(r.handler, `/runs/${runId}/decisions`, {
    decisions: [approve("app_call_1")],
  });
  assert.equal(replay.status, 404);
  await replay.body?.cancel();
  assert.equal(r.wipes(), 1);
  // The model never made the call.
  assert.equal(JSON.stringify(r.model.requests()).includes("wiped"), false);
});

Deno.test("appHost: a view's parked call denied never runs; the view reads DENIED: <reason>", async () => {
  await using r = await rig();
  const { runId, viewCall } = await parkedWipe(r.handler);
  const decided = await post(r.handler, `/runs/${runId}/decisions`, {
    decisions: [deny("app_call_1", "not on Fridays")],
  });
  assert.equal(decided.status, 200);
  const denied = {
    content: [{ type: "text", text: "DENIED: not on Fridays" }],
    isError: true,
  };
  assert.deepEqual((await decided.json()).decided, [{
    id: "app_call_1",
    result: denied,
  }]);
  const answered = await viewCall;
  assert.equal(answered.status, 200);
  assert.deepEqual(await answered.json(), denied);
  assert.equal(r.wipes(), 0);
  const after = await until(r.handler, runId, () => true);
  assert.equal(after.pending, undefined);
  const calls = (after.log as { type: string }[]).filter((e) =>
    e.type === "app_call"
  );
  assert.deepEqual(calls, [{
    type: "app_call",
    from: "app",
    id: "app_call_1",
    server: "clock",
    tool: "wipe",
    input: { hard: true },
    result: denied,
    isError: true,
    decision: "deny",
  }]);
});

Deno.test("appHost: closing the host answers a view's parked call instead of leaving it hanging", async () => {
  await using r = await rig();
  const { viewCall } = await parkedWipe(r.handler);
  r.handler.close();
  const answered = await viewCall;
  assert.equal(answered.status, 502);
  assert.match((await answered.json()).error.message, /appHost closed/);
  assert.equal(r.wipes(), 0);
});

Deno.test("appHost pins: a changed view denied is never shown and stays unpinned; approveView pins it", async () => {
  await using store = memoryStore();
  {
    await using first = await rig({ pins: store });
    const runId = await started(first.handler);
    const read = await post(first.handler, `/runs/${runId}/views/read`, {
      server: "clock",
      uri: "ui://clock/show",
    });
    assert.equal(read.status, 200);
    await read.body?.cancel();
  }
  const changed = "<!doctype html><script>steal()</script>";
  await using r = await rig({ pins: store, showHtml: changed });
  const runId = await started(r.handler);
  const read = () =>
    post(r.handler, `/runs/${runId}/views/read`, {
      server: "clock",
      uri: "ui://clock/show",
    });
  const parked = read();
  const run = await until(r.handler, runId, (run) => run.pending !== undefined);
  const [pending] = run.pending as { id: string; type: string }[];
  assert.equal(pending.type, "view_pending");
  const decided = await post(r.handler, `/runs/${runId}/decisions`, {
    decisions: [deny(pending.id, "looks wrong")],
  });
  assert.deepEqual(await decided.json(), {
    decided: [{ id: pending.id, decision: "deny" }],
  });
  const refused = await parked;
  assert.equal(refused.status, 403);
  const body = await refused.text();
  assert.equal(body.includes("steal()"), false);
  assert.deepEqual(JSON.parse(body).error, {
    gate: "view_changed",
    message:
      'appHost: the changed view ui://clock/show of server "clock" was not approved: DENIED: looks wrong',
  });
  // Denied, not pinned: the next read parks again.
  const again = read();
  const rerun = await until(
    r.handler,
    runId,
    (run) => (run.pending as unknown[] | undefined)?.length === 1,
  );
  assert.equal((rerun.pending as { id: string }[])[0].id, "app_view_2");
  // The host approves it itself: the next read is shown at once.
  await r.handler.approveView("clock", "ui://clock/show");
  const shown = await atOnce(r.handler, read(), { runId });
  assert.equal(shown.status, 200);
  assert.equal((await shown.json()).html, changed);
  await post(r.handler, `/runs/${runId}/decisions`, {
    decisions: [approve("app_view_2")],
  }).then((res) => res.body?.cancel());
  assert.equal((await again).status, 200);
  await (await again).body?.cancel();
});

Deno.test("appHost: a view's call middleware asks approval for parks with its request; approved only with what was shown", async () => {
  let armed = false;
  const request = {
    reason: "app_guard",
    message: "the guard asks before a view shows the time",
    digest: "d1",
  };
  // The host's own guard: once armed, "show" runs only when the approval
  // carries the digest it asked with.
  const guard: ToolMiddleware = (next) => async (call, ctx) => {
    if (armed && call.name === "show" && ctx.call?.approval?.digest !== "d1") {
      throw new ApprovalRequiredError(call.name, { request });
    }
    return await next(call, ctx);
  };
  await using r = await rig({ wrapTools: [guard] });
  const runId = await started(r.handler);
  assert.equal(r.shows(), 1); // the model's own call
  armed = true;
  const viewCall = post(r.handler, `/runs/${runId}/views/call`, {
    server: "clock",
    name: "show",
    arguments: {},
  });
  const run = await until(r.handler, runId, (run) => run.pending !== undefined);
  const pending = {
    type: "app_pending",
    from: "app",
    id: "app_call_1",
    server: "clock",
    tool: "show",
    input: {},
    approval: request,
  };
  assert.deepEqual(run.pending, [pending]);
  // An id alone approves nothing the guard asked about: parked again.
  const byId = await post(r.handler, `/runs/${runId}/decisions`, {
    decisions: [approve("app_call_1")],
  });
  assert.deepEqual(await byId.json(), {
    decided: [{ id: "app_call_1", pending }],
  });
  assert.equal(r.shows(), 1);
  const shown = await post(r.handler, `/runs/${runId}/decisions`, {
    decisions: [{ type: "approve", id: "app_call_1", approval: request }],
  });
  assert.equal(shown.status, 200);
  const [decision] = (await shown.json()).decided;
  assert.equal(decision.pending, undefined, "parked again");
  assert.equal(decision.result.content[0].text, "12:01");
  const answered = await viewCall;
  assert.equal(answered.status, 200);
  assert.deepEqual((await answered.json()).content, [{
    type: "text",
    text: "12:01",
  }]);
  assert.equal(r.shows(), 2);
});

Deno.test("appHost: a flood of a view's gated calls stops at maxParkedCalls (429, nothing runs)", async () => {
  await using r = await rig({ maxParkedCalls: 1 });
  const { runId, viewCall } = await parkedWipe(r.handler);
  const flood = await atOnce(
    r.handler,
    post(r.handler, `/runs/${runId}/views/call`, {
      server: "clock",
      name: "wipe",
      arguments: {},
    }),
    { runId },
  );
  assert.equal(flood.status, 429);
  assert.equal(
    await flood.text(),
    "appHost: 1 requests of this run's views wait for approval (maxParkedCalls); decide on them first",
  );
  const run = await until(r.handler, runId, () => true);
  assert.equal((run.pending as unknown[]).length, 1);
  await post(r.handler, `/runs/${runId}/decisions`, {
    decisions: [deny("app_call_1", "no")],
  }).then((res) => res.body?.cancel());
  await (await viewCall).body?.cancel();
  assert.equal(r.wipes(), 0);
});
