/**
 * `examples/agent.ts` end to end, run the way a reader runs it: a child
 * `deno run examples/agent.ts` with `OPENAI_BASE_URL` pointing at a
 * 127.0.0.1 server that replays an OpenAI-compatible server's bytes (as
 * Ollama would send them); the example imports `examples/server.ts`'s tools
 * over stdio, and the real `@ai-sdk/openai-compatible` package talks to the
 * replay. And with no provider configured, it says what to set and exits 2.
 */

import assert from "node:assert/strict";
import { modelFromEnv, USAGE } from "../../examples/agent.ts";
import { own } from "../_helpers/provider_replay.ts";
import { runExample } from "../_helpers/run_example.ts";

const EXAMPLE = new URL("../../examples/agent.ts", import.meta.url).pathname;

/** The environment a reader's shell would have, without any provider variable. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME", "TMPDIR"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

function runAgent(env: Record<string, string>, args: string[] = []) {
  return runExample(
    EXAMPLE,
    args,
    { ...baseEnv(), ...env },
    "tests/interop/deno.json",
  );
}

Deno.test("examples/agent.ts answers through a replayed OpenAI-compatible server and the example MCP server", async () => {
  const replies = [own("example-tool-call.sse"), own("example-answer.sse")];
  const bodies: Record<string, unknown>[] = [];
  const paths: string[] = [];
  await using server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
  }, async (req) => {
    paths.push(new URL(req.url).pathname);
    bodies.push(await req.json());
    const body = replies[bodies.length - 1];
    if (body === undefined) {
      return new Response("no more replies", { status: 500 });
    }
    return new Response(body, {
      headers: { "content-type": "text/event-stream" },
    });
  });
  const ran = await runAgent({
    OPENAI_BASE_URL: `http://127.0.0.1:${server.addr.port}/v1`,
    WEFT_MODEL: "qwen3:8b",
  }, ["Where", "is", "order", "1234?"]);
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(ran.stdout, "Order 1234 has shipped and is on its way.\n");
  assert.match(ran.stderr, /\[tool\] lookup_order \{"order_id": "1234"\}/);
  assert.match(ran.stderr, /\[usage\] 410 in, 34 out, 2 step\(s\)/);
  assert.deepEqual(paths, ["/v1/chat/completions", "/v1/chat/completions"]);
  assert.equal(bodies[0].model, "qwen3:8b");
  const tools = (bodies[0].tools as { function: { name: string } }[]).map((t) =>
    t.function.name
  );
  assert.ok(tools.includes("lookup_order"), tools.join());
  const messages = bodies[1].messages as { role: string; content: unknown }[];
  assert.deepEqual(messages.map((m) => m.role), [
    "system",
    "user",
    "assistant",
    "tool",
  ]);
  assert.equal(messages[1].content, "Where is order 1234?");
  // The tool really ran on the example server: its JSON result came back.
  assert.deepEqual(JSON.parse(String(messages[3].content)), {
    id: "1234",
    status: "shipped",
  });
});

Deno.test("examples/agent.ts with no provider configured says what to set and exits 2", async () => {
  const ran = await runAgent({});
  assert.equal(ran.code, 2);
  assert.equal(ran.stdout, "");
  assert.equal(ran.stderr, `no provider is configured.\n\n${USAGE}\n`);
});

Deno.test("examples/agent.ts picks the provider from the environment", () => {
  const pick = (env: Record<string, string>) => {
    const model = modelFromEnv((name) => env[name]);
    return typeof model === "string"
      ? model
      : `${model.provider} ${model.modelId}`;
  };
  assert.equal(
    pick({
      OPENAI_BASE_URL: "http://127.0.0.1:1/v1",
      WEFT_MODEL: "m",
      OPENAI_API_KEY: "k",
    }),
    "local.chat m",
  );
  assert.equal(
    pick({ OPENAI_BASE_URL: "http://127.0.0.1:1/v1" }),
    "OPENAI_BASE_URL is set but WEFT_MODEL is not",
  );
  assert.equal(pick({ OPENAI_API_KEY: "k" }), "openai.responses gpt-4o-mini");
  assert.equal(
    pick({ ANTHROPIC_API_KEY: "k", WEFT_MODEL: "claude-x" }),
    "anthropic.messages claude-x",
  );
  assert.equal(pick({}), "no provider is configured");
});
