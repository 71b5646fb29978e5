/**
 * The opt-in `read_resource` tool of an import (`ImportOptions.readResource`):
 * the server's resources offered to the model as one more imported tool.
 * Its listing entry is made here from the server's resource list and goes
 * through the import like any listed tool — the prefix, the approval
 * policy, the pins (its description names every resource, so a changed
 * list is a changed definition) — and its calls read only the resources
 * that list named, with `resources/read`.
 *
 * @module
 */

import type { InvokeOptions, ToolArguments } from "../core/tool.ts";
import type { ContentItem } from "../core/content.ts";
import type { ToolClient as Client } from "./peers.ts";
import {
  listResources,
  readResource,
  type Resource,
} from "./remote_resources.ts";

/** The tool's name on the server side (before the import's prefix). */
export const READ_RESOURCE = "read_resource";

/** The invoke body of an imported tool. */
export type InvokeBody = (
  args: ToolArguments,
  options: InvokeOptions,
) => Promise<string>;

/** The description the model reads: what the tool does, then every resource listed. */
export function readResourceDescription(
  resources: readonly Resource[],
): string {
  const lines = resources.map((r) => {
    const mime = typeof r.mimeType === "string" ? ` (${r.mimeType})` : "";
    const about = typeof r.description === "string" && r.description !== ""
      ? `: ${r.description}`
      : "";
    return `- ${r.uri} ${JSON.stringify(r.name)}${mime}${about}`;
  });
  return `Reads one resource of this MCP server by its URI and returns its contents. The resources:\n${
    lines.length === 0 ? "(none)" : lines.join("\n")
  }`;
}

/** The failure of a call with no string `uri`. */
export function uriMissingText(): string {
  return `read_resource needs {"uri": "<one of the URIs in its description>"}`;
}

/** The failure of a call naming a URI the server did not list. */
export function uriNotListedText(uri: string): string {
  return `resource ${
    JSON.stringify(uri)
  } is not one this server listed; read one of the URIs in this tool's description`;
}

/**
 * The synthetic listing entry and its invoke body, from the server's
 * resources now (every page, up to `limit`).
 */
export async function readResourceEntry(
  client: Client,
  options: { limit?: number; signal?: AbortSignal },
): Promise<{ entry: Record<string, unknown>; invoke: InvokeBody }> {
  const resources = await listResources(client, options);
  const listed = new Set(resources.map((r) => r.uri));
  const entry = {
    name: READ_RESOURCE,
    description: readResourceDescription(resources),
    inputSchema: {
      type: "object",
      properties: {
        uri: { type: "string", description: "The resource's URI." },
      },
      required: ["uri"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  };
  const invoke: InvokeBody = async (args, options) => {
    const uri = uriOf(args);
    if (uri === undefined) throw new Error(uriMissingText());
    if (!listed.has(uri)) throw new Error(uriNotListedText(uri));
    const { contents } = await readResource(client, uri, {
      signal: options.signal,
    });
    const text = contents.map(renderContents).join("\n");
    options.onResult?.({
      text,
      content: contents.map((resource) =>
        ({ type: "resource", resource }) as ContentItem
      ),
    });
    return text;
  };
  return { entry, invoke };
}

function uriOf(args: ToolArguments): string | undefined {
  let value: unknown = args;
  if (typeof args === "string") {
    try {
      value = JSON.parse(args);
    } catch {
      return undefined;
    }
  }
  const uri = (value as { uri?: unknown } | null)?.uri;
  return typeof uri === "string" ? uri : undefined;
}

// A text resource as its text; a binary one as a marker with its size.
function renderContents(item: Record<string, unknown>): string {
  if (typeof item.text === "string") return item.text;
  const mime = typeof item.mimeType === "string" ? item.mimeType : "binary";
  const blob = typeof item.blob === "string" ? item.blob : "";
  const padding = blob.endsWith("==") ? 2 : blob.endsWith("=") ? 1 : 0;
  const bytes = Math.max(0, Math.floor(blob.length / 4) * 3 - padding);
  return `[resource ${String(item.uri)}, ${mime}, ${bytes} bytes]`;
}
