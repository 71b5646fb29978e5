/**
 * Resource definitions: what a server offers to read beside its tools —
 * fixed resources (`resource`) and families of them named by a URI
 * template (`resourceTemplate`) — built once, exported on any number of
 * servers with `exportResources`.
 *
 * @module
 */

import type { AuthInfo } from "../core/auth.ts";
import type { ContentAnnotations, ResourceContents } from "../core/content.ts";
import { parseUriTemplate, type UriTemplate } from "./_uri_template.ts";

/** An icon a client may show for a resource, a template or a prompt. */
export interface Icon {
  /** The icon's URL (`https:` or a `data:` URI). */
  readonly src: string;
  /** Its MIME type, when the URL does not say. */
  readonly mimeType?: string;
  /** Its sizes, as `"48x48"` or `"any"`. */
  readonly sizes?: readonly string[];
  /** The theme it is drawn for. */
  readonly theme?: "light" | "dark";
}

/** What a resource's `read` is called with. */
export interface ResourceReadRequest {
  /** The URI the client asked for. */
  readonly uri: string;
  /** The template variables the URI carries (`{}` for a fixed resource). */
  readonly variables: Readonly<Record<string, string>>;
  /** Aborted when the client cancels the request or goes away. */
  readonly signal: AbortSignal;
  /** The verified caller, when the request came over authenticated HTTP. */
  readonly auth?: AuthInfo;
}

/**
 * What `read` returns: text (one text item, the definition's `mimeType`),
 * bytes (one `blob` item, base64-encoded here), or the contents items
 * themselves (several, or with their own URIs and MIME types).
 */
export type ResourceBody = string | Uint8Array | readonly ResourceContents[];

/** Suggests values for one prompt argument or template variable. */
export type Completer = (
  value: string,
  context: {
    /** The values already given for the other arguments or variables. */
    readonly arguments: Readonly<Record<string, string>>;
  },
) => readonly string[] | Promise<readonly string[]>;

/**
 * What a resource and a resource template are listed with, beside their URI
 * or URI template.
 *
 * @example
 * ```ts
 * import type { ResourceListing } from "@weft/mcp/bridge";
 *
 * const listing: ResourceListing = { name: "readme", mimeType: "text/markdown" };
 * console.log(listing.name);
 * ```
 */
export interface ResourceListing {
  /** The name clients list it by. */
  readonly name: string;
  /** A display name. */
  readonly title?: string;
  /** What it holds, for the client and its model. */
  readonly description?: string;
  /** The MIME type of its contents. */
  readonly mimeType?: string;
  /** Hints for the client (audience, priority, lastModified). */
  readonly annotations?: ContentAnnotations;
  /** Icons a client may show. */
  readonly icons?: readonly Icon[];
  /** Metadata listed as it is. */
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** Options of {@linkcode resource}: one of `text`, `bytes` or `read`. */
export interface ResourceOptions extends ResourceListing {
  /** The resource's URI. */
  readonly uri: string;
  /** Its size in bytes, listed (default: the length of `text` or `bytes`). */
  readonly size?: number;
  /** Fixed text contents. */
  readonly text?: string;
  /** Fixed binary contents. */
  readonly bytes?: Uint8Array;
  /** Reads the contents at each `resources/read`. */
  readonly read?: (
    request: ResourceReadRequest,
  ) => ResourceBody | Promise<ResourceBody>;
}

/** Options of {@linkcode resourceTemplate}. */
export interface ResourceTemplateOptions extends ResourceListing {
  /** An RFC 6570 URI template, levels 1 to 3 (`file:///{+path}`, `db://{table}/{id}`). */
  readonly uriTemplate: string;
  /** Reads the resource a matching URI names. */
  readonly read: (
    request: ResourceReadRequest,
  ) => ResourceBody | Promise<ResourceBody>;
  /** Value suggestions per variable, for `completion/complete`. */
  readonly complete?: Readonly<Record<string, Completer>>;
}

/** A fixed resource, as `resource` builds it. */
export interface ResourceDef {
  /** Which kind of definition this is. */
  readonly kind: "resource";
  /** The resource's URI. */
  readonly uri: string;
  /** Its `resources/list` entry. */
  readonly listing: Readonly<Record<string, unknown>>;
  /** Reads its contents (each item's `uri` and `mimeType` filled in). */
  read(request: ResourceReadRequest): Promise<ResourceContents[]>;
  /**
   * Says its contents changed: every session subscribed to it, on every
   * server it is exported on in this process, is sent
   * `notifications/resources/updated`.
   */
  notifyUpdated(): void;
}

/** A URI template's resources, as `resourceTemplate` builds them. */
export interface ResourceTemplateDef {
  /** Which kind of definition this is. */
  readonly kind: "template";
  /** The template text. */
  readonly uriTemplate: string;
  /** Its variables, in template order. */
  readonly variables: readonly string[];
  /** Its `resources/templates/list` entry. */
  readonly listing: Readonly<Record<string, unknown>>;
  /** Its variable completers. */
  readonly complete?: Readonly<Record<string, Completer>>;
  /** The variables `uri` carries, or `undefined` when the template does not match it. */
  match(uri: string): Record<string, string> | undefined;
  /** Reads the resource `request.uri` names. */
  read(request: ResourceReadRequest): Promise<ResourceContents[]>;
  /**
   * Says the contents of `uri` (a URI the template matches) changed: every
   * session subscribed to it is sent `notifications/resources/updated`.
   */
  notifyUpdated(uri: string): void;
}

/** Listeners of a definition's updates: one per subscribed server and URI. */
const hubs = new WeakMap<object, Set<(uri: string) => void>>();

/** Listens to `def`'s updates; returns the function that stops listening. */
export function onUpdated(
  def: ResourceDef | ResourceTemplateDef,
  listener: (uri: string) => void,
): () => void {
  let hub = hubs.get(def);
  if (hub === undefined) hubs.set(def, hub = new Set());
  hub.add(listener);
  return () => hub.delete(listener);
}

function emit(def: object, uri: string): void {
  for (const listener of [...hubs.get(def) ?? []]) listener(uri);
}

const encoder = new TextEncoder();

function base64Of(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** The contents items of one read of `uri`. */
function contentsOf(
  body: ResourceBody,
  uri: string,
  mimeType: string | undefined,
  where: string,
): ResourceContents[] {
  const mime = mimeType === undefined ? {} : { mimeType };
  if (typeof body === "string") return [{ uri, ...mime, text: body }];
  if (body instanceof Uint8Array) {
    return [{ uri, ...mime, blob: base64Of(body) }];
  }
  if (!Array.isArray(body)) {
    throw new TypeError(
      `${where}: read must return text, a Uint8Array or contents items, got ${typeof body}`,
    );
  }
  return body.map((item) => ({ ...mime, ...item }));
}

function describedListing(
  options: ResourceOptions | ResourceTemplateOptions,
  where: string,
): Record<string, unknown> {
  if (typeof options.name !== "string" || options.name === "") {
    throw new TypeError(`${where}: name must be a non-empty string`);
  }
  const listing: Record<string, unknown> = { name: options.name };
  for (
    const key of [
      "title",
      "description",
      "mimeType",
      "annotations",
      "icons",
      "_meta",
    ] as const
  ) {
    if (options[key] !== undefined) listing[key] = options[key];
  }
  return listing;
}

/**
 * Defines a fixed resource: its URI, name and description, and its
 * contents — fixed `text` or `bytes`, or a `read` function called at each
 * `resources/read`. Export it with `exportResources`. Throws a `TypeError`
 * on an empty URI or name, or unless exactly one of `text`, `bytes` and
 * `read` is given.
 *
 * @example A text resource and a binary one
 * ```ts
 * import { resource } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * const readme = resource({
 *   uri: "docs://readme",
 *   name: "readme",
 *   mimeType: "text/markdown",
 *   text: "# Hello",
 * });
 * const logo = resource({
 *   uri: "img://logo",
 *   name: "logo",
 *   mimeType: "image/png",
 *   bytes: new Uint8Array([0x89, 0x50]),
 * });
 * assert.equal(readme.listing.size, 7);
 * assert.equal((await logo.read({ uri: logo.uri, variables: {}, signal: AbortSignal.timeout(1000) }))[0].mimeType, "image/png");
 * ```
 */
export function resource(options: ResourceOptions): ResourceDef {
  const uri = options?.uri;
  const where = `resource(${JSON.stringify(uri)})`;
  if (typeof uri !== "string" || uri === "") {
    throw new TypeError("resource: uri must be a non-empty string");
  }
  const given = [options.text, options.bytes, options.read].filter((v) =>
    v !== undefined
  );
  if (given.length !== 1) {
    throw new TypeError(
      `${where}: give exactly one of text, bytes or read`,
    );
  }
  const listing: Record<string, unknown> = {
    uri,
    ...describedListing(options, where),
  };
  const size = options.size ??
    (options.text !== undefined
      ? encoder.encode(options.text).length
      : options.bytes?.length);
  if (size !== undefined) listing.size = size;
  const fixed = options.text ?? options.bytes;
  const read = options.read;
  const def: ResourceDef = {
    kind: "resource",
    uri,
    listing: Object.freeze(listing),
    read: async (request) =>
      contentsOf(
        fixed ?? await read!(request),
        request.uri,
        options.mimeType,
        where,
      ),
    notifyUpdated: () => emit(def, uri),
  };
  return Object.freeze(def);
}

/**
 * Defines the resources a URI template names (RFC 6570, levels 1 to 3:
 * `{var}`, `{+var}`, `{#var}`, `{.var}`, `{/var}`, `{;var}`, `{?var,…}`,
 * `{&var}`): listed by `resources/templates/list`, read for any URI the
 * template matches with the variables it carries, each variable completed
 * by its `complete` function. Throws a `TypeError` on a malformed template
 * (or one using level 4's `*` or `:n`), an empty name, or a completer for
 * a variable the template does not have.
 *
 * @example A template read with its variables
 * ```ts
 * import { resourceTemplate } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * const user = resourceTemplate({
 *   uriTemplate: "users://{id}/profile",
 *   name: "user-profile",
 *   mimeType: "application/json",
 *   read: ({ variables }) => JSON.stringify({ id: variables.id }),
 *   complete: { id: (value) => ["1", "2", "10"].filter((id) => id.startsWith(value)) },
 * });
 * assert.deepEqual(user.match("users://42/profile"), { id: "42" });
 * assert.equal(user.match("users://42/other"), undefined);
 * ```
 */
export function resourceTemplate(
  options: ResourceTemplateOptions,
): ResourceTemplateDef {
  const text = options?.uriTemplate;
  const where = `resourceTemplate(${JSON.stringify(text)})`;
  if (typeof text !== "string" || text === "") {
    throw new TypeError(
      "resourceTemplate: uriTemplate must be a non-empty string",
    );
  }
  const template: UriTemplate = parseUriTemplate(text, where);
  if (typeof options.read !== "function") {
    throw new TypeError(`${where}: read must be a function`);
  }
  for (const [name, fn] of Object.entries(options.complete ?? {})) {
    if (!template.variables.includes(name)) {
      throw new TypeError(
        `${where}: complete names ${
          JSON.stringify(name)
        }, which is not a variable of the template`,
      );
    }
    if (typeof fn !== "function") {
      throw new TypeError(`${where}: complete.${name} must be a function`);
    }
  }
  const listing = { uriTemplate: text, ...describedListing(options, where) };
  const read = options.read;
  const def: ResourceTemplateDef = {
    kind: "template",
    uriTemplate: text,
    variables: template.variables,
    listing: Object.freeze(listing),
    ...(options.complete !== undefined &&
      { complete: Object.freeze({ ...options.complete }) }),
    match: (uri) => template.match(uri),
    read: async (request) =>
      contentsOf(await read(request), request.uri, options.mimeType, where),
    notifyUpdated: (uri) => {
      if (template.match(uri) === undefined) {
        throw new TypeError(
          `${where}.notifyUpdated: ${
            JSON.stringify(uri)
          } does not match the template`,
        );
      }
      emit(def, uri);
    },
  };
  return Object.freeze(def);
}
