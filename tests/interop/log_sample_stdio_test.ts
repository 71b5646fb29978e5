/**
 * `ctx.log` and `ctx.sample` over the stdio lane: a real child process on
 * `serveStdio` (tests/fixtures/log_sample_server.ts) and the real v2 client
 * (`@modelcontextprotocol/client` 2.4.0) in both eras — the 2025 level set
 * with `logging/setLevel`, the 2026-07-28 one in the request's `_meta`;
 * sampling as a request on the connection (2025) or an `input_required`
 * round (2026-07-28).
 */

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const FIXTURE = new URL("../fixtures/log_sample_server.ts", import.meta.url)
  .pathname;
const LOG_LEVEL = "io.modelcontextprotocol/logLevel";

for (const mode of ["auto", "legacy"] as const) {
  const era = mode === "auto" ? "2026-07-28" : "2025";
  Deno.test(`stdio (${era}): logs below the level are dropped, sampling reaches the client's handler`, async () => {
    const client = new Client({ name: "v2-stdio", version: "2.4.0" }, {
      capabilities: { sampling: {} },
      versionNegotiation: { mode },
    });
    const seen: string[] = [];
    client.setNotificationHandler("notifications/message", (note) => {
      seen.push(String(note.params.level));
    });
    const asked: string[] = [];
    client.setRequestHandler("sampling/createMessage", (request) => {
      const first = request.params.messages[0].content;
      const text = !Array.isArray(first) && first.type === "text"
        ? first.text
        : "";
      asked.push(text);
      return Promise.resolve({
        role: "assistant" as const,
        content: { type: "text" as const, text: `re ${text}` },
        model: "m",
      });
    });
    await client.connect(
      new StdioClientTransport({
        command: Deno.execPath(),
        args: ["run", "-A", "--quiet", FIXTURE],
        stderr: "ignore",
      }),
    );
    try {
      assert.equal(
        client.getNegotiatedProtocolVersion() === "2026-07-28",
        mode === "auto",
      );
      const signal = AbortSignal.timeout(15_000);
      if (mode === "legacy") {
        await client.setLoggingLevel("warning");
        await client.callTool({ name: "chatty", arguments: {} }, { signal });
      } else {
        await client.callTool({
          name: "chatty",
          arguments: {},
          _meta: { [LOG_LEVEL]: "warning" },
        }, { signal });
      }
      assert.deepEqual(seen, ["warning", "error"]);
      const result = await client.callTool(
        { name: "ask_model", arguments: {} },
        { signal },
      );
      assert.deepEqual(result.content, [{
        type: "text",
        text: "re first? | re second?",
      }]);
      assert.deepEqual(asked, ["first?", "second?"]);
    } finally {
      await client.close();
    }
  });
}
