import assert from "node:assert/strict";
import {
  Agent,
  RunError,
  type RunEvent,
  ToolError,
  type ToolOptions,
} from "../mod.ts";
import {
  ApprovalRequiredError,
  type ToolMiddleware,
  type ToolResultPart,
  ToolTimeoutError,
} from "../core.ts";
import { rawTool, type RawToolDef } from "../src/core/tool.ts";
import { callTools, say, script } from "../testing.ts";
import { type Latch, latch, waitFor } from "./_helpers/wait.ts";

type Tool = ReturnType<typeof rawTool>;

function results(
  messages: readonly { role: string; content: readonly unknown[] }[],
  index = 2,
): ToolResultPart[] {
  const message = messages[index];
  assert.equal(message.role, "tool");
  return message.content as ToolResultPart[];
}

function contents(parts: readonly ToolResultPart[]): string[] {
  return parts.map((p) => p.content);
}

/**
 * A handler that never ends by itself: rejects with the signal's reason once
 * it aborts (or, were it never aborted, fails the test after 10 s).
 */
function hang(signal: AbortSignal): Promise<never> {
  const either = AbortSignal.any([
    signal,
    AbortSignal.timeout(10_000),
  ]);
  return new Promise((_resolve, reject) => {
    const settle = () =>
      reject(signal.aborted ? signal.reason : new Error("never aborted"));
    if (either.aborted) return settle();
    either.addEventListener("abort", settle, { once: true });
  });
}

/** Resolves once `signal` aborts (a call's timeout fired). */
function aborted(signal: AbortSignal): Promise<void> {
  return hang(signal).catch(() => {});
}

function simple(
  name: string,
  run: RawToolDef["run"],
  options: ToolOptions = {},
): Tool {
  return rawTool({ name, description: `The ${name} tool.`, run, ...options });
}

Deno.test("sibling isolation: a failing, throwing or timed-out call never cancels its siblings", async () => {
  let siblingAborted: boolean | undefined;
  const slowTimedOut = latch();
  const tools = [
    simple("fails", () => {
      throw new Error("warehouse unreachable");
    }),
    simple("panics", () => {
      throw "bang";
    }),
    simple("coded", () => {
      throw new ToolError("RETRY", "try again later");
    }),
    simple("slow", (_a, ctx) => {
      void aborted(ctx.signal).then(() => slowTimedOut.open());
      return hang(ctx.signal);
    }, { timeout: 20 }),
    simple("fine", async (_a, ctx) => {
      // Still running when its sibling times out.
      await slowTimedOut.promise;
      siblingAborted = ctx.signal.aborted;
      return "fine";
    }),
  ];
  const model = script(
    callTools({ name: "fails" }, { name: "panics" }, { name: "coded" }, {
      name: "slow",
    }, { name: "fine" }),
    say("done"),
  );
  const result = await new Agent(model, { tools, parallelism: 5 }).generate(
    "go",
  );
  assert.deepEqual(contents(results(result.messages)), [
    "warehouse unreachable",
    'tool "panics" panicked: bang',
    "RETRY: try again later",
    'tool "slow" timed out after 20ms',
    "fine",
  ]);
  assert.deepEqual(results(result.messages).map((p) => p.isError), [
    true,
    true,
    true,
    true,
    false,
  ]);
  assert.equal(siblingAborted, false);
  assert.equal(result.text, "done");
});

Deno.test("a TypeError from a handler is a panic; its text names the tool", async () => {
  const tools = [simple("bug", () => {
    throw new TypeError("x is undefined");
  })];
  const result = await new Agent(
    script(callTools({ name: "bug" }), say("ok")),
    { tools },
  ).generate("go");
  assert.deepEqual(contents(results(result.messages)), [
    'tool "bug" panicked: TypeError: x is undefined',
  ]);
});

Deno.test("calls start in call order and results land in call order, whatever order they finish in", async () => {
  const finished: string[] = [];
  const events: RunEvent[] = [];
  // All three start; then b ends, c after b, a after c.
  const started = latch();
  const ended: Record<string, Latch<void>> = {
    a: latch(),
    b: latch(),
    c: latch(),
  };
  const after: Record<string, string | undefined> = { a: "c", c: "b" };
  let running = 0;
  const t = simple("t", async (args) => {
    const key = JSON.parse(args).k as string;
    if (++running === 3) started.open();
    await started.promise;
    const first = after[key];
    if (first !== undefined) await ended[first].promise;
    finished.push(key);
    ended[key].open();
    return key;
  });
  const model = script(
    callTools(
      { name: "t", args: { k: "a" } },
      { name: "t", args: { k: "b" } },
      { name: "t", args: { k: "c" } },
    ),
    say("done"),
  );
  const result = await new Agent(model, {
    tools: [t],
    onEvent: (e) => events.push(e),
  }).generate("go");
  assert.deepEqual(finished, ["b", "c", "a"]);
  assert.deepEqual(contents(results(result.messages)), ["a", "b", "c"]);
  const starts = events.filter((e) => e.type === "tool_start");
  assert.deepEqual(starts.map((e) => e.callId), ["call_1", "call_2", "call_3"]);
  const finishes = events.filter((e) => e.type === "tool_finish");
  assert.deepEqual(finishes.map((e) => e.callId), [
    "call_2",
    "call_3",
    "call_1",
  ]);
  const seqs = events.flatMap((e) => ("seq" in e ? [e.seq] : []));
  assert.deepEqual(seqs, [1, 2, 3, 4, 5, 6]);
});

Deno.test("at most `parallelism` calls run at once (default 4)", async () => {
  for (
    const [parallelism, expected] of [[undefined, 4], [2, 2], [0, 4]] as const
  ) {
    let now = 0;
    let peak = 0;
    let started = 0;
    const limit = expected;
    // Calls hold until `limit` have run at once (or every call has
    // started): more at once shows in the peak, fewer never lets go.
    const t = simple("t", async () => {
      started++;
      peak = Math.max(peak, ++now);
      await waitFor(
        () => peak >= limit || started === 9,
        `${limit} calls in flight`,
        { everyMs: 1 },
      );
      now--;
      return "ok";
    });
    const calls = Array.from({ length: 9 }, () => ({ name: "t" }));
    await new Agent(script(callTools(...calls), say("done")), {
      tools: [t],
      parallelism,
    }).generate("go");
    assert.equal(peak, expected, `parallelism ${parallelism}`);
  }
});

Deno.test("a sequential tool is a barrier: it waits for calls in flight, runs alone, then parallelism resumes", async () => {
  const log: string[] = [];
  // What each call waits for before it ends: b ends before a, c before d,
  // and c holds until d has started (both run at once after the barrier).
  const awaits: Record<string, string> = {
    a: "end b",
    c: "start d",
    d: "end c",
  };
  const t = simple("t", async (args) => {
    const key = JSON.parse(args).k as string;
    log.push(`start ${key}`);
    const event = awaits[key];
    if (event !== undefined) {
      await waitFor(() => log.includes(event), event, { everyMs: 1 });
    }
    log.push(`end ${key}`);
    return key;
  });
  const barrier = simple("barrier", async () => {
    log.push("start S");
    await Promise.resolve();
    log.push("end S");
    return "S";
  }, { sequential: true });
  const model = script(
    callTools(
      { name: "t", args: { k: "a" } },
      { name: "t", args: { k: "b" } },
      { name: "barrier" },
      { name: "t", args: { k: "c" } },
      { name: "t", args: { k: "d" } },
    ),
    say("done"),
  );
  const result = await new Agent(model, { tools: [t, barrier] }).generate("go");
  assert.deepEqual(log, [
    "start a",
    "start b",
    "end b",
    "end a",
    "start S",
    "end S",
    "start c",
    "start d",
    "end c",
    "end d",
  ]);
  assert.deepEqual(contents(results(result.messages)), [
    "a",
    "b",
    "S",
    "c",
    "d",
  ]);
});

Deno.test("timeouts: tool-level overrides the agent's, tool 0 lifts it, the text renders Go's duration", async () => {
  // "lifted" answers only once "inherits" has timed out (the agent's 50 ms).
  const inheritedTimedOut = latch();
  const hangs: RawToolDef["run"] = (_a, ctx) => hang(ctx.signal);
  const tools = [
    simple("inherits", (_a, ctx) => {
      void aborted(ctx.signal).then(() => inheritedTimedOut.open());
      return hang(ctx.signal);
    }),
    simple("own", hangs, { timeout: 1500 }),
    simple("tight", hangs, { timeout: 10 }),
    simple("lifted", async (_a, ctx) => {
      await inheritedTimedOut.promise;
      await Promise.resolve();
      return ctx.signal.aborted ? "aborted" : "in time";
    }, { timeout: 0 }),
  ];
  const model = script(
    callTools({ name: "inherits" }, { name: "tight" }, { name: "lifted" }),
    say("done"),
  );
  const result = await new Agent(model, { tools, timeout: 50 }).generate("go");
  assert.deepEqual(contents(results(result.messages)), [
    'tool "inherits" timed out after 50ms',
    'tool "tight" timed out after 10ms',
    "in time",
  ]);
  assert.equal(tools[1].timeout, 1500);
});

Deno.test("the timeout aborts the handler's signal with a ToolTimeoutError reason", async () => {
  let reason: unknown;
  const t = simple("slow", (_a, ctx) =>
    new Promise<string>((_res, rej) => {
      ctx.signal.addEventListener("abort", () => {
        reason = ctx.signal.reason;
        rej(ctx.signal.reason);
      });
    }), { timeout: 25 });
  const model = script(callTools({ name: "slow" }), say("done"));
  const result = await new Agent(model, { tools: [t] }).generate("go");
  assert.ok(reason instanceof ToolTimeoutError);
  assert.equal((reason as Error).message, 'tool "slow" timed out after 25ms');
  assert.equal(
    contents(results(result.messages))[0],
    'tool "slow" timed out after 25ms',
  );
});

Deno.test("every outcome is capped: default 64 KiB, agent cap, tool cap overrides, tool 0 lifts", async () => {
  const big = simple("big", () => "x".repeat(70_000));
  const result = await new Agent(
    script(callTools({ name: "big" }), say("ok")),
    { tools: [big] },
  ).generate("go");
  assert.equal(
    contents(results(result.messages))[0],
    "x".repeat(65_536) + "\n…[truncated 4464 bytes]",
  );

  const events: RunEvent[] = [];
  const tools = [
    simple("agentcap", () => "x".repeat(500)),
    simple("ownCap", () => "x".repeat(1000), { maxResultBytes: 10 }),
    simple("uncapped", () => "y".repeat(20), { maxResultBytes: 0 }),
    simple("failing", () => {
      throw new Error("e".repeat(30));
    }),
  ];
  const model = script(
    callTools({ name: "agentcap" }, { name: "ownCap" }, { name: "uncapped" }, {
      name: "failing",
    }, {
      name: "unknown_tool_with_a_long_name",
    }),
    say("ok"),
  );
  const capped = await new Agent(model, {
    tools,
    maxResultBytes: 8,
    onEvent: (e) => events.push(e),
  })
    .generate("go");
  assert.deepEqual(contents(results(capped.messages)), [
    "xxxxxxxx\n…[truncated 492 bytes]",
    "xxxxxxxxxx\n…[truncated 990 bytes]",
    "y".repeat(20),
    "eeeeeeee\n…[truncated 22 bytes]",
    "NO_SUCH_\n…[truncated 51 bytes]",
  ]);
  for (const part of results(capped.messages)) {
    const finish = events.find((e) =>
      e.type === "tool_finish" && e.callId === part.callId
    );
    assert.equal(
      finish?.type === "tool_finish" && finish.content,
      part.content,
      "tool_finish carries the capped text",
    );
  }
});

Deno.test("an approval-gated call is parked: tool_start, no tool_finish, no result, the run ends with it pending", async () => {
  let refunded = false;
  const events: RunEvent[] = [];
  const tools = [
    simple("refund", () => {
      refunded = true;
      return "refunded";
    }, { requireApproval: true }),
    simple("lookup", () => "order 7"),
  ];
  const model = script(
    callTools({ name: "refund", args: { order: 7 } }, { name: "lookup" }),
    say("never reached"),
  );
  const result = await new Agent(model, {
    tools,
    onEvent: (e) => events.push(e),
  }).generate("go");
  assert.equal(refunded, false);
  assert.deepEqual(result.pending, [{
    id: "call_1",
    name: "refund",
    args: '{"order":7}',
  }]);
  assert.deepEqual(results(result.messages), [
    {
      type: "tool_result",
      callId: "call_2",
      name: "lookup",
      content: "order 7",
      isError: false,
    },
  ]);
  const toolEvents = events.filter((e) =>
    e.type === "tool_start" || e.type === "tool_finish"
  )
    .map((e) => `${e.type}:${e.callId}`);
  assert.deepEqual(toolEvents, [
    "tool_start:call_1",
    "tool_start:call_2",
    "tool_finish:call_2",
  ]);
  const finish = events.at(-1);
  assert.equal(finish?.type, "run_finish");
  assert.deepEqual(
    finish?.type === "run_finish" && finish.pending,
    result.pending,
  );
  assert.equal(model.requests().length, 1);
});

Deno.test("middleware can park a call by rejecting with ApprovalRequiredError", async () => {
  const gate: ToolMiddleware = (next) => (call, ctx) =>
    call.name === "lookup"
      ? Promise.reject(new ApprovalRequiredError(call.name))
      : next(call, ctx);
  const model = script(callTools({ name: "lookup" }), say("never"));
  const result = await new Agent(model, {
    tools: [simple("lookup", () => "x")],
    wrapTools: [gate],
  })
    .generate("go");
  assert.deepEqual(result.pending.map((p) => p.name), ["lookup"]);
  assert.equal(
    result.messages.length,
    2,
    "no tool message when every call is parked",
  );
});

Deno.test("a call that cannot get a slot because the run was cancelled reads run canceled before the tool started", async () => {
  const controller = new AbortController();
  const started: string[] = [];
  const t = simple("t", (args, ctx) => {
    started.push(args);
    controller.abort(new Error("user hit stop"));
    return hang(ctx.signal);
  });
  const model = script(
    callTools({ name: "t", args: "1" }, { name: "t", args: "2" }, {
      name: "t",
      args: "3",
    }),
  );
  const err = await new Agent(model, { tools: [t], parallelism: 1 })
    .generate("go", { signal: controller.signal })
    .then(() => assert.fail("should fail"), (e: unknown) => e);
  assert.ok(err instanceof RunError);
  assert.equal(err.message, "weft: run failed at step 1: user hit stop");
  assert.deepEqual(started, ["1"]);
  assert.deepEqual(contents(results(err.result.messages)), [
    "user hit stop",
    "run canceled before the tool started",
    "run canceled before the tool started",
  ]);
});

Deno.test("middleware order: agent's outermost, then the tool's own, then the handler; ctx.call describes the call", async () => {
  const log: string[] = [];
  const tag =
    (label: string): ToolMiddleware => (next) => async (call, ctx) => {
      log.push(`${label}>${call.id}`);
      const out = await next(call, ctx);
      log.push(`<${label}`);
      return out;
    };
  let info: unknown;
  const t = rawTool({
    name: "t",
    description: "d",
    wrap: [tag("tool1"), tag("tool2")],
    run: (_a, ctx) => {
      info = ctx.call;
      log.push("handler");
      return "ok";
    },
  });
  const model = script(callTools({ name: "t", id: "abc" }), say("done"));
  const result = await new Agent(model, {
    tools: [t],
    wrapTools: [tag("agent1"), tag("agent2")],
  })
    .generate("go", { runId: "r" });
  assert.deepEqual(log, [
    "agent1>abc",
    "agent2>abc",
    "tool1>abc",
    "tool2>abc",
    "handler",
    "<tool2",
    "<tool1",
    "<agent2",
    "<agent1",
  ]);
  assert.deepEqual(info, {
    runId: "r",
    step: 0,
    callId: "abc",
    name: "t",
    approved: false,
  });
  assert.equal(result.text, "done");
});

Deno.test("a middleware error renders like a handler error", async () => {
  const refuse: ToolMiddleware = () => () =>
    Promise.reject(new Error("searching is disabled today"));
  const model = script(callTools({ name: "t" }), say("ok"));
  const result = await new Agent(model, {
    tools: [simple("t", () => "x")],
    wrapTools: [refuse],
  }).generate("go");
  assert.deepEqual(contents(results(result.messages)), [
    "searching is disabled today",
  ]);
});
