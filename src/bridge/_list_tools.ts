/**
 * Listing every page of `tools/list`, entries as the server sent them.
 *
 * @module
 */

import type { ToolClient as Client } from "./peers.ts";
// The SDK's `*.js` subpaths carry no types under Deno; the extensionless
// subpath resolves to the `.d.ts`.
// @ts-types="@modelcontextprotocol/sdk/types"
import { ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { quote } from "../core/errors.ts";
import { ListToolsError } from "./import_error.ts";
import { linkSignal } from "../core/abort.ts";

/**
 * Lists every page, following `nextCursor` until it is absent, `null` or
 * `""`, and resolves to the raw entries in listing order. Each page goes
 * through `client.request` with the SDK's loose `ResultSchema`, because the
 * SDK's own `listTools` refuses a whole page over one malformed tool; the
 * entries are judged one by one afterwards.
 *
 * Rejects, importing nothing, on a transport or protocol failure (the SDK's
 * error, unchanged), on a page the listing cannot follow (`ListToolsError`:
 * no `tools` array, a non-string `nextCursor`, a cursor given twice), and
 * when `signal` ends — then with the signal's reason, unchanged.
 */
export async function listToolEntries(
  client: Client,
  signal?: AbortSignal,
): Promise<unknown[]> {
  const entries: unknown[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  try {
    for (let page = 0;; page++) {
      signal?.throwIfAborted();
      const request: ListRequest = cursor === undefined
        ? { method: "tools/list" }
        : { method: "tools/list", params: { cursor } };
      const result = await listPage(client, request, signal);
      const tools = result.tools;
      if (!Array.isArray(tools)) {
        throw new ListToolsError(page, 'the result has no "tools" array');
      }
      for (let i = 0; i < tools.length; i++) entries.push(tools[i]);
      const next = result.nextCursor;
      if (next === undefined || next === null || next === "") return entries;
      if (typeof next !== "string") {
        throw new ListToolsError(page, '"nextCursor" is not a string');
      }
      if (cursors.has(next)) {
        throw new ListToolsError(
          page,
          `cursor ${quote(next)} was already given in this listing`,
        );
      }
      cursors.add(next);
      cursor = next;
    }
  } catch (err) {
    // The SDK wraps an abort in its own RequestTimeout error; the contract
    // is the signal's reason, unchanged.
    if (signal?.aborted) throw signal.reason;
    throw err;
  }
}

type ListRequest = { method: "tools/list"; params?: { cursor: string } };

// One page, under its own child of the caller's signal: the SDK never
// removes its abort listener, so a signal shared by the pages would cancel
// the finished ones too when it aborts.
async function listPage(
  client: Client,
  request: ListRequest,
  signal: AbortSignal | undefined,
): Promise<Record<string, unknown>> {
  // ResultSchema parses an object, so the result is a record.
  if (signal === undefined) {
    return await client.request(request, ResultSchema) as Record<
      string,
      unknown
    >;
  }
  const link = linkSignal(signal);
  try {
    return await client.request(request, ResultSchema, {
      signal: link.signal,
    }) as Record<string, unknown>;
  } finally {
    link.unlink();
  }
}
