/**
 * The hostile regular expressions of a `match: "regex"` tool search, timed
 * before and after the search matched with automata: "before" is V8's
 * backtracking engine as the search used it (`new RegExp(query, "i")`
 * over each field's first 2000 characters), run in a worker stopped at a
 * deadline; "after" is the search's linear-time matcher (re2js), the
 * median of 5 runs. Both search the 458-tool corpus plus one tool whose
 * description is 1,500 `a`s and a `!`.
 *
 *   deno run -A bench/regex_search_bench.ts [deadline-ms]
 *
 * @module
 */

import { linearRegex } from "../src/core/_regex.ts";
import { toolCorpus } from "./_tool_corpus.ts";
import { median } from "./_medians.ts";

const FIELD_MAX = 2000;

function fields(): string[][] {
  const out = toolCorpus().flatMap((server) =>
    server.tools.map((tool) =>
      [
        `${server.name}_${tool.name}`,
        tool.description,
        tool.title ?? "",
        server.name,
      ].map((text) => text.slice(0, FIELD_MAX))
    )
  );
  out.push(["long", "a".repeat(1500) + "!"]);
  return out;
}

let corpus: string[][] | undefined;

function matchCount(test: (text: string) => boolean): number {
  return (corpus ??= fields()).filter((f) => f.some(test)).length;
}

const scope = self as unknown as {
  name?: string;
  onmessage: ((event: MessageEvent<string>) => void) | null;
  postMessage(data: unknown): void;
};

if (scope.name === "v8") {
  // The worker: V8's engine on one query; the parent stops it at the deadline.
  scope.onmessage = (event) => {
    corpus ??= fields();
    const pattern = new RegExp(event.data, "i");
    const started = performance.now();
    const hits = matchCount((text) => pattern.test(text));
    scope.postMessage({ ms: performance.now() - started, hits });
  };
} else if (import.meta.main) {
  const deadline = Number(Deno.args[0] ?? 10_000);
  corpus = fields();
  const queries: [string, string][] = [
    ...[16, 18, 20, 22, 24, 36].map((n): [string, string] => [
      `"(?:.|.)".repeat(${n}) + "#"`,
      "(?:.|.)".repeat(n) + "#",
    ]),
    ["[^](.+)+]", "[^](.+)+]"],
    ["(a+)+$", "(a+)+$"],
    ["issue|ticket (an ordinary query)", "issue|ticket"],
  ];
  console.log(
    `query | V8 backtracking (before) | linear re2js (after, median of 5) | hits before/after`,
  );
  for (const [label, query] of queries) {
    const before = await inWorker(query, deadline);
    const times: number[] = [];
    let hits = 0;
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const pattern = linearRegex(query, { ignoreCase: true, maxProgram: 500 });
      hits = matchCount((text) => pattern.test(text));
      times.push(performance.now() - started);
    }
    const beforeText = before === undefined
      ? `> ${deadline} ms (stopped)`
      : `${before.ms.toFixed(1)} ms`;
    console.log(
      `${label} | ${beforeText} | ${median(times).toFixed(1)} ms | ${
        before?.hits ?? "-"
      }/${hits}`,
    );
  }
  // A worker stopped mid-match may take a while to unwind: do not wait.
  Deno.exit(0);
}

async function inWorker(
  query: string,
  deadline: number,
): Promise<{ ms: number; hits: number } | undefined> {
  const worker = new Worker(import.meta.url, { type: "module", name: "v8" });
  try {
    const done = Promise.withResolvers<
      { ms: number; hits: number } | undefined
    >();
    worker.onmessage = (event) => done.resolve(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      done.reject(new Error(event.message));
    };
    const timer = setTimeout(() => done.resolve(undefined), deadline);
    worker.postMessage(query);
    try {
      return await done.promise;
    } finally {
      clearTimeout(timer);
    }
  } finally {
    worker.terminate();
  }
}
