/**
 * Tool search with `match: "regex"`: the model's pattern is matched by
 * automata in linear time (re2js), so patterns that make V8's backtracking
 * engine run for hours finish at once; syntax that needs backtracking
 * (back-references, lookaround), a pattern that expands past the cap and an
 * over-long query read as pinned refusals.
 *
 * The hostile patterns run in a worker with a deadline: if the search ever
 * backtracks again, the worker is stopped and the test fails instead of
 * hanging the suite.
 */

import assert from "node:assert/strict";
import { Agent, rawTool } from "../mod.ts";
import { callTools, say, script } from "../testing.ts";
import type { WorkerResult } from "./fixtures/regex_search_worker.ts";

const DEADLINE_MS = 30_000;

async function searchInWorker(queries: string[]): Promise<WorkerResult[]> {
  const worker = new Worker(
    new URL("./fixtures/regex_search_worker.ts", import.meta.url),
    { type: "module" },
  );
  try {
    const ready = Promise.withResolvers<void>();
    const done = Promise.withResolvers<WorkerResult[]>();
    worker.onmessage = (event: MessageEvent<WorkerResult[] | "ready">) => {
      if (event.data === "ready") ready.resolve();
      else done.resolve(event.data);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      const error = new Error(`the search worker failed: ${event.message}`);
      ready.reject(error);
      done.reject(error);
    };
    await ready.promise;
    // The deadline covers the searches, not the worker's loading.
    const signal = AbortSignal.timeout(DEADLINE_MS);
    signal.addEventListener("abort", () =>
      done.reject(
        new Error(
          `the searches did not finish within ${DEADLINE_MS} ms: a pattern backtracked`,
        ),
      ));
    worker.postMessage(queries);
    return await done.promise;
  } finally {
    worker.terminate();
  }
}

const ALTERNATION = "(?:.|.)".repeat(36) + "#";

Deno.test("toolSearch regex: patterns that backtrack without end in V8 finish at once, with their matches", async () => {
  const queries = [
    ALTERNATION, // 36 groups: 2^36 paths per start for a backtracking engine
    "[^](.+)+]", // for V8: nested repetition over any character
    "(a+)+$",
    "(a|a)*x",
    "(?:a )*x",
    ".*.*.*x",
  ];
  const results = await searchInWorker(queries);
  assert.deepEqual(results.map((r) => [r.content, r.isError]), [
    [
      `1 tool found for ${
        JSON.stringify(ALTERNATION)
      }; call it from your next step:\n` +
      "- tag_post: Adds tags to a post: write each as a hashtag, #weft.",
      false,
    ],
    [
      // In RE2 syntax "[^](.+)+]" is one class (a "]" first in a class is
      // a literal): any character but those; the first five tools match.
      '5 tools found for "[^](.+)+]"; call them from your next step:\n' +
      `- long: ${"a".repeat(119)}…\n` +
      `- spaced: ${"a ".repeat(59)}a…\n` +
      "- tag_post: Adds tags to a post: write each as a hashtag, #weft.\n" +
      "- read_item: Reads items[0] of a list.\n" +
      "- export_data: Exports the data as a file.",
      false,
    ],
    [
      '2 tools found for "(a+)+$"; call them from your next step:\n' +
      "- export_data: Exports the data as a file.\n" +
      "- get_data: Gets the data.",
      false,
    ],
    ...["(a|a)*x", "(?:a )*x", ".*.*.*x"].map((query) => [
      `1 tool found for ${
        JSON.stringify(query)
      }; call it from your next step:\n` +
      "- export_data: Exports the data as a file.",
      false,
    ]),
  ]);
});

function tools() {
  return [
    rawTool({ name: "long", description: "Lists long things.", run: () => "" }),
    rawTool({ name: "read_file", description: "Reads a file.", run: () => "" }),
  ];
}

async function search(...queries: string[]) {
  const model = script(
    callTools(...queries.map((query, i) => ({
      name: "search_tools",
      args: { query },
      id: `q${i}`,
    }))),
    say("ok"),
  );
  const result = await new Agent(model, {
    tools: tools(),
    toolSearch: { match: "regex" },
  }).generate("go");
  return result.steps[0].results;
}

const UNSUPPORTED = 'INVALID_INPUT: tool "search_tools": "query" uses syntax ' +
  "this search does not support: it takes RE2 syntax, matched in linear " +
  "time, without back-references or lookaround ";

Deno.test("toolSearch regex: back-references, lookaround, an expanding pattern and an over-long query read as pinned refusals", async () => {
  const results = await search(
    "(a)\\1",
    "(?<w>a)\\k<w>",
    "(?=read)read",
    "(?<!x)read",
    "\\u0072ead",
    ".{100}.{100}.{100}.{100}.{100}.{100}",
    "([",
    "x".repeat(257),
  );
  assert.deepEqual(results.map((r) => [r.content, r.isError]), [
    [
      UNSUPPORTED + "(error parsing regexp: invalid escape sequence: `\\1`)",
      true,
    ],
    [
      UNSUPPORTED + "(error parsing regexp: invalid escape sequence: `\\k`)",
      true,
    ],
    [
      UNSUPPORTED +
      "(error parsing regexp: invalid or unsupported Perl syntax: `(?=`)",
      true,
    ],
    [
      UNSUPPORTED +
      "(error parsing regexp: invalid named capture: `(?<!x)read`)",
      true,
    ],
    [
      UNSUPPORTED + "(error parsing regexp: invalid escape sequence: `\\u`)",
      true,
    ],
    [
      'INVALID_INPUT: tool "search_tools": "query" is too large a regular ' +
      "expression: its repetitions expand to 602 instructions, at most 500; " +
      "use smaller counts",
      true,
    ],
    [
      'INVALID_INPUT: tool "search_tools": "query" is not a regular ' +
      "expression: error parsing regexp: missing closing ]: `[`",
      true,
    ],
    [
      'INVALID_INPUT: tool "search_tools": "query" must be at most 256 characters',
      true,
    ],
  ]);
});

Deno.test("toolSearch regex: RE2 syntax works, case-insensitively (groups, classes, escapes, named groups)", async () => {
  const results = await search(
    "[*+?{]|\\(a\\)*",
    "(?:lo)ng",
    "^\\x{72}ead",
    "(?<verb>read)_[f]ile",
    "READ_FILE",
  );
  const one = (query: string, line: string) =>
    `1 tool found for ${
      JSON.stringify(query)
    }; call it from your next step:\n${line}`;
  assert.deepEqual(results.map((r) => r.content), [
    'No tools found for "[*+?{]|\\\\(a\\\\)*". Search again with other words: what the tool does, or the service it works on.',
    one("(?:lo)ng", "- long: Lists long things."),
    one("^\\x{72}ead", "- read_file: Reads a file."),
    one("(?<verb>read)_[f]ile", "- read_file: Reads a file."),
    one("READ_FILE", "- read_file: Reads a file."),
  ]);
});
