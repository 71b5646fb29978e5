/**
 * Imported tools are ordinary weft tools in the agent loop (go-mcp §1.12
 * and the loop halves of I-11, I-19, I-29, I-37, I-38, I-41; I-43 … I-46).
 */

import assert from "node:assert/strict";
import { Agent, importTools, type RunEvent, type ToolDef } from "../mod.ts";
import type { ToolMiddleware, ToolResultPart } from "../core.ts";
import { callTools, say, script } from "../testing.ts";
import { assertJsonEqual } from "./_helpers/json_equal.ts";
import { entry, listedServer, textResult } from "./_helpers/mcp_servers.ts";
import { waitFor } from "./_helpers/wait.ts";

function toolResults(
  messages: readonly { role: string; content: readonly { type: string }[] }[],
): ToolResultPart[] {
  return messages.flatMap((m) =>
    m.content.filter((p): p is ToolResultPart => p.type === "tool_result")
  );
}

/** A remote tool that answers after `ms`, or as soon as the call is cancelled. */
function slowCall(ms: number, text = "finally") {
  return ({ signal }: { signal: AbortSignal }) =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve(textResult(text)), ms);
      signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve(textResult("cancelled"));
      });
    });
}

Deno.test("the model's request carries the server's schema document whole", async () => {
  const doc = {
    type: "object",
    properties: {
      q: { type: "string", enum: ["a", "b"] },
      pick: { oneOf: [{ type: "string" }, { type: "number" }] },
    },
    required: ["q"],
  };
  await using s = await listedServer({
    tools: [entry("search", { description: "Search.", inputSchema: doc })],
  });
  const { tools } = await importTools(s.client);
  const model = script(say("done"));
  await new Agent(model, { tools }).generate("go");
  const sent = model.requests()[0].tools[0];
  assert.equal(sent.name, "search");
  assert.equal(sent.description, "Search.");
  assertJsonEqual(JSON.parse(JSON.stringify(sent.inputSchema)), doc);
  assert.equal(JSON.stringify(sent.inputSchema), JSON.stringify(doc));
});

Deno.test("a listing with a repeated name registers on an agent without the duplicate-name error", async () => {
  await using s = await listedServer({
    tools: [entry("search"), entry("search")],
  });
  const { tools, skipped } = await importTools(s.client);
  assert.equal(skipped?.skipped.length, 1);
  const agent = new Agent(script(say("ok")), { tools });
  assert.deepEqual(agent.tools.map((t) => t.name), ["search"]);
});

Deno.test("two servers exposing the same name, imported without a prefix, fail agent construction", async () => {
  await using a = await listedServer({ tools: [entry("search")] });
  await using b = await listedServer({ tools: [entry("search")] });
  const both = [
    ...(await importTools(a.client)).tools,
    ...(await importTools(b.client)).tools,
  ];
  assert.throws(() => new Agent(script(say("x")), { tools: both }), (err) => {
    assert.ok(err instanceof TypeError);
    assert.equal(err.message, 'weft: duplicate tool name "search"');
    return true;
  });
  const prefixed = [
    ...(await importTools(a.client, { prefix: "gh_" })).tools,
    ...(await importTools(b.client, { prefix: "db_" })).tools,
  ];
  assert.deepEqual(
    new Agent(script(say("x")), { tools: prefixed }).tools.map((t) => t.name),
    ["gh_search", "db_search"],
  );
});

Deno.test("a remote isError and a transport failure are tool results the model reads, not run errors", async () => {
  await using s = await listedServer({
    tools: [entry("flaky"), entry("broken")],
    call: ({ name }) => {
      if (name === "flaky") {
        return textResult("rate limited: try again in 30s", { isError: true });
      }
      throw new Error("warehouse unreachable");
    },
  });
  const { tools } = await importTools(s.client);
  const model = script(
    callTools({ name: "flaky" }, { name: "broken" }),
    say("handled"),
  );
  const result = await new Agent(model, { tools }).generate("go");
  assert.equal(result.text, "handled");
  assert.deepEqual(
    toolResults(result.messages).map((r) => [r.name, r.content, r.isError]),
    [
      ["flaky", "rate limited: try again in 30s", true],
      ["broken", "mcp: MCP error -32603: warehouse unreachable", true],
    ],
  );
});

Deno.test("ToolStart and ToolFinish bracket the remote call", async () => {
  const order: string[] = [];
  await using s = await listedServer({
    tools: [entry("t")],
    call: () => {
      order.push("remote");
      return textResult("ok");
    },
  });
  const { tools } = await importTools(s.client);
  const onEvent = (e: RunEvent) => {
    if (e.type === "tool_start" || e.type === "tool_finish") order.push(e.type);
  };
  await new Agent(script(callTools({ name: "t" }), say("done")), {
    tools,
    onEvent,
  }).generate("go");
  assert.deepEqual(order, ["tool_start", "remote", "tool_finish"]);
});

Deno.test('policy timeout: a 60 s remote tool under a 100 ms timeout reads tool "slow" timed out after 100ms', async () => {
  await using s = await listedServer({
    tools: [entry("slow")],
    call: slowCall(60_000),
  });
  const { tools } = await importTools(s.client, { policy: { timeout: 100 } });
  const started = Date.now();
  const result = await new Agent(
    script(callTools({ name: "slow" }), say("gave up")),
    { tools },
  ).generate("go");
  // Not the tool's 60 s: the bound only tells the two apart, generously.
  assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
  const secondToLast = result.messages.at(-2);
  const part = secondToLast?.content[0] as ToolResultPart;
  assert.equal(part.type, "tool_result");
  assert.equal(part.content, 'tool "slow" timed out after 100ms');
  assert.equal(part.isError, true);
  // The cancellation reaches the server: polled for up to 10 s, not slept.
  await waitFor(() => s.calls[0].signal.aborted, "the server's call aborted", {
    everyMs: 20,
  }).catch(() => {}); // the assertion below says what was missed
  assert.equal(
    s.calls[0].signal.aborted,
    true,
    "the remote request was cancelled",
  );
});

Deno.test("policy requireApproval parks the call; the run ends with it pending and the server untouched", async () => {
  await using s = await listedServer({ tools: [entry("slow")] });
  const { tools } = await importTools(s.client, {
    policy: { requireApproval: true },
  });
  const result = await new Agent(
    script(callTools({ name: "slow", args: { q: 1 } })),
    { tools },
  ).generate("go");
  assert.deepEqual(result.pending.map((p) => [p.name, p.args]), [[
    "slow",
    '{"q":1}',
  ]]);
  assert.equal(s.calls.length, 0);
});

Deno.test("policy maxResultBytes caps the result; policy wrap sees the call", async () => {
  const seen: string[] = [];
  const watch: ToolMiddleware = (next) => (call, ctx) => {
    seen.push(call.name);
    return next(call, ctx);
  };
  await using s = await listedServer({
    tools: [entry("babbler")],
    call: () => textResult("x".repeat(500)),
  });
  const { tools } = await importTools(s.client, {
    policy: { maxResultBytes: 8, wrap: [watch] },
  });
  const result = await new Agent(
    script(callTools({ name: "babbler" }), say("ok")),
    { tools },
  ).generate("go");
  assert.equal(
    toolResults(result.messages)[0].content,
    "xxxxxxxx\n…[truncated 492 bytes]",
  );
  assert.deepEqual(seen, ["babbler"]);
});

Deno.test("agent middleware denies an imported tool; the model sees exactly its text; the toolSource is read", async () => {
  await using s = await listedServer({
    tools: [entry("search"), entry("other")],
  });
  const { tools } = await importTools(s.client);
  let reads = 0;
  const deny: ToolMiddleware = (next) => (call, ctx) => {
    if (call.name === "search") {
      return Promise.reject(new Error("searching is disabled today"));
    }
    return next(call, ctx);
  };
  const model = script(
    callTools({ name: "search" }, { name: "other" }),
    say("ok"),
  );
  const agent = new Agent(model, {
    parallelism: 4,
    wrapTools: [deny],
    toolSource: () => {
      reads++;
      return tools;
    },
  });
  const result = await agent.generate("go");
  assert.deepEqual(
    toolResults(result.messages).map((r) => [r.name, r.content, r.isError]),
    [
      ["search", "searching is disabled today", true],
      ["other", "called", false],
    ],
  );
  assert.ok(reads >= 1);
  assert.deepEqual(s.calls.map((c) => c.name), ["other"]);
});

Deno.test("listChanged: the SDK client's handler re-runs importTools into the list a toolSource serves", async () => {
  const listing: unknown[] = [entry("search")];
  let current: ToolDef[] = [];
  let refreshed!: () => void;
  let changed = new Promise<void>((resolve) => refreshed = resolve);
  await using s = await listedServer({
    tools: listing,
    clientOptions: {
      listChanged: {
        tools: {
          autoRefresh: false,
          debounceMs: 0,
          onChanged: () => void refresh(),
        },
      },
    },
  });
  const skippedTexts: string[] = [];
  async function refresh(): Promise<void> {
    try {
      const { tools, skipped } = await importTools(s.client, { prefix: "r_" });
      if (skipped) skippedTexts.push(skipped.message); // still serve the good ones
      current = tools;
    } catch {
      // a listing failure keeps the last good list
    }
    refreshed();
  }
  await refresh();
  const model = script(say("first"), say("second"));
  const agent = new Agent(model, {
    name: "importer",
    toolSource: () => current,
  });
  await agent.generate("status?");
  changed = new Promise<void>((resolve) => refreshed = resolve);
  listing.push(entry("fetch"), entry("", {}));
  await s.server!.sendToolListChanged();
  await changed;
  await agent.generate("status?");
  const [before, after] = model.requests().map((r) =>
    r.tools.map((t) => t.name)
  );
  assert.deepEqual(before, ["r_search"]);
  assert.deepEqual(after, ["r_search", "r_fetch"]);
  assert.deepEqual(skippedTexts, [
    "mcp: 1 tool(s) not imported: entry 2: empty name",
  ]);
});
