/**
 * The two protocol eras on the wire: the 2026-07-28 revision ("modern": no
 * `initialize`, every request carries its protocol version and the
 * client's capabilities in `params._meta`, and on Streamable HTTP in
 * headers too) and the revisions up to 2025-11-25 ("legacy": the
 * `initialize` handshake, sessions). The names, codes and small pure
 * helpers both the client and the server side use.
 *
 * @module
 */

/**
 * Which protocol era a connection or request speaks.
 *
 * @experimental Follows the MCP 2026-07-28 draft; may change with it.
 */
export type ProtocolEra = "modern" | "legacy";

/** The modern revision this module speaks. */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";

/** Every modern revision this module speaks, newest first. */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = [
  MODERN_PROTOCOL_VERSION,
];

/** Whether `version` names a modern revision (2026-07-28 or later). */
export function isModernVersion(version: unknown): version is string {
  return typeof version === "string" && version >= MODERN_PROTOCOL_VERSION;
}

/** The `params._meta` keys of a modern request, and of its result. */
export const META = {
  /** The request's protocol version (required). */
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  /** The client's capabilities for this request (required; `{}` is none). */
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  /** The client's name and version (should be sent). */
  clientInfo: "io.modelcontextprotocol/clientInfo",
  /** The log level the client wants this request's messages at (deprecated). */
  logLevel: "io.modelcontextprotocol/logLevel",
  /** The server's name and version, on every result. */
  serverInfo: "io.modelcontextprotocol/serverInfo",
  /** The `subscriptions/listen` request a notification belongs to. */
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

/** The Streamable HTTP headers of a modern request (lowercase, as `Headers` gives them). */
export const HEADER = {
  /** The request's protocol version; must equal the envelope's. */
  protocolVersion: "mcp-protocol-version",
  /** The request's JSON-RPC method; must equal the body's. */
  method: "mcp-method",
  /** The name the request targets (`tools/call`'s tool, …); must equal the body's. */
  name: "mcp-name",
} as const;

/** The JSON-RPC error codes of the modern revision. */
export const MODERN_ERROR = {
  /** The HTTP headers are missing or disagree with the body (HTTP 400). */
  headerMismatch: -32020,
  /** Serving the request needs a client capability it did not declare (HTTP 400). */
  missingCapability: -32021,
  /** The request's protocol version is not served (HTTP 400); `data: { supported, requested }`. */
  unsupportedVersion: -32022,
} as const;

/** The methods whose target is mirrored in `Mcp-Name`, and the param it mirrors. */
const NAME_PARAM: Readonly<Record<string, "name" | "uri">> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};

/** The param `Mcp-Name` mirrors for `method`, if it has one. */
export function nameParamOf(method: string): "name" | "uri" | undefined {
  return NAME_PARAM[method];
}

/** The methods whose result is cacheable (carries `ttlMs` and `cacheScope`). */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set([
  "server/discover",
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
]);

const SENTINEL_START = "=?base64?";
const SENTINEL_END = "?=";

// Visible ASCII, space and tab, with no whitespace at either end.
function headerSafe(value: string): boolean {
  if (value === "" || /^[ \t]|[ \t]$/.test(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c !== 0x09 && (c < 0x20 || c > 0x7e)) return false;
  }
  return true;
}

function looksEncoded(value: string): boolean {
  return value.startsWith(SENTINEL_START) && value.endsWith(SENTINEL_END);
}

/**
 * A value as an `Mcp-Name` (or `Mcp-Param-*`) header carries it: as is
 * when it is plain header-safe ASCII, else `=?base64?<UTF-8 in base64>?=`.
 */
export function encodeHeaderValue(value: string): string {
  if (headerSafe(value) && !looksEncoded(value)) return value;
  const bytes = new TextEncoder().encode(value);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `${SENTINEL_START}${btoa(binary)}${SENTINEL_END}`;
}

/**
 * The value an `Mcp-Name` header stands for (its base64 form decoded), or
 * `undefined` when the base64 form is malformed.
 */
export function decodeHeaderValue(header: string): string | undefined {
  if (!looksEncoded(header)) return header;
  const body = header.slice(SENTINEL_START.length, -SENTINEL_END.length);
  try {
    const binary = atob(body);
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
