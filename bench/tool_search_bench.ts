/**
 * Tool search over the 458-tool corpus fixture (bench/_tool_corpus.ts, 25
 * servers): the bytes and estimated tokens of tool definitions per model
 * request with and without `toolSearch` over a scripted five-step run, the
 * steps it takes to find and call a named tool, and the search quality on
 * the 20 queries of bench/tool_search_queries.json (written before the
 * search was built): how many put the intended tool in the top 5.
 *
 *   deno run -A bench/tool_search_bench.ts
 *
 * Tokens are estimated as bytes / 4 (no provider tokenizer offline); the
 * bytes are the JSON of each definition as a provider sends it
 * (`{name, description, input_schema}`).
 */

import { Agent, rawTool, type ToolDef } from "../mod.ts";
import type { ModelRequest } from "../core.ts";
import { callTools, say, script } from "../testing.ts";
import { toolCorpus } from "./_tool_corpus.ts";

interface Query {
  query: string;
  tool: string;
}

/** The corpus as imported tools: `<server>_<tool>`, the server's definition whole. */
export function corpusTools(): {
  tools: ToolDef[];
  server: Map<ToolDef, string>;
} {
  const tools: ToolDef[] = [];
  const server = new Map<ToolDef, string>();
  for (const s of toolCorpus()) {
    for (const t of s.tools) {
      const def = rawTool({
        name: `${s.name}_${t.name}`,
        description: t.description,
        inputSchema: t.inputSchema,
        ...(t.annotations ? { annotations: t.annotations } : {}),
        run: () => "ok",
      });
      tools.push(def);
      server.set(def, s.name);
    }
  }
  return { tools, server };
}

/** Each tool definition of a request as a provider sends it: `{name, description, input_schema}` JSON. */
function definitions(request: ModelRequest): string[] {
  return request.tools.map((t) =>
    JSON.stringify({
      name: t.name,
      description: t.description,
      input_schema: t.inputSchema.raw,
    })
  );
}

const encoder = new TextEncoder();
const byteLength = (texts: string[]): number =>
  texts.reduce((n, t) => n + encoder.encode(t).length, 0);

const tokens = (bytes: number): number => Math.ceil(bytes / 4);

/** The tool definitions of each model request of the scripted five-step run. */
export async function fiveStepDefinitions(
  search: boolean,
): Promise<string[][]> {
  const { tools, server } = corpusTools();
  const model = search
    ? script(
      callTools({
        name: "search_tools",
        args: { query: "create github issue" },
      }),
      callTools({
        name: "github_create_issue",
        args: { owner: "o", repo: "r", title: "t" },
      }),
      callTools({
        name: "search_tools",
        args: { query: "post slack message" },
      }),
      callTools({
        name: "slack_post_message",
        args: { channel_id: "c", text: "filed" },
      }),
      say("Filed and announced."),
    )
    : script(
      callTools({
        name: "github_list_issues",
        args: { owner: "o", repo: "r" },
      }),
      callTools({
        name: "github_create_issue",
        args: { owner: "o", repo: "r", title: "t" },
      }),
      callTools({ name: "github_get_issue", args: { owner: "o", repo: "r" } }),
      callTools({
        name: "slack_post_message",
        args: { channel_id: "c", text: "filed" },
      }),
      say("Filed and announced."),
    );
  const agent = new Agent(model, {
    tools,
    maxSteps: 5,
    ...(search ? { toolSearch: { serverOf: (t) => server.get(t) } } : {}),
  });
  await agent.generate("File the bug and tell the team.");
  return model.requests().map(definitions);
}

/** The rank (1-based) of `tool` in the search result for `query`; 0 when absent. */
function rankOf(text: string, tool: string): number {
  const names = text.split("\n").filter((l) => l.startsWith("- ")).map((l) =>
    l.slice(2, l.indexOf(": "))
  );
  return names.indexOf(tool) + 1;
}

async function quality(): Promise<
  { query: string; tool: string; rank: number; steps: number }[]
> {
  const doc = JSON.parse(
    await Deno.readTextFile(
      new URL("./tool_search_queries.json", import.meta.url),
    ),
  ) as { queries: Query[] };
  const { tools, server } = corpusTools();
  const out = [];
  for (const q of doc.queries) {
    // The search as the model reads it, then a model that searches with
    // the user's words and calls the intended tool: the steps to call it.
    const agent = new Agent(script(), {
      tools,
      toolSearch: { serverOf: (t) => server.get(t) },
    });
    const searched = await agent.callTool("search_tools", { query: q.query });
    const rank = rankOf(searched, q.tool);
    let steps = 0;
    if (rank > 0) {
      const replay = script(
        callTools({ name: "search_tools", args: { query: q.query } }),
        callTools({ name: q.tool, args: {} }),
        say("done"),
      );
      const run = await new Agent(replay, {
        tools,
        toolSearch: { serverOf: (t) => server.get(t) },
      }).generate(q.query);
      const called = run.steps.findIndex((s) =>
        s.results.some((r) => r.name === q.tool && r.content === "ok")
      );
      steps = called + 1;
    }
    out.push({ query: q.query, tool: q.tool, rank, steps });
  }
  return out;
}

if (import.meta.main) {
  const { tools } = corpusTools();
  const without = (await fiveStepDefinitions(false)).map(byteLength);
  const withSearch = (await fiveStepDefinitions(true)).map(byteLength);
  console.log(
    `corpus: ${toolCorpus().length} servers, ${tools.length} tools (fixture)\n`,
  );
  console.log(
    "| step | without search: bytes / ~tokens | with toolSearch: bytes / ~tokens |",
  );
  console.log(
    "| ---- | ------------------------------- | -------------------------------- |",
  );
  for (let i = 0; i < 5; i++) {
    console.log(
      `| ${i + 1} | ${without[i]} / ${tokens(without[i])} | ${
        withSearch[i]
      } / ${tokens(withSearch[i])} |`,
    );
  }
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  console.log(
    `| total | ${sum(without)} / ${tokens(sum(without))} | ${
      sum(withSearch)
    } / ${tokens(sum(withSearch))} (${
      (100 * (1 - sum(withSearch) / sum(without))).toFixed(1)
    } % less) |`,
  );
  const q = await quality();
  const top1 = q.filter((x) => x.rank === 1).length;
  const top5 = q.filter((x) => x.rank >= 1 && x.rank <= 5).length;
  console.log(
    `\nsearch quality: ${top5}/${q.length} in the top 5, ${top1}/${q.length} first`,
  );
  for (const x of q) {
    console.log(
      `  ${x.rank === 0 ? "MISS" : `#${x.rank}  `} ${x.tool}  <- "${x.query}"${
        x.steps > 0 ? ` (called at step ${x.steps})` : ""
      }`,
    );
  }
  const steps = q.filter((x) => x.steps > 0).map((x) => x.steps);
  console.log(
    `\nsteps to call a named tool: ${
      Math.max(...steps)
    } with search (search, call) vs 1 without: ${Math.max(...steps) - 1} extra`,
  );
}
