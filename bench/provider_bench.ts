/**
 * The AI SDK adapter's cost per streamed event: one replayed OpenAI Chat
 * Completions stream of 1,000 text deltas, read through the real
 * `@ai-sdk/openai` package either by the AI SDK's own `streamText` (its
 * `textStream` drained) or by a weft `Agent` on `aiSdkModel` (every
 * `text_delta` observed). Both sides parse the same bytes with the same
 * provider package; the difference is the adapter plus the agent loop
 * against `streamText`'s own machinery.
 *
 *   deno bench -A bench/provider_bench.ts           (averages, ratio per group)
 *   deno run -A bench/provider_bench.ts --medians   (interleaved medians, ratio)
 *
 * A second pair isolates the adapter: the provider's `doStream` parts
 * drained (the floor: SSE parsing in the provider package) against
 * `aiSdkModel(model).stream` drained (the same plus the mapping).
 *
 * Targets: ≤ 1.0× `streamText`; the adapter within 1.10× of the bare
 * `doStream` it wraps.
 */

// deno-lint-ignore no-import-prefix -- a test-only package, kept out of the root import map
import { createOpenAI } from "npm:@ai-sdk/openai@4.0.118";
// deno-lint-ignore no-import-prefix -- a test-only package, kept out of the root import map
import { streamText } from "npm:ai@7.0.173";
import { Agent, aiSdkModel } from "../mod.ts";
import { interleavedMedians } from "./_medians.ts";

const DELTAS = 1000;

function sseBody(): Uint8Array {
  let body = "";
  const chunk = (delta: unknown, finish: string | null) =>
    `data: ${
      JSON.stringify({
        id: "chatcmpl-bench",
        object: "chat.completion.chunk",
        created: 1765000000,
        model: "gpt-4o",
        choices: [{ index: 0, delta, finish_reason: finish }],
      })
    }\n\n`;
  body += chunk({ role: "assistant", content: "" }, null);
  for (let i = 0; i < DELTAS; i++) body += chunk({ content: `w${i} ` }, null);
  body += chunk({}, "stop");
  body += `data: ${
    JSON.stringify({
      id: "chatcmpl-bench",
      object: "chat.completion.chunk",
      created: 1765000000,
      model: "gpt-4o",
      choices: [],
      usage: { prompt_tokens: 10, completion_tokens: DELTAS },
    })
  }\n\ndata: [DONE]\n\n`;
  return new TextEncoder().encode(body);
}

const BYTES = sseBody();
const PIECE = 4096;

/** A fetch replaying the stream in 4 KiB pieces, as a network would deliver it. */
const replay: typeof fetch = (_input, _init) => {
  let offset = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= BYTES.length) return controller.close();
      controller.enqueue(BYTES.subarray(offset, offset + PIECE));
      offset += PIECE;
    },
  });
  return Promise.resolve(
    new Response(body, { headers: { "content-type": "text/event-stream" } }),
  );
};

const openai = createOpenAI({ apiKey: "bench", fetch: replay });
const languageModel = openai.chat("gpt-4o");
const agent = new Agent(aiSdkModel(languageModel));

async function viaStreamText(): Promise<number> {
  const result = streamText({ model: languageModel, prompt: "go" });
  let n = 0;
  for await (const _ of result.textStream) n++;
  if (n !== DELTAS) throw new Error(`streamText saw ${n} deltas`);
  return n;
}

async function viaAgent(): Promise<number> {
  let n = 0;
  await agent.generate("go", {
    onEvent: (e) => {
      if (e.type === "text_delta") n++;
    },
  });
  if (n !== DELTAS) throw new Error(`the agent saw ${n} deltas`);
  return n;
}

const adapter = aiSdkModel(languageModel);
const REQUEST = {
  system: "",
  messages: [{
    role: "user" as const,
    content: [{ type: "text" as const, text: "go" }],
  }],
  tools: [],
  sequentialTools: false,
};

/** The floor: the provider package's own `doStream` parts, drained. */
async function viaDoStream(): Promise<number> {
  const { stream } = await languageModel.doStream({
    prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }],
  });
  let n = 0;
  for await (const part of stream) {
    if (part.type === "text-delta" && part.delta !== "") n++;
  }
  if (n !== DELTAS) throw new Error(`doStream gave ${n} deltas`);
  return n;
}

/** The adapter alone: `aiSdkModel(...).stream` drained, no agent loop. */
async function viaAdapter(): Promise<number> {
  let n = 0;
  const signal = new AbortController().signal;
  for await (const event of adapter.stream(REQUEST, { signal })) {
    if (event.type === "text") n++;
  }
  if (n !== DELTAS) throw new Error(`the adapter gave ${n} deltas`);
  return n;
}

Deno.bench({
  name: `provider doStream drained (${DELTAS} deltas)`,
  group: "adapter",
  baseline: true,
  async fn() {
    await viaDoStream();
  },
});

Deno.bench({
  name: `aiSdkModel stream drained (${DELTAS} deltas)`,
  group: "adapter",
  async fn() {
    await viaAdapter();
  },
});

Deno.bench({
  name: `AI SDK streamText, textStream drained (${DELTAS} deltas)`,
  group: "stream",
  baseline: true,
  async fn() {
    await viaStreamText();
  },
});

Deno.bench({
  name: `weft Agent on aiSdkModel, text_delta observed (${DELTAS} deltas)`,
  group: "stream",
  async fn() {
    await viaAgent();
  },
});

if (import.meta.main && Deno.args.includes("--medians")) {
  const results = await interleavedMedians([
    {
      label: `streamText vs Agent on aiSdkModel (${DELTAS} deltas)`,
      sdk: viaStreamText,
      weft: viaAgent,
      n: 200,
    },
    {
      label: `doStream vs aiSdkModel stream (${DELTAS} deltas)`,
      sdk: viaDoStream,
      weft: viaAdapter,
      n: 200,
    },
  ]);
  const perEvent = (ms: number) => (ms * 1000 / DELTAS).toFixed(2);
  for (const result of results) {
    console.log(
      `${result.label}: AI SDK ${result.sdk.toFixed(2)} ms ` +
        `(${perEvent(result.sdk)} µs/event), weft ${
          result.weft.toFixed(2)
        } ms (${perEvent(result.weft)} µs/event), ratio ${
          (result.weft / result.sdk).toFixed(2)
        }×, weft adds ${perEvent(result.weft - result.sdk)} µs/event`,
    );
  }
}
