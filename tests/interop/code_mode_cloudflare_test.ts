// @cloudflare/codemode 0.5.6 on weft's sandbox: its `/mcp` subpath loads
// under Deno (the SDK's cfworker validator imported first; the package root
// imports `cloudflare:workers` and is not loaded), weft's subprocess
// executor implements its `Executor`, and its `codeMcpServer()` wraps
// server-everything 2026.8.31 so one program chains three of its tools.

import "@cfworker/json-schema";
import assert from "node:assert/strict";
import { codeMcpServer } from "@cloudflare/codemode/mcp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createServer } from "@modelcontextprotocol/server-everything/dist/server/index.js";
import { subprocessExecutor } from "../../sandbox.ts";

type CloudflareExecutor = Parameters<typeof codeMcpServer>[0]["executor"];

Deno.test("codeMcpServer from @cloudflare/codemode runs a program chaining three server-everything tools on weft's executor", async () => {
  await using executor = subprocessExecutor({ timeout: 20_000 });
  // Type-level: weft's executor is a Cloudflare codemode Executor.
  const asCloudflare: CloudflareExecutor = executor;
  const { server, cleanup } = createServer();
  const wrapped = await codeMcpServer({ server, executor: asCloudflare });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await wrapped.connect(b);
  const client = new Client({ name: "weft-test", version: "1.0.0" });
  await client.connect(a);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t: { name: string }) => t.name), ["code"]);
    assert.match(tools[0].description ?? "", /get_sum/);
    // Tool names are sanitized (get-sum → get_sum), as the Executor contract says.
    const code = `async () => {
      const sum = await codemode.get_sum({ a: 2, b: 3 });
      const echoed = await codemode.echo({ message: "sum is " + sum });
      const weather = await codemode.get_structured_content({ location: "Chicago" });
      console.log("chained");
      return { sum, echoed, weather };
    }`;
    const result = await client.callTool({ name: "code", arguments: { code } });
    assert.equal(result.isError, undefined, JSON.stringify(result));
    const text = (result.content as { type: string; text: string }[])[0].text;
    const value = JSON.parse(text);
    assert.match(JSON.stringify(value.sum), /5/);
    assert.match(JSON.stringify(value.echoed), /sum is .*5/);
    assert.equal(typeof value.weather.temperature, "number");
    // A hostile program is an error result, and the server goes on.
    const hostile = await client.callTool({
      name: "code",
      arguments: { code: "async () => Deno.env.toObject()" },
    });
    assert.equal(hostile.isError, true);
    assert.match(
      (hostile.content as { text: string }[])[0].text,
      /^Error: NotCapable: Requires env access/,
    );
  } finally {
    await client.close();
    await wrapped.close();
    cleanup();
  }
});
