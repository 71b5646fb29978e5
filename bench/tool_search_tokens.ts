/**
 * The tokens of tool definitions per model request, counted with OpenAI's
 * o200k_base tokenizer (gpt-tokenizer), with and without `toolSearch`, over
 * the scripted five-step run of bench/tool_search_bench.ts (the 458-tool
 * fixture). Anthropic's tokenizer is not public: its counts differ, the
 * ratio is what carries over.
 *
 *   deno run -A --config tests/interop/deno.json bench/tool_search_tokens.ts
 */

import { countTokens } from "gpt-tokenizer";
import { fiveStepDefinitions } from "./tool_search_bench.ts";

const tokens = (texts: string[]): number =>
  texts.reduce((n, t) => n + countTokens(t), 0);

const without = (await fiveStepDefinitions(false)).map(tokens);
const withSearch = (await fiveStepDefinitions(true)).map(tokens);
console.log(
  "| step | without search: o200k tokens | with toolSearch: o200k tokens |",
);
console.log(
  "| ---- | ---------------------------- | ----------------------------- |",
);
for (let i = 0; i < without.length; i++) {
  console.log(`| ${i + 1} | ${without[i]} | ${withSearch[i]} |`);
}
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
console.log(
  `| total | ${sum(without)} | ${sum(withSearch)} (${
    (100 * (1 - sum(withSearch) / sum(without))).toFixed(1)
  } % less) |`,
);
