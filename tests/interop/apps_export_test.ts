/**
 * MCP Apps, export side (issue 37 item 2): a weft tool with `app` serves its
 * view as `ui://<server>/<tool>` through the resources registry, read by the
 * AI SDK's `readMCPAppResource` and split by `splitMCPAppTools`, over both
 * protocol eras (2026-07-28 by discovery, the `initialize` handshake
 * without), on a real listener on 127.0.0.1. The CSP metadata is on the
 * listing and on the read; results keep their text.
 */

import assert from "node:assert/strict";
import {
  createMCPClient,
  readMCPAppResource,
  splitMCPAppTools,
} from "@ai-sdk/mcp";
import { exportTools, httpHandler, rawTool, Server } from "../../mod.ts";

const HTML = "<!doctype html><html><body><p id=t>clock view</p></body></html>";
const CSP = {
  connectDomains: ["https://api.example.com"],
  resourceDomains: ["https://cdn.example.com"],
};
const URI = "ui://clock-server/clock";

const clock = rawTool({
  name: "clock",
  description: "The time, with a view.",
  app: { html: HTML, csp: CSP, prefersBorder: true },
  run: () => "12:00",
});
const refresh = rawTool({
  name: "refresh",
  description: "Only the view calls this.",
  app: { html: HTML, visibility: ["app"] },
  run: () => "refreshed",
});
const plain = rawTool({
  name: "plain",
  description: "No view.",
  run: () => "p",
});

function appServer(): Server {
  const server = new Server({ name: "clock-server", version: "1.0.0" });
  exportTools(server, clock, refresh, plain);
  return server;
}

for (const discovery of [true, false]) {
  const era = discovery ? "2026-07-28" : "legacy";
  Deno.test(`apps export: @ai-sdk/mcp reads and splits a weft view (${era})`, async () => {
    const handler = httpHandler(appServer, { sessions: !discovery });
    const versions = new Set<string | null>();
    const listener = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (request, info) => {
        versions.add(request.headers.get("mcp-protocol-version"));
        return handler(request, info);
      },
    );
    const client = await createMCPClient({
      transport: {
        type: "http",
        url: `http://127.0.0.1:${listener.addr.port}/mcp`,
      },
      protocolVersionDiscovery: discovery,
    });
    try {
      const listed = await client.listTools();
      const byName = Object.fromEntries(listed.tools.map((t) => [t.name, t]));
      assert.deepEqual(byName.clock._meta, {
        ui: { resourceUri: URI },
        "ui/resourceUri": URI,
      });
      assert.deepEqual(byName.refresh._meta, {
        ui: { resourceUri: "ui://clock-server/refresh", visibility: ["app"] },
        "ui/resourceUri": "ui://clock-server/refresh",
      });
      assert.equal(byName.plain._meta, undefined);
      const split = splitMCPAppTools(listed);
      assert.deepEqual(split.modelVisible.tools.map((t) => t.name), [
        "clock",
        "plain",
      ]);
      assert.deepEqual(split.appVisible.tools.map((t) => t.name), ["refresh"]);

      const resources = await client.listResources();
      const view = resources.resources.find((r) => r.uri === URI);
      assert.equal(view?.mimeType, "text/html;profile=mcp-app");
      assert.deepEqual(view?._meta, { ui: { csp: CSP, prefersBorder: true } });

      const read = await readMCPAppResource({ client, uri: URI });
      assert.equal(read.html, HTML);
      assert.equal(read.mimeType, "text/html;profile=mcp-app");
      assert.deepEqual(read.meta?.csp, CSP);
      assert.equal(read.meta?.prefersBorder, true);

      // A host without views still reads the text.
      const result = await client.callTool({ name: "clock", arguments: {} });
      assert.deepEqual(result.content, [{ type: "text", text: "12:00" }]);
      assert.equal(versions.has("2026-07-28"), discovery, [...versions].join());
    } finally {
      await client.close();
      await handler.close();
      await listener.shutdown();
    }
  });
}
