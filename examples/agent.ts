/**
 * An agent over MCP tools on a real model: the tools of `examples/server.ts`
 * (`lookup_order` and the `getting-started` agent), imported over stdio,
 * driven by a provider chosen from the environment:
 *
 *     OPENAI_BASE_URL=http://127.0.0.1:11434/v1 WEFT_MODEL=qwen3:8b \
 *       deno run -A examples/agent.ts "Where is order 1234?"   # Ollama, or any OpenAI-compatible server
 *     OPENAI_API_KEY=sk-...       deno run -A examples/agent.ts # OpenAI (WEFT_MODEL, default gpt-4o-mini)
 *     ANTHROPIC_API_KEY=sk-ant-... deno run -A examples/agent.ts # Anthropic (WEFT_MODEL, default claude-sonnet-4-5)
 *
 * `OPENAI_BASE_URL` wins when set (with `OPENAI_API_KEY` as its key, if
 * any), then `OPENAI_API_KEY`, then `ANTHROPIC_API_KEY`. With none set it
 * prints what to set and exits 2. The answer streams to stdout as it
 * arrives; tool calls and the usage go to stderr.
 *
 * @module
 */

// deno-lint-ignore no-import-prefix -- a test-only package, kept out of the root import map
import { createAnthropic } from "npm:@ai-sdk/anthropic@4.0.105";
// deno-lint-ignore no-import-prefix -- a test-only package, kept out of the root import map
import { createOpenAI } from "npm:@ai-sdk/openai@4.0.118";
// deno-lint-ignore no-import-prefix -- a test-only package, kept out of the root import map
import { createOpenAICompatible } from "npm:@ai-sdk/openai-compatible@3.0.92";
import {
  Agent,
  aiSdkModel,
  connectStdio,
  importTools,
  type RunEvent,
} from "../mod.ts";
import type { AiSdkLanguageModel } from "../providers.ts";

/** What to set, printed when nothing is. */
export const USAGE = `examples/agent.ts needs a model. Set one of:
  OPENAI_BASE_URL=<url> WEFT_MODEL=<name>  an OpenAI-compatible server, e.g. Ollama:
                                           OPENAI_BASE_URL=http://127.0.0.1:11434/v1 WEFT_MODEL=qwen3:8b
  OPENAI_API_KEY=<key>                     OpenAI (WEFT_MODEL defaults to gpt-4o-mini)
  ANTHROPIC_API_KEY=<key>                  Anthropic (WEFT_MODEL defaults to claude-sonnet-4-5)
`;

/** The language model the environment asks for, or a reason there is none. */
export function modelFromEnv(
  env: (name: string) => string | undefined,
): AiSdkLanguageModel | string {
  const name = env("WEFT_MODEL");
  const baseURL = env("OPENAI_BASE_URL");
  if (baseURL) {
    if (!name) return "OPENAI_BASE_URL is set but WEFT_MODEL is not";
    const local = createOpenAICompatible({
      name: "local",
      baseURL,
      apiKey: env("OPENAI_API_KEY"),
      includeUsage: true,
    });
    return local.chatModel(name);
  }
  const openaiKey = env("OPENAI_API_KEY");
  if (openaiKey) {
    return createOpenAI({ apiKey: openaiKey })(name || "gpt-4o-mini");
  }
  const anthropicKey = env("ANTHROPIC_API_KEY");
  if (anthropicKey) {
    return createAnthropic({ apiKey: anthropicKey })(
      name || "claude-sonnet-4-5",
    );
  }
  return "no provider is configured";
}

const SERVER = new URL("./server.ts", import.meta.url).pathname;

/** Runs one prompt; resolves with the process exit code. */
export async function main(args: string[]): Promise<number> {
  const model = modelFromEnv((name) => Deno.env.get(name));
  if (typeof model === "string") {
    console.error(`${model}.\n\n${USAGE}`);
    return 2;
  }
  const prompt = args.join(" ") || "Where is order 1234?";
  await using client = await connectStdio(Deno.execPath(), {
    args: ["run", "-A", "--quiet", SERVER],
  });
  const { tools } = await importTools(client);
  const agent = new Agent(aiSdkModel(model, { maxOutputTokens: 1024 }), {
    instructions: "You are a support agent. Use the tools to answer; be brief.",
    tools,
  });
  const encoder = new TextEncoder();
  const onEvent = (event: RunEvent) => {
    if (event.type === "text_delta") {
      Deno.stdout.writeSync(encoder.encode(event.text));
    } else if (event.type === "tool_start") {
      console.error(`[tool] ${event.name} ${event.args}`);
    }
  };
  const result = await agent.generate(prompt, { onEvent });
  console.log();
  const { inputTokens, outputTokens } = result.usage;
  console.error(
    `[usage] ${inputTokens} in, ${outputTokens} out, ${result.steps.length} step(s)`,
  );
  return 0;
}

if (import.meta.main) {
  try {
    Deno.exit(await main(Deno.args));
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    Deno.exit(1);
  }
}
