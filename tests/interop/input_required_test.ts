/**
 * Interop: importing from a real 2026-07-28 server that asks for input —
 * the v2 SDK's `createMcpHandler` with a tool that returns `inputRequired`
 * (served on 127.0.0.1). The weft side is `importTools` over a minimal
 * modern JSON-RPC client written here (POST with the `_meta` envelope and
 * the `Mcp-*` headers), standing in for the era client adapter, so the
 * test pins the bridge's part: `onInput` answers and the retry carries the
 * answer; without it the call parks and `answer` retries.
 *
 * Note: the v2 handler's stateless 2025 fallback cannot send
 * `elicitation/create` at all (it says so in a tool error), so the 2025
 * direction is covered by weft's own servers (tests/import_input_test.ts,
 * tests/servers_input_test.ts).
 */

import assert from "node:assert/strict";
import {
  createMcpHandler,
  inputRequired,
  McpServer,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { Agent, answer, importTools } from "../../mod.ts";
import { callTools, say, script } from "../../testing.ts";
import { passOn } from "../_helpers/pass_on.ts";

const MODERN = "2026-07-28";

/** A v2 server whose `confirm` asks "Sure?" and answers with the reply it was retried with. */
function v2Server(): McpServer {
  const server = new McpServer({ name: "v2asker", version: "1.0.0" });
  server.registerTool(
    "confirm",
    { description: "Confirms.", inputSchema: z.object({}) },
    // deno-lint-ignore no-explicit-any
    (_args: unknown, ctx: any) => {
      const reply = ctx.mcpReq.inputResponses?.confirm;
      if (reply === undefined) {
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({
              message: "Sure?",
              requestedSchema: z.object({ ok: z.boolean().default(true) }),
            }),
          },
        });
      }
      return {
        content: [{ type: "text", text: `got ${JSON.stringify(reply)}` }],
      };
    },
  );
  return server;
}

function serve(): { url: string } & AsyncDisposable {
  const handler = createMcpHandler(v2Server);
  const stop = new AbortController();
  const listening = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    async (received, info) =>
      handler.fetch((await passOn(received, info)).request),
  );
  return {
    url: `http://127.0.0.1:${listening.addr.port}/mcp`,
    [Symbol.asyncDispose]: async () => {
      stop.abort();
      await listening.finished;
    },
  };
}

/** The smallest modern client: one POST per request, JSON answers. */
function modernClient(url: string) {
  let id = 0;
  return {
    async request(
      request: { method: string; params?: Record<string, unknown> },
    ): Promise<unknown> {
      const headers: Record<string, string> = {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": request.method,
      };
      const name = request.params?.name;
      if (typeof name === "string") headers["mcp-name"] = name;
      const response = await fetch(url, {
        method: "POST",
        headers,
        signal: AbortSignal.timeout(10_000),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: ++id,
          method: request.method,
          params: {
            ...request.params,
            _meta: {
              "io.modelcontextprotocol/protocolVersion": MODERN,
              "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
              "io.modelcontextprotocol/clientInfo": {
                name: "weft-test",
                version: "0",
              },
            },
          },
        }),
      });
      const message = await response.json();
      if (message.error !== undefined) throw new Error(message.error.message);
      return message.result;
    },
  };
}

Deno.test("v2 createMcpHandler: onInput answers input_required; the retry gets the answer with the form's defaults", async () => {
  await using endpoint = serve();
  const asked: unknown[] = [];
  const { tools } = await importTools(modernClient(endpoint.url), {
    onInput: (request, context) => {
      asked.push(request.method, context.server, context.tool);
      return { action: "accept", content: {} };
    },
  });
  assert.equal(
    await tools[0].invoke("{}"),
    'got {"action":"accept","content":{"ok":true}}',
  );
  // The modern client here has no server info to give (no initialize).
  assert.deepEqual(asked, ["elicitation/create", "", "confirm"]);
});

Deno.test("v2 createMcpHandler: without onInput the call parks in the run, and answer retries it", async () => {
  await using endpoint = serve();
  const { tools } = await importTools(modernClient(endpoint.url));
  const agent = new Agent(
    script(callTools({ name: "confirm", args: {} }), say("Confirmed.")),
    { tools },
  );
  const parked = await agent.generate("Confirm.");
  const input = parked.pending[0]?.input;
  assert.equal(
    input?.requests.confirm.method === "elicitation/create" &&
      input.requests.confirm.params.message,
    "Sure?",
  );
  const done = await agent.generate(parked.messages, {
    decisions: [
      answer(parked.pending[0], { action: "accept", content: { ok: false } }),
    ],
  });
  assert.equal(done.text, "Confirmed.");
  assert.match(
    JSON.stringify(done.messages),
    /got \{\\"action\\":\\"accept\\",\\"content\\":\{\\"ok\\":false\}\}/,
  );
});
