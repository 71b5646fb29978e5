/**
 * Code mode keeps every gate of a direct call: scopes of the verified
 * caller, policy middleware that asks for approval (its reason kept), tools
 * offered only through code, a program that catches a parked call cannot go
 * on calling, and a program that diverges from its journal asks again.
 */

import assert from "node:assert/strict";
import { Agent, approve, tool, type ToolDef } from "../mod.ts";
import { ApprovalRequiredError, type ToolMiddleware } from "../core.ts";
import { callTools, say, script } from "../testing.ts";
import { subprocessExecutor } from "../sandbox.ts";
import { z } from "zod";

function counted(name: string, runs: string[], gated = false): ToolDef {
  return tool({
    name,
    description: `The ${name} tool.`,
    input: z.object({ n: z.number() }),
    requireApproval: gated,
    scopes: name === "place_order" ? ["orders:write"] : undefined,
    run: ({ n }) => {
      runs.push(`${name} ${n}`);
      return `${name} ran with ${n}`;
    },
  });
}

function codeCall(code: string) {
  return callTools({ name: "code", args: { code } });
}

Deno.test("code mode: a program's call needs the caller's scopes, as a direct call does", async () => {
  await using executor = subprocessExecutor();
  const runs: string[] = [];
  const agent = new Agent(
    script(
      codeCall(
        "async () => { try { await codemode.place_order({ n: 1 }); } catch (e) { return e.message; } }",
      ),
      say("ok"),
    ),
    { tools: [counted("place_order", runs)], codeMode: { executor } },
  );
  const result = await agent.generate("order", {
    auth: { token: "t", clientId: "c", scopes: ["orders:read"] },
  });
  assert.equal(
    result.steps[0].results[0].content,
    'INSUFFICIENT_SCOPE: tool "place_order" needs the scope orders:write, which the caller\'s token lacks; the tool did not run',
  );
  assert.deepEqual(runs, []);
});

Deno.test("code mode: policy middleware that asks for approval parks the program with its own reason", async () => {
  await using executor = subprocessExecutor();
  const runs: string[] = [];
  const policy: ToolMiddleware = (next) => (call, ctx) => {
    if (call.name === "pay" && ctx.call?.approved !== true) {
      throw new ApprovalRequiredError(call.name, {
        request: { reason: "over_budget", message: "payments need a person" },
      });
    }
    return next(call, ctx);
  };
  const build = (turns: Parameters<typeof script>) =>
    new Agent(script(...turns), {
      tools: [counted("look", runs), counted("pay", runs)],
      codeMode: { executor },
      wrapTools: [policy],
    });
  const parked = await build([
    codeCall(
      "async () => { await codemode.look({ n: 1 }); await codemode.pay({ n: 2 }); return 'paid'; }",
    ),
  ]).generate("pay");
  const pending = parked.pending[0];
  assert.equal(pending.approval?.reason, "over_budget");
  assert.equal(
    pending.approval?.message,
    'the program calls tool "pay" with {"n":2}: payments need a person',
  );
  const resumed = await build([say("done")]).generate(parked.messages, {
    decisions: [approve(pending)],
  });
  assert.equal(resumed.resumed[0].content, "paid");
  assert.deepEqual(runs, ["look 1", "pay 2"]);
});

Deno.test("code mode: tools offered only through code are not directly callable", async () => {
  await using executor = subprocessExecutor();
  const runs: string[] = [];
  const model = script(
    callTools({ name: "look", args: { n: 1 } }),
    say("ok"),
  );
  const agent = new Agent(model, {
    tools: [counted("look", runs)],
    codeMode: { executor },
  });
  const result = await agent.generate("look");
  assert.deepEqual(model.requests()[0].tools.map((t) => t.name), ["code"]);
  assert.equal(
    result.steps[0].results[0].content,
    'NO_SUCH_TOOL: no tool named "look"',
  );
  assert.deepEqual(runs, []);
});

Deno.test("code mode: a program that catches its parked call cannot call on", async () => {
  await using executor = subprocessExecutor();
  const runs: string[] = [];
  const agent = new Agent(
    script(codeCall(`async () => {
      try { await codemode.write({ n: 1 }); } catch { /* ignored */ }
      await codemode.look({ n: 2 });
      return "went on";
    }`)),
    {
      tools: [counted("write", runs, true), counted("look", runs)],
      codeMode: { executor },
    },
  );
  const parked = await agent.generate("write");
  assert.equal(parked.pending.length, 1);
  assert.deepEqual(runs, []);
});

Deno.test("code mode: a program that diverges from its journal makes its calls afresh and asks again", async () => {
  await using executor = subprocessExecutor();
  const runs: string[] = [];
  const tools = [counted("look", runs), counted("write", runs, true)];
  const first = await new Agent(
    script(codeCall(
      "async () => { await codemode.look({ n: 1 }); await codemode.write({ n: 9 }); return 'x'; }",
    )),
    { tools, codeMode: { executor } },
  ).generate("go");
  // The resumed transcript holds another program under the same call id:
  // its calls differ from the journal's, so nothing is answered from it.
  const other = JSON.stringify({
    code:
      "async () => { await codemode.look({ n: 2 }); await codemode.write({ n: 9 }); return 'y'; }",
  });
  const messages = first.messages.map((m) =>
    m.role !== "assistant" ? m : {
      ...m,
      content: m.content.map((p) =>
        p.type === "tool_call" ? { ...p, args: other } : p
      ),
    }
  );
  const second = await new Agent(script(say("done")), {
    tools,
    codeMode: { executor },
  }).generate(messages, { decisions: [approve(first.pending[0])] });
  assert.equal(second.pending.length, 1);
  assert.deepEqual(runs, ["look 1", "look 2"]);
});

Deno.test("code mode: a call still running when the program ends is stopped, and the code call does not wait for it", async () => {
  await using executor = subprocessExecutor({ timeout: 3_000 });
  let aborted: unknown;
  const hang = tool({
    name: "hang",
    description: "Never answers.",
    input: z.object({}),
    run: (_input, ctx) =>
      new Promise<string>((_, reject) => {
        ctx.signal.addEventListener("abort", () => {
          aborted = ctx.signal.reason;
          reject(ctx.signal.reason);
        });
      }),
  });
  const agent = new Agent(
    script(
      codeCall("async () => { codemode.hang({}); return 'left'; }"),
      say("ok"),
    ),
    { tools: [hang], codeMode: { executor } },
  );
  const result = await agent.generate("go", {
    signal: AbortSignal.timeout(20_000),
  });
  assert.equal(result.steps[0].results[0].content, "left");
  assert.equal(
    (aborted as Error).message,
    "the program ended before the call did",
  );
});
