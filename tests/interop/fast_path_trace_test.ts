/**
 * Tracing is the same on the HTTP handler's stateless fast path as on the
 * SDK's path: with the OpenTelemetry SDK registered, stateless `tools/call`
 * requests in both eras — one carrying a `traceparent` in `params._meta`,
 * one failing — record the same SERVER spans (name, kind, parent trace,
 * attributes, status) whichever path answered them.
 */

import assert from "node:assert/strict";
import { exportTools, httpHandler, rawTool, Server } from "../../mod.ts";
import { fastPath } from "../../src/runtime/fast/fast_tools.ts";
import {
  META,
  MODERN_PROTOCOL_VERSION as MODERN,
} from "../../src/runtime/era/era.ts";
import { installSdk } from "./_otel.ts";

const TRACE = "0af7651916cd43dd8448eb211c80319c";
const PARENT = "b7ad6b7169203331";

const tools = [
  rawTool({ name: "lookup", description: "Looks up.", run: () => "found" }),
  rawTool({
    name: "fails",
    description: "Fails.",
    run: () => {
      throw new Error("no");
    },
  }),
];

async function spansOf(sdk: ReturnType<typeof installSdk>): Promise<string[]> {
  const handler = httpHandler(() => {
    const server = new Server({ name: "traced", version: "1" });
    exportTools(server, ...tools);
    return server;
  }, { onerror: () => {} });
  const before = sdk.spans().length;
  let id = 1;
  for (const modern of [false, true]) {
    for (const name of ["lookup", "fails"]) {
      const meta: Record<string, unknown> = {
        traceparent: `00-${TRACE}-${PARENT}-01`,
      };
      const headers: Record<string, string> = {
        host: "localhost",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      };
      if (modern) {
        Object.assign(meta, {
          [META.protocolVersion]: MODERN,
          [META.clientCapabilities]: {},
          [META.clientInfo]: { name: "t", version: "1" },
        });
        Object.assign(headers, {
          "mcp-protocol-version": MODERN,
          "mcp-method": "tools/call",
          "mcp-name": name,
        });
      }
      const res = await handler(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers,
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: id++,
            method: "tools/call",
            params: { name, arguments: {}, _meta: meta },
          }),
        }),
      );
      assert.equal(res.status, 200);
      await res.text();
    }
  }
  await handler.close();
  return sdk.spans().slice(before).map((s) =>
    JSON.stringify({
      name: s.name,
      kind: s.kind,
      traceId: s.traceId,
      parentSpanId: s.parentSpanId,
      attributes: s.attributes,
      status: s.status,
    })
  );
}

Deno.test("fast path: the same SERVER spans as the SDK's path, both eras", async () => {
  const sdk = installSdk();
  try {
    const fast = await spansOf(sdk);
    fastPath.enabled = false;
    let full: string[];
    try {
      full = await spansOf(sdk);
    } finally {
      fastPath.enabled = true;
    }
    assert.equal(fast.length, 4);
    assert.ok(fast.every((s) => s.includes(TRACE) && s.includes(PARENT)));
    assert.deepEqual(fast, full);
  } finally {
    await sdk.shutdown();
  }
});
