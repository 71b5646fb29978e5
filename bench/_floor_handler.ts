/**
 * The floor of the HTTP benches: a minimal correct stateless server for
 * the ten tools of `bench/_http_bench_server.ts`, shared by that server
 * process and the in-process `bench/_prof_handler.ts`.
 *
 * @module
 */

/**
 * The floor: a minimal correct stateless server for the same ten tools,
 * doing only the protocol work a `tools/call` or `tools/list` needs — the
 * method and body checks, in the modern era (2026-07-28) the version and
 * `Mcp-Method`/`Mcp-Name` headers against the body, the tool lookup, the
 * argument check, the result (with `resultType` and the server info when
 * modern) as one SSE event. What any MCP server must spend per request.
 */
export function floorHandler(): (req: Request) => Promise<Response> {
  const SERVER_INFO = { name: "bench", version: "1" };
  const MODERN = "2026-07-28";
  const listing = Array.from({ length: 10 }, (_, i) => ({
    name: i === 0 ? "echo" : `tool_${i}`,
    description: `Echo the text (${i}).`,
    inputSchema: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    },
  }));
  const names = new Set(listing.map((t) => t.name));
  const sse = (message: unknown): Response =>
    new Response(`event: message\ndata: ${JSON.stringify(message)}\n\n`, {
      headers: { "content-type": "text/event-stream" },
    });
  const error = (id: unknown, code: number, message: string): Response =>
    new Response(
      JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }),
      {
        status: 400,
        headers: { "content-type": "application/json" },
      },
    );
  return async (req) => {
    if (req.method !== "POST") return new Response(null, { status: 405 });
    // deno-lint-ignore no-explicit-any
    let body: any;
    try {
      body = await req.json();
    } catch {
      return error(null, -32700, "Parse error");
    }
    if (typeof body?.method !== "string" || body.id === undefined) {
      return error(null, -32600, "Invalid Request");
    }
    const params = body.params ?? {};
    const version = params._meta?.["io.modelcontextprotocol/protocolVersion"];
    const modern = version !== undefined;
    if (modern) {
      if (
        version !== MODERN ||
        req.headers.get("mcp-protocol-version") !== version ||
        req.headers.get("mcp-method") !== body.method ||
        (body.method === "tools/call" &&
          req.headers.get("mcp-name") !== params.name)
      ) return error(body.id, -32020, "Header mismatch");
    }
    let result: Record<string, unknown>;
    if (body.method === "tools/list") {
      result = { tools: listing };
    } else if (body.method === "tools/call") {
      if (!names.has(params.name)) {
        return sse({
          jsonrpc: "2.0",
          id: body.id,
          error: { code: -32602, message: "unknown tool" },
        });
      }
      const text = params.arguments?.text;
      result = typeof text === "string"
        ? { content: [{ type: "text", text: "heard: " + text }] }
        : {
          content: [{ type: "text", text: "INVALID_INPUT" }],
          isError: true,
        };
    } else return error(body.id, -32601, "Method not found");
    if (modern) {
      result.resultType = "complete";
      result._meta = { "io.modelcontextprotocol/serverInfo": SERVER_INFO };
    }
    return sse({ result, jsonrpc: "2.0", id: body.id });
  };
}
