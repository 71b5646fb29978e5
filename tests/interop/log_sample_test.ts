/**
 * A weft tool's `ctx.log` and `ctx.sample` reaching the real v2 client
 * (`@modelcontextprotocol/client` 2.4.0) over `httpHandler` with sessions
 * on a real listener on 127.0.0.1, in both eras: in the 2025 era the level
 * is the session's (`logging/setLevel`) and sampling is a
 * `sampling/createMessage` request on the call's stream; in the 2026-07-28
 * era the level is the request's `_meta` (none: nothing sent) and sampling
 * is an `input_required` round the client's own driver fulfils through the
 * same handler.
 */

import assert from "node:assert/strict";
import {
  Client,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { exportTools, httpHandler, rawTool, Server } from "../../mod.ts";

const LOG_LEVEL = "io.modelcontextprotocol/logLevel";

// Built once, outside the factory: a 2026 retry's requestState verifies
// with the definition's own key on whichever server serves it.
const chatty = rawTool({
  name: "chatty",
  description: "Logs at four levels.",
  run: (_args, ctx) => {
    for (const level of ["debug", "info", "warning", "error"] as const) {
      ctx.log?.(level, `${level} line`, { logger: "chatty" });
    }
    return "logged";
  },
});

const askModel = rawTool({
  name: "ask_model",
  description: "Asks the caller's model twice.",
  run: async (_args, ctx) => {
    const texts: string[] = [];
    for (const question of ["first?", "second?"]) {
      const answer = await ctx.sample!({
        messages: [{ role: "user", content: { type: "text", text: question } }],
        maxTokens: 20,
      });
      const item = Array.isArray(answer.content)
        ? answer.content[0]
        : answer.content;
      texts.push(`${answer.model}:${item.type === "text" ? item.text : "?"}`);
    }
    return texts.join(" ");
  },
});

function newServer(): Server {
  const server = new Server({ name: "logsample", version: "1.0.0" });
  exportTools(server, chatty, askModel);
  return server;
}

async function serving(
  body: (url: URL) => Promise<void>,
  sessions = true,
): Promise<void> {
  const stop = new AbortController();
  const handler = httpHandler(newServer, { sessions });
  const listening = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: stop.signal,
    onListen: () => {},
  }, handler);
  try {
    await body(new URL(`http://127.0.0.1:${listening.addr.port}/mcp`));
  } finally {
    await handler.close();
    stop.abort();
    await listening.finished;
  }
}

function newClient(mode: "auto" | "legacy", sampling: boolean): Client {
  return new Client({ name: "v2-interop", version: "2.4.0" }, {
    capabilities: sampling ? { sampling: {} } : {},
    versionNegotiation: { mode },
  });
}

for (const mode of ["auto", "legacy"] as const) {
  const era = mode === "auto" ? "2026-07-28" : "2025";
  Deno.test(`v2 client (${era}): a tool's logs below the level are not sent, at or above are`, async () => {
    await serving(async (url) => {
      const client = newClient(mode, false);
      const seen: string[] = [];
      client.setNotificationHandler("notifications/message", (note) => {
        seen.push(
          `${note.params.level}:${note.params.logger}:${note.params.data}`,
        );
      });
      try {
        await client.connect(new StreamableHTTPClientTransport(url));
        assert.equal(
          client.getNegotiatedProtocolVersion() === "2026-07-28",
          mode === "auto",
        );
        const signal = AbortSignal.timeout(10_000);
        if (mode === "legacy") {
          await client.setLoggingLevel("warning");
          await client.callTool({ name: "chatty", arguments: {} }, { signal });
        } else {
          // No level in the request: nothing is sent, as 2026-07-28 asks.
          await client.callTool({ name: "chatty", arguments: {} }, { signal });
          assert.deepEqual(seen, []);
          await client.callTool({
            name: "chatty",
            arguments: {},
            _meta: { [LOG_LEVEL]: "warning" },
          }, { signal });
        }
        assert.deepEqual(seen, [
          "warning:chatty:warning line",
          "error:chatty:error line",
        ]);
      } finally {
        await client.close();
      }
    });
  });

  Deno.test(`v2 client (${era}): a tool's sampling requests reach the client's handler and its answers the tool`, async () => {
    await serving(async (url) => {
      const client = newClient(mode, true);
      const asked: string[] = [];
      client.setRequestHandler("sampling/createMessage", (request) => {
        const first = request.params.messages[0].content;
        const text = !Array.isArray(first) && first.type === "text"
          ? first.text
          : "";
        asked.push(`${text}/${request.params.maxTokens}`);
        return Promise.resolve({
          role: "assistant" as const,
          content: { type: "text" as const, text: `answer to ${text}` },
          model: "test-model",
          stopReason: "endTurn",
        });
      });
      try {
        await client.connect(new StreamableHTTPClientTransport(url));
        const result = await client.callTool(
          { name: "ask_model", arguments: {} },
          { signal: AbortSignal.timeout(10_000) },
        );
        assert.deepEqual(result.content, [{
          type: "text",
          text: "test-model:answer to first? test-model:answer to second?",
        }]);
        // The 2026 retry runs the handler again from the top: the first
        // answer comes back from the state, the client is not asked twice.
        assert.deepEqual(asked, ["first?/20", "second?/20"]);
      } finally {
        await client.close();
      }
    });
  });

  Deno.test(`v2 client (${era}): sampling without the client's capability is the tool's failure, with the pinned text`, async () => {
    await serving(async (url) => {
      const client = newClient(mode, false);
      try {
        await client.connect(new StreamableHTTPClientTransport(url));
        const result = await client.callTool(
          { name: "ask_model", arguments: {} },
          { signal: AbortSignal.timeout(10_000) },
        );
        assert.equal(result.isError, true);
        assert.deepEqual(result.content, [{
          type: "text",
          text:
            `tool "ask_model" asked the client's model (sampling), but the client declared no sampling capability`,
        }]);
      } finally {
        await client.close();
      }
    });
  });
}

Deno.test("v2 client (2026-07-28, stateless: the direct route): logs by the request's level, sampling as input_required rounds", async () => {
  await serving(async (url) => {
    const client = newClient("auto", true);
    const seen: string[] = [];
    client.setNotificationHandler("notifications/message", (note) => {
      seen.push(String(note.params.level));
    });
    client.setRequestHandler("sampling/createMessage", () =>
      Promise.resolve({
        role: "assistant" as const,
        content: { type: "text" as const, text: "ok" },
        model: "m",
      }));
    try {
      await client.connect(new StreamableHTTPClientTransport(url));
      assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
      const signal = AbortSignal.timeout(10_000);
      await client.callTool({
        name: "chatty",
        arguments: {},
        _meta: { [LOG_LEVEL]: "error" },
      }, { signal });
      assert.deepEqual(seen, ["error"]);
      const result = await client.callTool(
        { name: "ask_model", arguments: {} },
        { signal },
      );
      assert.deepEqual(result.content, [{
        type: "text",
        text: "m:ok m:ok",
      }]);
    } finally {
      await client.close();
    }
  }, false);
});
