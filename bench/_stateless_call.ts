/**
 * The one stateless request the CPU benches send, by mode: a `tools/call`
 * of `echo` (or, with `-list`, a `tools/list`) in the 2026-07-28 era
 * (`modern…`: the envelope in `_meta`, `Mcp-Method`/`Mcp-Name` headers) or
 * the 2025-11-25 one (`legacy…`); and what its answer must contain.
 *
 * @module
 */

/** The request's body and headers, and a text its answer contains. */
export interface StatelessCall {
  readonly body: string;
  readonly headers: Record<string, string>;
  readonly expected: string;
}

/** The request of `mode` (`modern`, `modern-list`, `legacy`, `legacy-list`). */
export function statelessCall(
  mode: string,
  options: { readonly id: number; readonly legacyVersionHeader: boolean },
): StatelessCall {
  const modern = !mode.startsWith("legacy");
  const list = mode.endsWith("-list");
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
  };
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: options.id,
    method: list ? "tools/list" : "tools/call",
    params: list ? (modern ? { _meta: meta } : {}) : {
      name: "echo",
      arguments: { text: "hello" },
      ...(modern ? { _meta: meta } : {}),
    },
  });
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  if (modern) {
    headers["mcp-protocol-version"] = "2026-07-28";
    headers["mcp-method"] = list ? "tools/list" : "tools/call";
    if (!list) headers["mcp-name"] = "echo";
  } else if (options.legacyVersionHeader) {
    headers["mcp-protocol-version"] = "2025-11-25";
  }
  return { body, headers, expected: list ? "tool_9" : "heard: hello" };
}
