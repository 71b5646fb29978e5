/**
 * Code mode end to end with a scripted model: the generated API in the
 * tool description, a program's calls through the agent's chain, a gated
 * call that parks the run, the resume in a second process that answers the
 * earlier calls from the journal, and type checking before anything runs.
 */

import assert from "node:assert/strict";
import { Agent, approve, type RunResult, tool } from "../mod.ts";
import { callTools, say, script, type ScriptModel } from "../testing.ts";
import { subprocessExecutor } from "../sandbox.ts";
import { z } from "zod";
import { codeAgent, executions, PROGRAM } from "./_helpers/code_agent.ts";

const CHILD = new URL("./fixtures/code_resume_child.ts", import.meta.url);

Deno.test("code mode: the model sees one tool whose description is the typed API", async () => {
  await using executor = subprocessExecutor();
  const log = await Deno.makeTempFile();
  const agent = codeAgent(log, [say("hi")], executor);
  assert.deepEqual(agent.tools.map((t) => t.name), ["code"]);
  const description = agent.tools[0].description;
  assert.ok(
    description.endsWith(
      "declare const codemode: {\n" +
        "  /** Reads a file. */\n" +
        "  read_file(input: { path: string; encoding?: string }): Promise<unknown>;\n" +
        "  /** A file's size. */\n" +
        "  stat(input: { path: string }): Promise<{ size: number }>;\n" +
        "  /** Writes a file. */\n" +
        "  write_file(input: { path: string; text: string }): Promise<unknown>;\n" +
        "};",
    ),
    description,
  );
  await Deno.remove(log);
});

Deno.test("code mode: a program's calls run through the chain; its result and logs are the tool's result", async () => {
  await using executor = subprocessExecutor();
  const add = tool({
    name: "add",
    description: "Adds.",
    input: z.object({ a: z.number(), b: z.number() }),
    output: z.object({ sum: z.number() }),
    run: ({ a, b }) => ({ sum: a + b }),
  });
  const seen: string[] = [];
  const code = `async () => {
    let total = 0;
    for (let i = 0; i < 3; i++) total = (await codemode.add({ a: total, b: i + 1 })).sum;
    console.log("total", total);
    return { total };
  }`;
  const model = script(callTools({ name: "code", args: { code } }), say("6"));
  const progress: string[] = [];
  const agent = new Agent(model, {
    tools: [add],
    codeMode: { executor, direct: true },
    onEvent: (event) => {
      if (event.type === "tool_progress") {
        progress.push(`${event.name} ${event.progress} ${event.message}`);
      }
    },
    wrapTools: [(next) => (call, ctx) => {
      seen.push(call.name);
      return next(call, ctx);
    }],
  });
  assert.deepEqual(agent.tools.map((t) => t.name), ["add", "code"]);
  const result = await agent.generate("add");
  const part = result.steps[0].results[0];
  assert.equal(part.isError, false);
  assert.equal(part.content, '{"total":6}\n--- logs ---\ntotal 6');
  // The agent's middleware saw the code call and each call the program made.
  assert.deepEqual(seen, ["code", "add", "add", "add"]);
  // Observers see the program's calls as the code call's progress.
  assert.deepEqual(progress, [
    'code 1 calls tool "add"',
    'code 2 calls tool "add"',
    'code 3 calls tool "add"',
  ]);
});

Deno.test("code mode: a failing program is a PROGRAM_FAILED error naming the cause", async () => {
  await using executor = subprocessExecutor();
  const model = script(
    callTools({
      name: "code",
      args: { code: "async () => { throw new Error('nope') }" },
    }),
    say("ok"),
  );
  const agent = new Agent(model, { codeMode: { executor } });
  const part = (await agent.generate("x")).steps[0].results[0];
  assert.equal(part.isError, true);
  assert.equal(part.content, "PROGRAM_FAILED: Error: nope");
});

Deno.test("code mode: a gated call parks the run; approved in another process, each call ran once", async () => {
  const dir = await Deno.makeTempDir();
  const log = `${dir}/server.log`;
  try {
    let parked: RunResult;
    {
      await using executor = subprocessExecutor();
      const agent = codeAgent(
        log,
        [callTools({ name: "code", args: { code: PROGRAM } })],
        executor,
      );
      parked = await agent.generate("Copy a.txt to b.txt.");
    }
    assert.deepEqual(executions(log), ["read_file", "stat"]);
    assert.equal(parked.pending.length, 1);
    const pending = parked.pending[0];
    assert.equal(pending.name, "code");
    assert.equal(pending.approval?.reason, "program_call");
    assert.equal(
      pending.approval?.message,
      'the program calls tool "write_file" with {"path":"b.txt","text":"contents of a.txt7"}',
    );
    await Deno.writeTextFile(`${dir}/run.json`, JSON.stringify(parked));
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", CHILD.pathname, `${dir}/run.json`, log],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    const resumed = JSON.parse(
      new TextDecoder().decode(out.stdout),
    ) as RunResult;
    assert.equal(resumed.text, "Done.");
    assert.deepEqual(resumed.resumed.map((p) => [p.content, p.isError]), [[
      "copied",
      false,
    ]]);
    // Each earlier call executed once; the write once, after approval.
    assert.deepEqual(executions(log), [
      "read_file",
      "stat",
      "write_file b.txt contents of a.txt7",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("code mode: approved without its journal, the program does not run again", async () => {
  const dir = await Deno.makeTempDir();
  const log = `${dir}/server.log`;
  try {
    await using executor = subprocessExecutor();
    const parked = await codeAgent(
      log,
      [callTools({ name: "code", args: { code: PROGRAM } })],
      executor,
    ).generate("Copy.");
    const resumed = await codeAgent(log, [say("Done.")], executor).generate(
      parked.messages,
      { decisions: [approve(parked.pending[0].id)] },
    );
    assert.deepEqual(resumed.resumed.map((p) => [p.content, p.isError]), [[
      "PROGRAM_FAILED: program not run: it was approved without its journal of earlier calls; the host must approve with approve(pending)",
      true,
    ]]);
    assert.deepEqual(executions(log), ["read_file", "stat"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("code mode: with typeCheck a misspelled argument calls no tool and the model reads the diagnostic", async () => {
  const dir = await Deno.makeTempDir();
  const log = `${dir}/server.log`;
  try {
    await using executor = subprocessExecutor();
    const code = `async () => {
  const text = await codemode.read_file({ path: "a.txt", encodng: "utf8" });
  return text;
}`;
    const agent = codeAgent(
      log,
      [callTools({ name: "code", args: { code } }), say("I will fix it.")],
      executor,
      { typeCheck: true },
    );
    const result = await agent.generate("Read a.txt.");
    assert.deepEqual(executions(log), []);
    const part = result.steps[0].results[0];
    assert.equal(part.isError, true);
    assert.match(
      part.content,
      /^PROGRAM_FAILED: the program does not type-check; no tool was called:\nTS2561 \[ERROR\]: Object literal may only specify known properties, but 'encodng' does not exist in type '\{ path: string; encoding\?: string \| undefined; \}'\. Did you mean to write 'encoding'\?\n {2}const text = await codemode\.read_file\(\{ path: "a\.txt", encodng: "utf8" \}\);\n/,
    );
    assert.match(part.content, /at program\.ts:2:58$/);
    // The model's next request carries the diagnostic.
    const request = (agent.model as ScriptModel).lastRequest();
    const last = request?.messages.at(-1);
    assert.equal(last?.role, "tool");
    const read = last?.content[0];
    assert.equal(
      read?.type === "tool_result" ? read.content : "",
      part.content,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("examples/code_mode.ts: the program's sum is the tool's result", async () => {
  const { codeModeDemo } = await import("../examples/code_mode.ts");
  assert.equal(await codeModeDemo(), '{"total":12}');
});
