// Stopping abandoned calls over HTTP: what SDK 1.32.2 does alone (measured),
// and what httpHandler and connectHttp add.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { connectHttp } from "../src/runtime/client/connect_http.ts";
import { ConnectionLostError } from "../src/runtime/errors.ts";
import { httpHandler } from "../src/runtime/http/handler.ts";
import {
  INITIALIZE,
  listen,
  type Listening,
  POST_HEADERS,
  serveWith,
} from "./fixtures/http_test_server.ts";
import { childEnv } from "./fixtures/runtime_server_helpers.ts";
import { latch, quietFor, within } from "./_helpers/wait.ts";
import { passOn } from "./_helpers/pass_on.ts";

/** A `wait` call of `ms`. */
const waitCall = (ms: number) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 5,
    method: "tools/call",
    params: { name: "wait", arguments: { ms } },
  });

/** Whether the listening server's `wait` handler aborted within `ms`. */
async function abortedWithin(
  listening: Listening,
  ms: number,
): Promise<unknown> {
  const timeout = quietFor(ms, "the handler's signal is not aborted").then(
    () => "not aborted",
  );
  return await Promise.race([listening.aborted, timeout]);
}

/** POSTs a `wait` call of `ms`, waits for the handler to start, then drops the request. */
async function postAndDrop(
  listening: Listening,
  headers: Record<string, string> = {},
  ms = 1500,
): Promise<void> {
  const controller = new AbortController();
  const response = fetch(listening.url, {
    method: "POST",
    headers: { ...POST_HEADERS, ...headers },
    body: waitCall(ms),
    signal: controller.signal,
  });
  await listening.started;
  const res = await response;
  assert.equal(res.status, 200);
  controller.abort();
  await res.body?.cancel().catch(() => {});
}

// A bare SDK stateless handler: a fresh server and transport per request, as
// the SDK's examples do, and nothing else.
function bareSdkHandler(
  newServer: () => import("@modelcontextprotocol/sdk/server/index.js").Server,
) {
  return async (req: Request): Promise<Response> => {
    const server = newServer();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
    });
    await server.connect(transport);
    return transport.handleRequest(req);
  };
}

Deno.test("measured: with the SDK alone, a dropped HTTP request never aborts the handler", async () => {
  const listening = serveWith(bareSdkHandler);
  try {
    await postAndDrop(listening);
    assert.equal(await abortedWithin(listening, 600), "not aborted");
    await listening.finished; // the handler runs out its 1.5 s
  } finally {
    await listening.close();
  }
});

Deno.test("measured: stateless, an SDK client's cancellation lands on a fresh server and aborts nothing", async () => {
  const listening = listen();
  try {
    const client = new Client({ name: "plain", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(listening.url)),
    );
    const controller = new AbortController();
    const call = client.request(
      {
        method: "tools/call",
        params: { name: "wait", arguments: { ms: 1500 } },
      },
      CallToolResultSchema,
      { signal: controller.signal },
    );
    await listening.started;
    controller.abort();
    await assert.rejects(call);
    // The SDK client keeps the call's POST open, so even our handler sees no drop.
    assert.equal(await abortedWithin(listening, 600), "not aborted");
    await listening.finished; // the handler runs out its 1.5 s
    await client.close();
  } finally {
    await listening.close();
  }
});

for (const sessions of [false, true]) {
  const mode = sessions ? "session mode" : "stateless mode";

  Deno.test(`httpHandler aborts the tool when its HTTP request is dropped (${mode})`, async () => {
    const listening = listen({ sessions });
    try {
      let headers: Record<string, string> = {};
      if (sessions) {
        const init = await fetch(listening.url, {
          method: "POST",
          headers: POST_HEADERS,
          body: INITIALIZE,
        });
        headers = {
          "mcp-session-id": init.headers.get("mcp-session-id") ?? "",
        };
        await init.text();
      }
      const dropped = Date.now();
      await postAndDrop(listening, headers, 60_000);
      // The tool waits 60 s: the bounds only tell an abort from that wait,
      // generously (a loaded machine is slow).
      assert.equal(
        await abortedWithin(listening, 20_000),
        "the HTTP request was dropped",
      );
      assert.ok(Date.now() - dropped < 20_000);
    } finally {
      await listening.close();
    }
  });

  Deno.test(`connectHttp: a call's signal stops the tool on the server (${mode})`, async () => {
    const listening = listen({ sessions });
    try {
      await using client = await connectHttp(listening.url);
      const controller = new AbortController();
      const call = client.request(
        {
          method: "tools/call",
          params: { name: "wait", arguments: { ms: 5000 } },
        },
        CallToolResultSchema,
        { signal: controller.signal },
      );
      await listening.started;
      const reason = new Error("caller gave up");
      controller.abort(reason);
      await assert.rejects(call, (error: unknown) => error === reason);
      const serverReason = await abortedWithin(listening, 1000);
      if (sessions) {
        // Both routes reach the session's server; whichever lands first wins.
        assert.ok(
          ["Error: caller gave up", "the HTTP request was dropped"].includes(
            String(serverReason),
          ),
          String(serverReason),
        );
      } else {
        // The notification went to a fresh server; the dropped request stopped the tool.
        assert.equal(serverReason, "the HTTP request was dropped");
      }
      const echo = await client.callTool({
        name: "echo",
        arguments: { after: 1 },
      });
      assert.deepEqual(
        echo.structuredContent,
        { after: 1 },
        "the client goes on",
      );
    } finally {
      await listening.close();
    }
  });
}

async function spawnHttpServer(
  mode: string[],
): Promise<{ url: string; child: Deno.ChildProcess }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      new URL("./fixtures/http_server.ts", import.meta.url).pathname,
      ...mode,
    ],
    env: childEnv(),
    clearEnv: false,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the HTTP fixture exited before listening");
    text += value;
  }
  reader.releaseLock();
  await child.stdout.cancel().catch(() => {});
  return { url: `http://127.0.0.1:${Number(text.trim())}/mcp`, child };
}

for (const sessions of [false, true]) {
  const mode = sessions ? "session mode" : "stateless mode";

  Deno.test(`a server process killed mid-call fails the call with ConnectionLostError within a second (${mode})`, async () => {
    const { url, child } = await spawnHttpServer(sessions ? ["sessions"] : []);
    try {
      const client = await connectHttp(url, { onerror: () => {} });
      // The tool's progress notification reaches the client on the call's
      // SSE stream, so its response headers are in (killed before them,
      // the call fails with the request's ConnectionLostError text
      // instead: tests/runtime_http_lost_request_test.ts).
      const running = latch();
      const call = client.request(
        {
          method: "tools/call",
          params: { name: "wait", arguments: { ms: 60_000 } },
        },
        CallToolResultSchema,
        { onprogress: () => running.open() },
      );
      await within(running.promise, "the wait tool's progress notification");
      const killedAt = Date.now();
      child.kill("SIGKILL");
      const error = await call.then(() => undefined, (e: unknown) => e);
      assert.ok(error instanceof ConnectionLostError, String(error));
      assert.equal(
        error.message,
        "the HTTP response stream ended before the response",
      );
      // Not the call's own 60 s: the bound only tells the two apart.
      assert.ok(
        Date.now() - killedAt < 20_000,
        `took ${Date.now() - killedAt} ms`,
      );
      await client.close();
    } finally {
      try {
        child.kill("SIGKILL");
      } catch {
        // already dead
      }
      await child.status;
    }
  });
}

Deno.test("connectHttp: close() mid-call drops the call's HTTP request, its answer stream already open", async () => {
  // Stateless: only the dropped request can stop the tool; the request's
  // own signal follows the transport's until its stream ends.
  const listening = listen();
  try {
    const client = await connectHttp(listening.url);
    // The tool's progress notification arrives on the call's SSE body:
    // the response headers are in, the body open.
    const running = latch();
    const call = client.callTool(
      { name: "wait", arguments: { ms: 5000 } },
      undefined,
      { onprogress: () => running.open() },
    );
    await listening.started;
    await within(running.promise, "the wait tool's progress notification");
    await client.close();
    await assert.rejects(call);
    assert.equal(
      await abortedWithin(listening, 1000),
      "the HTTP request was dropped",
    );
  } finally {
    await listening.close();
  }
});

Deno.test("connectHttp: a call's signal cuts a POST the server never answers, leaving nothing open", async () => {
  // initialize (and everything else) reaches a real httpHandler; a tools/call
  // POST is accepted and never answered: no status, no headers, no body.
  const release = Promise.withResolvers<void>();
  const held = Promise.withResolvers<void>();
  // Answered once released, with a body without end: writing it fails (the
  // stream is cancelled) only when the client dropped the connection; on an
  // open one it would wait on the client. Deno's request.signal, which says
  // the same, makes Deno.serve print its legacy-abort warning.
  const dropped = Promise.withResolvers<void>();
  const listening = serveWith((newServer) => {
    const inner = httpHandler(newServer);
    const hanging = async (received: Request): Promise<Response> => {
      const { text, request } = await passOn(received);
      const method = text === "" ? undefined : JSON.parse(text).method;
      if (method !== "tools/call") return await inner(request);
      held.resolve();
      await release.promise;
      return new Response(
        new ReadableStream<Uint8Array>({
          pull: (controller) => controller.enqueue(new Uint8Array(16_384)),
          cancel: () => dropped.resolve(),
        }),
        { headers: { "content-type": "application/json" } },
      );
    };
    return Object.assign(hanging, { close: () => inner.close() });
  });
  try {
    const errors: Error[] = [];
    await using client = await connectHttp(listening.url, {
      onerror: (error) => errors.push(error),
    });
    assert.deepEqual(client.getServerVersion(), {
      name: "fixture",
      version: "1.0.0",
    });
    const controller = new AbortController();
    const call = client.request(
      {
        method: "tools/call",
        params: { name: "echo", arguments: { never: "answered" } },
      },
      CallToolResultSchema,
      { signal: controller.signal },
    );
    await held.promise; // the POST is in: the client waits for its headers
    const reason = new Error("caller gave up");
    const abortedAt = Date.now();
    controller.abort(reason);
    await assert.rejects(call, (error: unknown) => error === reason);
    const took = Date.now() - abortedAt;
    // The POST is never answered: the bound only tells a cut from a hang.
    assert.ok(took < 20_000, `cut after ${took} ms`);
    // The HTTP request itself was dropped, not left open beside the rejection.
    release.resolve();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const gone = await Promise.race([
      dropped.promise.then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), 20_000);
      }),
    ]);
    clearTimeout(timer);
    assert.ok(gone, "the held POST was never dropped");
    assert.deepEqual(errors, [], "the drop is no transport error");
    // The client goes on.
    const { tools } = await client.listTools();
    assert.ok(tools.some((tool) => tool.name === "echo"));
  } finally {
    release.resolve();
    await listening.close();
  }
});
