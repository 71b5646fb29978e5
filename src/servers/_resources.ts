/**
 * The resources and prompts of a `connectServers` set: each listing across
 * the servers that are up (or cached: connected on first use) and declare
 * the capability, every item tagged with its server; one resource or
 * prompt read from the server named.
 *
 * @module
 */

import type { ToolClient } from "../bridge/peers.ts";
import {
  getPrompt,
  type GetPromptResult,
  type ListOptions,
  listPrompts,
  listResources,
  listResourceTemplates,
  type Prompt,
  readResource,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
} from "../bridge/remote_resources.ts";
import type { ManagedServer } from "./_server.ts";

/** A listed item and the name of the server (the config key) that listed it. */
type FromServer<T> = T & { readonly server: string };

/** A server's resource, tagged with the server (the config key) that listed it. */
export type ServerResource = Resource & {
  /** The server (config key) that listed it. */
  readonly server: string;
};
/** A server's resource template, tagged with the server that listed it. */
export type ServerResourceTemplate = ResourceTemplate & {
  /** The server (config key) that listed it. */
  readonly server: string;
};
/** A server's prompt, tagged with the server that listed it. */
export type ServerPrompt = Prompt & {
  /** The server (config key) that listed it. */
  readonly server: string;
};

/** The servers a listing asks: up, lost (reconnected on the request) or cached, and not known to lack `capability`. */
function askable(
  members: readonly ManagedServer[],
  capability: "resources" | "prompts",
): ManagedServer[] {
  return members.filter((s) => {
    const state = s.state;
    if (state !== "connected" && state !== "cached" && state !== "lost") {
      return false;
    }
    const caps = s.capabilities;
    return caps === undefined || caps[capability] !== undefined;
  });
}

function clientOf(server: ManagedServer): ToolClient {
  return {
    request: (request, schema, options) =>
      server.request(
        request as Parameters<ManagedServer["request"]>[0],
        schema as Parameters<ManagedServer["request"]>[1],
        options,
      ),
  };
}

/**
 * A listing failed on one server of the set: the error names the server
 * and the method; `cause` is the server's own failure.
 */
export class ServerListError extends Error {
  /** The server (config key). */
  readonly server: string;

  /** The failure of `method` on `server`, `cause` the server's own. */
  constructor(server: string, method: string, cause: unknown) {
    super(
      `server ${JSON.stringify(server)}: ${method} failed: ${
        cause instanceof Error ? cause.message : String(cause)
      }`,
      { cause },
    );
    this.name = "ServerListError";
    this.server = server;
  }
}

async function across<T>(
  members: readonly ManagedServer[],
  capability: "resources" | "prompts",
  method: string,
  list: (client: ToolClient, options?: ListOptions) => Promise<T[]>,
  options: ListOptions | undefined,
): Promise<FromServer<T>[]> {
  const lists = await Promise.all(
    askable(members, capability).map(async (server) => {
      const name = server.spec.name;
      try {
        const items = await list(clientOf(server), options);
        return items.map((item) => ({ ...item, server: name }));
      } catch (err) {
        if (options?.signal?.aborted) throw options.signal.reason;
        throw new ServerListError(name, method, err);
      }
    }),
  );
  return lists.flat();
}

/** Every server's resources, in config order. */
export function resourcesOf(
  members: readonly ManagedServer[],
  options?: ListOptions,
): Promise<ServerResource[]> {
  return across(members, "resources", "resources/list", listResources, options);
}

/** Every server's resource templates, in config order. */
export function templatesOf(
  members: readonly ManagedServer[],
  options?: ListOptions,
): Promise<ServerResourceTemplate[]> {
  return across(
    members,
    "resources",
    "resources/templates/list",
    listResourceTemplates,
    options,
  );
}

/** Every server's prompts, in config order. */
export function promptsOf(
  members: readonly ManagedServer[],
  options?: ListOptions,
): Promise<ServerPrompt[]> {
  return across(members, "prompts", "prompts/list", listPrompts, options);
}

function named(
  members: readonly ManagedServer[],
  server: string,
  caller: string,
): ManagedServer {
  const found = members.find((s) => s.spec.name === server);
  if (found === undefined) {
    throw new TypeError(
      `${caller}: no server named ${
        JSON.stringify(server)
      } in this set; the servers: ${
        members.map((s) => JSON.stringify(s.spec.name)).join(", ")
      }`,
    );
  }
  return found;
}

/** One resource of the server named. */
export async function readFrom(
  members: readonly ManagedServer[],
  server: string,
  uri: string,
  options?: { signal?: AbortSignal },
): Promise<ReadResourceResult> {
  return await readResource(
    clientOf(named(members, server, "readResource")),
    uri,
    options,
  );
}

/** One prompt of the server named. */
export async function promptFrom(
  members: readonly ManagedServer[],
  server: string,
  name: string,
  options?: { arguments?: Record<string, string>; signal?: AbortSignal },
): Promise<GetPromptResult> {
  return await getPrompt(
    clientOf(named(members, server, "getPrompt")),
    name,
    options,
  );
}
