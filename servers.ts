/**
 * Many MCP servers from one `mcpServers` config in full: `connectServers`,
 * the config's types and its validation, the live connection's state, and the
 * errors that name a failed server, its phase and its cause.
 *
 * @example Validate a config before connecting
 * ```ts
 * import { parseServersConfig, ServerConfigError } from "@weft/mcp/servers";
 * import assert from "node:assert/strict";
 *
 * const specs = parseServersConfig({
 *   mcpServers: { memory: { command: "npx", args: ["-y", "server-memory"] } },
 * });
 * assert.equal(specs.length, 1);
 * assert.throws(
 *   () => parseServersConfig({ mcpServers: { bad: { arg: [] } } }),
 *   ServerConfigError,
 * );
 * ```
 *
 * @module
 */

export {
  connectServers,
  ServerListError,
} from "./src/servers/connect_servers.ts";
export type {
  ConnectedServers,
  ConnectServersOptions,
  PeerInfo,
  ReconnectOptions,
  ServerPins,
  ServerPrompt,
  ServerResource,
  ServerResourceTemplate,
  ServerState,
  ServerStatus,
  ShadowFinding,
} from "./src/servers/connect_servers.ts";
export {
  describePermissions,
  parseServersConfig,
  ServerConfigError,
} from "./src/servers/config.ts";
export type {
  HttpServerConfig,
  ServerConfig,
  ServerEntryOptions,
  ServerPermissions,
  ServersConfig,
  ServerSpec,
  StdioServerConfig,
} from "./src/servers/config.ts";
export {
  EgressRefusedError,
  PinDriftError,
  ReconnectLimitError,
  ServerPermissionError,
  ServersError,
  ToolNameTakenError,
} from "./src/servers/errors.ts";
export type { SkippedServerTool } from "./src/servers/errors.ts";
export {
  type CatalogOptions,
  DEFAULT_CATALOG_TTL_MS,
  StaleToolError,
} from "./src/servers/catalog.ts";
