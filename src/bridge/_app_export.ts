/**
 * Exporting a tool's view (MCP Apps): the `ui://<server>/<tool>` resource
 * served through the server's resources registry, and the `_meta` that
 * names it on the tool.
 *
 * @module
 */

import type { ToolAppOptions } from "../core/app_view.ts";
import type { ToolDef } from "../core/tool.ts";
import { APP_MIME_TYPE, LEGACY_RESOURCE_URI_KEY } from "./app_meta.ts";
import { resource, type ResourceDef } from "./resource_def.ts";
import { serverHandshake } from "../seam/sdk_internals.ts";

/** The URI a tool's view is served at on `server`. */
export function appResourceUri(server: string, tool: string): string {
  return `ui://${encodeURIComponent(server)}/${encodeURIComponent(tool)}`;
}

/** The name a server was built with (`new Server({ name })`), `"server"` when it has none. */
export function exportedServerName(server: object): string {
  const info = serverHandshake(server)?.serverInfo as
    | { name?: unknown }
    | undefined;
  return typeof info?.name === "string" && info.name !== ""
    ? info.name
    : "server";
}

/** The tool's `_meta`: `ui.resourceUri` (and visibility when given) and the flat key. */
export function appToolMeta(
  uri: string,
  app: ToolAppOptions,
): Record<string, unknown> {
  return {
    ui: {
      resourceUri: uri,
      ...(app.visibility === undefined ? {} : { visibility: app.visibility }),
    },
    [LEGACY_RESOURCE_URI_KEY]: uri,
  };
}

/** What the resource's listing and every read item carry as `_meta.ui`. */
function resourceUi(app: ToolAppOptions): Record<string, unknown> {
  return {
    ...(app.csp === undefined ? {} : { csp: app.csp }),
    ...(app.permissions === undefined ? {} : { permissions: app.permissions }),
    ...(app.domain === undefined ? {} : { domain: app.domain }),
    ...(app.prefersBorder === undefined
      ? {}
      : { prefersBorder: app.prefersBorder }),
  };
}

/** The view of `tool` as a resource at `uri`. */
export function appResource(uri: string, tool: ToolDef): ResourceDef {
  const app = tool.app!;
  const meta = { ui: resourceUi(app) };
  return resource({
    uri,
    name: tool.name,
    ...(tool.annotations?.title === undefined
      ? {}
      : { title: tool.annotations.title }),
    description: `The interactive view of the tool ${tool.name}.`,
    mimeType: APP_MIME_TYPE,
    _meta: meta,
    read: () => [{ uri, mimeType: APP_MIME_TYPE, text: app.html, _meta: meta }],
  });
}
