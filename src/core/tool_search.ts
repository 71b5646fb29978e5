/**
 * The options of an agent's tool search (`AgentOptions.toolSearch`) and the
 * search tool's name.
 *
 * @module
 */

import type { ToolDef } from "./tool.ts";

/**
 * How an agent offers many tools: a search tool first, the full
 * definitions of the tools it finds from the next step on.
 *
 * @experimental Tool search's heuristics (matching, ranking) may change.
 *
 * @example Search before loading
 * ```ts
 * import { Agent, rawTool, type ToolSearchOptions } from "@weft/mcp";
 * import { callTools, say, script } from "@weft/mcp/testing";
 * import assert from "node:assert/strict";
 *
 * const tools = [
 *   rawTool({ name: "get_weather", description: "Gets the weather forecast for a city.", run: () => "sunny" }),
 *   rawTool({ name: "send_mail", description: "Sends an email.", run: () => "sent" }),
 * ];
 * const toolSearch: ToolSearchOptions = { maxResults: 3 };
 * const model = script(
 *   callTools({ name: "search_tools", args: { query: "weather forecast" } }),
 *   callTools({ name: "get_weather", args: {} }),
 *   say("Sunny."),
 * );
 * const result = await new Agent(model, { tools, toolSearch }).generate("Weather?");
 * assert.equal(result.text, "Sunny.");
 * assert.deepEqual(model.requests()[0].tools.map((t) => t.name), ["search_tools"]);
 * assert.deepEqual(model.requests()[1].tools.map((t) => t.name), ["search_tools", "get_weather"]);
 * ```
 */
export interface ToolSearchOptions {
  /**
   * Names of tools the model sees from the first step without searching,
   * in this order, right after the search tool. A name no tool has is
   * passed over. An output agent's `submit_output` is always visible.
   */
  alwaysVisible?: readonly string[];
  /**
   * The most tools one search names; default 5, at most 50.
   * @default 5
   */
  maxResults?: number;
  /**
   * How the query is matched: `"bm25"` (the default) ranks tools by the
   * query's words in their names, titles, descriptions and server names;
   * `"regex"` takes the query as a regular expression (case-insensitive,
   * RE2 syntax: no back-references or lookaround) and names the tools it
   * matches, in list order; it is matched in time linear in each field
   * (never by a backtracking engine), so no query can stall the process.
   * @default "bm25"
   */
  match?: "bm25" | "regex";
  /**
   * The server a tool comes from, searched like its other words
   * (`ConnectedServers.serverOf`). Default: none (a prefixed name such as
   * `github_create_issue` carries its server in the name anyway).
   */
  serverOf?: (tool: ToolDef) => string | undefined;
}

/**
 * The search tool's name: the one tool the model sees first under
 * `toolSearch` (with the always-visible ones).
 *
 * @example
 * ```ts
 * import { SEARCH_TOOLS } from "@weft/mcp/core";
 * console.log(SEARCH_TOOLS); // search_tools
 * ```
 */
export const SEARCH_TOOLS = "search_tools";
