/**
 * `connectServers`: every server of an `mcpServers` configuration, connected
 * at once, as one live tool list for an agent. What it takes and gives is
 * in `connect_types.ts`; the set in `_server_set.ts`, each server in
 * `_server.ts`.
 *
 * @module
 */

import { parseServersConfig, type ServersConfig } from "./config.ts";
import type {
  ConnectedServers,
  ConnectServersOptions,
} from "./connect_types.ts";
import { ManagedServer } from "./_server.ts";
import { ServerSet } from "./_server_set.ts";

export type {
  ConnectedServers,
  ConnectServersOptions,
  PeerInfo,
  ServerStatus,
} from "./connect_types.ts";
export type { ReconnectOptions, ServerState } from "./_server.ts";
export type {
  ServerPrompt,
  ServerResource,
  ServerResourceTemplate,
} from "./_resources.ts";
export { ServerListError } from "./_resources.ts";
export type { ServerPins } from "./_pins.ts";
export type { ShadowFinding } from "./_shadow.ts";

/**
 * Connects every server of an `mcpServers` configuration — the object
 * Claude Desktop, Cursor and VS Code read, or the whole document holding
 * it — concurrently, under one deadline, and imports their tools: each
 * named `<server>_<tool>` by default (a server's `prefix`, `""` for none),
 * each under its server's `policy`.
 *
 * A server that fails to spawn, to initialize or to list is named in
 * `error` with its phase and cause, and so is each tool that could not be
 * imported (a bad schema, or a prefixed name an earlier server already
 * has); everything else is usable. Under `reconnect` (the default) a
 * server that failed is started again in the background (state
 * `retrying`), each failure going to `onError`; its tools join the list
 * when it comes up, and it is given up after `maxAttempts`. A server that
 * wants authorization (the failure's cause an `AuthorizationError`) is not
 * retried: it is `failed` at once, and a retry that meets one stops there. A
 * configuration that is wrong is refused before anything starts, with a
 * `ServerConfigError` naming the server and the field; one found only at
 * the start (`permissions` on an entry that cannot enforce them) is the
 * failure's cause, and that server is `failed` at once, never retried.
 *
 * The tools stay current: a server's `notifications/tools/list_changed`
 * lists it again (a call during which the list changed returns once the
 * new list is in); a failed refresh keeps the last good list and goes to
 * `onError`, and so does a name a server loses to an earlier one after a
 * refresh. A server that goes away — its process exits, its HTTP session
 * is forgotten — is reconnected on the next call (see `reconnect`); the
 * call in flight when it died fails with a `ServerConnectError` (phase
 * `call`), which the model reads as the tool's error.
 *
 * `close()` or `await using` ends every server, and every process with its
 * descendants; a SIGINT or SIGTERM to this process ends them too.
 *
 * @example Using `connectServers`
 * ```ts ignore
 * import { Agent, connectServers } from "@weft/mcp";
 * await using servers = await connectServers({
 *   mcpServers: {
 *     memory: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] },
 *     docs: { type: "http", url: "https://example.com/mcp", policy: { requireApproval: true } },
 *   },
 * }, { signal: AbortSignal.timeout(30_000) });
 * if (servers.error) console.warn(servers.error.message);
 * const agent = new Agent(model, { toolSource: servers.toolSource });
 * ```
 */
export async function connectServers(
  config: ServersConfig,
  options: ConnectServersOptions = {},
): Promise<ConnectedServers> {
  const specs = parseServersConfig(config);
  options.signal?.throwIfAborted();
  const set = new ServerSet(options);
  const servers = specs.map((spec) => new ManagedServer(spec, set.context));
  set.attach(servers);
  const deadline = options.signal ?? new AbortController().signal;
  await Promise.all(servers.map((server) => server.launch(deadline)));
  set.settle();
  return set;
}
