/**
 * A stateless `httpHandler` whose factory hands back one shared server
 * (the same object every time) while requests overlap: requests that need
 * the SDK's `Protocol` connected take their turns on that server, one
 * after another, instead of the second one failing with the SDK's
 * "Already connected" as a 500. Requests the registry answers (exported
 * tools) still run side by side. Both eras, with and without
 * `reuseServers`.
 */

import assert from "node:assert/strict";
import { ListPromptsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { exportTools, httpHandler, Server, tool } from "../mod.ts";
import {
  META,
  MODERN_PROTOCOL_VERSION as MODERN,
} from "../src/runtime/era/era.ts";
import { quietFor, waitFor } from "./_helpers/wait.ts";

const OVERLAP = 6;

function sharedServer() {
  const server = new Server(
    { name: "shared", version: "1" },
    { capabilities: { prompts: {} } },
  );
  let inside = 0;
  let most = 0;
  server.setRequestHandler(ListPromptsRequestSchema, async () => {
    inside++;
    most = Math.max(most, inside);
    await quietFor(15, "no other request enters the shared Protocol meanwhile");
    inside--;
    return { prompts: [{ name: `p${most}` }] };
  });
  let running = 0;
  let together = 0;
  exportTools(
    server,
    tool({
      name: "slow",
      description: "Waits a little.",
      input: z.object({}),
      run: async () => {
        running++;
        together = Math.max(together, running);
        // Held until every call runs at once: calls made to take turns
        // never get there, and the wait fails past its deadline.
        await waitFor(() => together === OVERLAP, "all calls side by side", {
          everyMs: 1,
        });
        running--;
        return "done";
      },
    }),
  );
  return {
    server,
    mostAtOnce: () => most,
    insideNow: () => inside,
    toolsTogether: () => together,
  };
}

function post(
  handler: (req: Request) => Promise<Response>,
  body: Record<string, unknown>,
  modern: boolean,
): Promise<Response> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  const params = { ...(body.params as Record<string, unknown> | undefined) };
  if (modern) {
    headers["mcp-protocol-version"] = MODERN;
    headers["mcp-method"] = body.method as string;
    if (typeof params.name === "string") headers["mcp-name"] = params.name;
    params._meta = {
      [META.protocolVersion]: MODERN,
      [META.clientCapabilities]: {},
      [META.clientInfo]: { name: "t", version: "1" },
    };
  }
  return handler(
    new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", ...body, params }),
      signal: AbortSignal.timeout(10_000),
    }),
  );
}

for (const modern of [false, true]) {
  for (const reuseServers of [false, true]) {
    const label = `${
      modern ? "2026-07-28" : "2025-11-25"
    }, reuseServers: ${reuseServers}`;

    Deno.test(`stateless, one shared server, ${label}: overlapping requests on its Protocol take turns, none fails`, async () => {
      const shared = sharedServer();
      const errors: Error[] = [];
      const handler = httpHandler(() => shared.server, {
        reuseServers,
        onerror: (error) => errors.push(error),
      });
      try {
        // Each caller reads its own answer as it comes, as a client would.
        const answers = await Promise.all(
          Array.from({ length: OVERLAP }, async (_, i) => {
            const res = await post(handler, {
              id: i + 1,
              method: "prompts/list",
            }, modern);
            return { status: res.status, text: await res.text() };
          }),
        );
        const texts = answers.map((a) => a.text);
        assert.deepEqual(
          answers.map((a) => a.status),
          Array(OVERLAP).fill(200),
          texts.join("\n"),
        );
        for (const [i, text] of texts.entries()) {
          assert.match(text, new RegExp(`"id":${i + 1}\\b`));
          assert.match(text, /"prompts":\[\{"name":"p1"\}\]/, text);
        }
        assert.equal(
          shared.mostAtOnce(),
          1,
          "one request at a time on the shared server's Protocol",
        );
        assert.deepEqual(errors, []);
      } finally {
        await handler.close();
      }
    });

    Deno.test(`stateless, one shared server, ${label}: exported tools answered from the registry still run side by side`, async () => {
      const shared = sharedServer();
      const handler = httpHandler(() => shared.server, { reuseServers });
      try {
        const responses = await Promise.all(
          Array.from(
            { length: OVERLAP },
            (_, i) =>
              post(handler, {
                id: i + 1,
                method: "tools/call",
                params: { name: "slow", arguments: {} },
              }, modern),
          ),
        );
        const texts = await Promise.all(responses.map((r) => r.text()));
        assert.deepEqual(
          responses.map((r) => r.status),
          Array(OVERLAP).fill(200),
        );
        for (const text of texts) assert.match(text, /"text":"done"/);
        assert.equal(shared.toolsTogether(), OVERLAP);
      } finally {
        await handler.close();
      }
    });
  }
}

Deno.test("stateless, one shared server: close() ends the request on the shared server; those waiting their turn are answered, none hangs", async () => {
  const shared = sharedServer();
  const handler = httpHandler(() => shared.server, { onerror: () => {} });
  const pending = Array.from(
    { length: OVERLAP },
    (_, i) => post(handler, { id: i + 1, method: "prompts/list" }, false),
  );
  await waitFor(() => shared.insideNow() > 0, "a request on the shared server");
  await handler.close();
  const started = performance.now();
  const settled = await Promise.allSettled(
    pending.map(async (p) => {
      const res = await p;
      return `${res.status} ${await res.text()}`;
    }),
  );
  // The request close() interrupted ends its stream with no answer (as
  // any request close() interrupts); those waiting their turn are answered
  // in turn, none left hanging.
  const [first, ...rest] = settled.map((s) =>
    s.status === "fulfilled" ? s.value : `rejected: ${s.reason}`
  );
  assert.equal(first, "200 ");
  for (const [i, answer] of rest.entries()) {
    assert.match(
      answer,
      new RegExp(`^200 event: message\n.*"prompts".*"id":${i + 2}\}`),
    );
  }
  assert.ok(
    performance.now() - started < 5_000,
  );
});
