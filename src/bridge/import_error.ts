/**
 * What `importTools` reports: the tools it could not import (`ImportError`,
 * beside the imported ones) and the listing failures that import nothing
 * (`ListToolsError`, thrown).
 *
 * @module
 */

import { quote } from "../core/errors.ts";

/** One tool `importTools` left out. */
export interface SkippedTool {
  /** The server-side, unprefixed name; `""` when the name itself was the problem or the entry was not an object. */
  readonly name: string;
  /** The entry's position in the listing, from 0, counted across pages, skipped entries included. */
  readonly index: number;
  /** Why: a `NonObjectEntryError`, `EmptyNameError`, `DuplicateNameError`, or the core's `SchemaError`. */
  readonly error: Error;
}

/**
 * The tools `importTools` could not import. It travels beside the imported
 * tools (`{ tools, skipped }`), never instead of them: the caller decides
 * whether a skipped tool is a warning or a stop. `.errors` holds each
 * skipped tool's cause and `.skipped` the entries, in listing order.
 *
 * The message is `mcp: <N> tool(s) not imported:` followed, per entry, by
 * ` "<name>": <cause>` or, for an entry with no usable name,
 * ` entry <index>: <cause>`, separated by `;`.
 *
 * @example Using `ImportError`
 * ```ts
 * import { EmptyNameError } from "@weft/mcp/bridge";
 * import { ImportError } from "@weft/mcp";
 * import assert from "node:assert/strict";
 * const err = new ImportError([{ name: "", index: 0, error: new EmptyNameError() }]);
 * assert.equal(err.message, "mcp: 1 tool(s) not imported: entry 0: empty name");
 * assert.ok(err.errors[0] instanceof EmptyNameError);
 * ```
 */
export class ImportError extends AggregateError {
  /** The skipped entries, in listing order. */
  readonly skipped: readonly SkippedTool[];

  /** Builds the report from the skipped entries (at least one). */
  constructor(skipped: readonly SkippedTool[]) {
    const entries = skipped.slice();
    super(entries.map((s) => s.error), renderImportError(entries));
    this.name = "ImportError";
    this.skipped = entries;
  }
}

function renderImportError(skipped: readonly SkippedTool[]): string {
  const parts = skipped.map((s) =>
    s.name !== ""
      ? `${quote(s.name)}: ${s.error.message}`
      : `entry ${s.index}: ${s.error.message}`
  );
  return `mcp: ${skipped.length} tool(s) not imported: ${parts.join("; ")}`;
}

/** A listing entry that is not an object (JSON `null`, a number, a string, an array). Reads `not an object`. */
export class NonObjectEntryError extends Error {
  /** Builds the cause. */
  constructor() {
    super("not an object");
    this.name = "NonObjectEntryError";
  }
}

/**
 * A listing entry whose server-side name is `""` or not a string (checked
 * before the prefix is applied). Reads `empty name`.
 */
export class EmptyNameError extends Error {
  /** Builds the cause. */
  constructor() {
    super("empty name");
    this.name = "EmptyNameError";
  }
}

/**
 * A listing entry whose composed name (prefix + server name) an earlier
 * entry of the same listing already imported. Reads
 * `duplicate name "<server name>" in the listing`.
 */
export class DuplicateNameError extends Error {
  /** The server-side name that repeated. */
  readonly tool: string;

  /** Builds the cause for the server-side name `tool`. */
  constructor(tool: string) {
    super(`duplicate name ${quote(tool)} in the listing`);
    this.name = "DuplicateNameError";
    this.tool = tool;
  }
}

/**
 * A `tools/list` page `importTools` cannot follow: a result without a
 * `tools` array, a `nextCursor` that is not a string, or a cursor the
 * server already gave in this listing (a loop). Thrown: a listing failure
 * imports nothing. Transport and protocol failures are thrown as the SDK
 * raised them, not as this class.
 */
export class ListToolsError extends Error {
  /** The page, from 0, whose result was refused. */
  readonly page: number;

  /** Builds the error for page `page` with the given detail. */
  constructor(page: number, detail: string) {
    super(`mcp: tools/list page ${page}: ${detail}`);
    this.name = "ListToolsError";
    this.page = page;
  }
}
