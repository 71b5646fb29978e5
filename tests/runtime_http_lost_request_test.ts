// A call whose HTTP request fails before its response began — the server
// process killed while the tool runs but before the response headers, or
// nothing listening any more — fails with a ConnectionLostError (its cause:
// the fetch's own failure), at once, as a broken response stream does; and
// connectServers, which reconnects on that type, treats it as a lost server.
// Over real child processes on 127.0.0.1.

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { connectHttp } from "../src/runtime/client/connect_http.ts";
import { REQUEST_LOST_MESSAGE } from "../src/runtime/client/_http_calls.ts";
import {
  ConnectionLostError,
  ServerConnectError,
} from "../src/runtime/errors.ts";
import { connectServers } from "../src/servers/connect_servers.ts";
import { resetSeamReport, setSeamWarn } from "../src/seam/sdk_internals.ts";
import { McpTransportError } from "../bridge.ts";
import type { ToolDef } from "../core.ts";
import { childEnv } from "./fixtures/runtime_server_helpers.ts";

const FIXTURE = new URL("./fixtures/http_server.ts", import.meta.url).pathname;

/** The model-visible text, pinned (docs/errors.md). */
const PINNED =
  "the HTTP request failed before the response (the server could not be reached, or it closed the connection)";

/** The HTTP fixture in its own process, and the events of its stderr. */
interface HttpFixture {
  readonly url: string;
  readonly port: number;
  /** Resolves when a `wait` tool has started in the process. */
  readonly waitStarted: Promise<void>;
  /** Kills the process (if it still runs) and waits until it is gone. */
  stop(): Promise<void>;
}

async function spawnFixture(args: string[]): Promise<HttpFixture> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", FIXTURE, ...args],
    env: childEnv(),
    clearEnv: false,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const started = Promise.withResolvers<void>();
  // Ends with the process (its stderr closes then).
  const watching = (async () => {
    let text = "";
    for await (
      const chunk of child.stderr.pipeThrough(new TextDecoderStream())
    ) {
      text += chunk;
      if (text.includes("wait started\n")) started.resolve();
    }
    started.reject(new Error("the HTTP fixture ended before a wait started"));
  })();
  started.promise.catch(() => {}); // a test that never waits is not failed by it
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the HTTP fixture exited before listening");
    text += value;
  }
  await reader.cancel();
  const port = Number(text.trim());
  let stopped: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    waitStarted: started.promise,
    stop: () =>
      stopped ??= (async () => {
        try {
          child.kill("SIGKILL");
        } catch {
          // Nothing lost: the process had already ended.
        }
        await child.status;
        await watching;
      })(),
  };
}

// The call's rejection, or the backstop's (an AbortSignal.timeout) when it
// does not come at once.
function rejectionOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => assert.fail("the call succeeded"),
    (error: unknown) => error,
  );
}

function assertLost(error: unknown): asserts error is ConnectionLostError {
  assert.ok(error instanceof ConnectionLostError, String(error));
  assert.equal(error.message, PINNED);
  // The fetch's own failure (the Fetch standard's network error), kept.
  assert.ok(error.cause instanceof TypeError, `cause: ${String(error.cause)}`);
}

Deno.test("lost request: the pinned text", () => {
  assert.equal(REQUEST_LOST_MESSAGE, PINNED);
});

/**
 * Runs `body` with the SDK reading SSE bodies itself (the seam's fallback,
 * the transport watching them) when `watched`.
 */
async function reading(
  watched: boolean,
  body: () => Promise<void>,
): Promise<void> {
  if (!watched) return await body();
  const proto = StreamableHTTPClientTransport.prototype as unknown as {
    _handleSseStream: (...args: unknown[]) => void;
  };
  const original = proto._handleSseStream;
  // Another arity: the transport leaves the SDK's reading in place.
  proto._handleSseStream = function (this: unknown, stream: unknown) {
    return original.apply(this, [stream, ...[...arguments].slice(1)]);
  };
  // The fallback is said once per process: forget it was, and hear it here.
  resetSeamReport();
  const said: string[] = [];
  const restoreWarn = setSeamWarn((message) => void said.push(message));
  try {
    await body();
    assert.match(said.join("\n"), /\[sseReader\]/, "the SDK read the bodies");
  } finally {
    restoreWarn();
    proto._handleSseStream = original;
  }
}

/** The server's way and the client's era: 2026-07-28, or `initialize` with and without sessions. */
const WAYS = [
  { label: "2026-07-28", args: [], protocol: "auto" },
  { label: "initialize, stateless", args: [], protocol: "legacy" },
  { label: "initialize, sessions", args: ["sessions"], protocol: "legacy" },
] as const;

for (const way of WAYS) {
  for (const watched of [false, true]) {
    const path = watched
      ? "the SDK reads SSE bodies"
      : "the transport reads SSE bodies";

    Deno.test(`lost request: a server killed after the tool started, before the response headers, fails the call with ConnectionLostError, its cause the fetch failure (${way.label}, ${path})`, async () => {
      const server = await spawnFixture([...way.args, "hold-headers"]);
      try {
        await reading(watched, async () => {
          const errors: Error[] = [];
          const client = await connectHttp(server.url, {
            protocol: way.protocol,
            onerror: (error) => errors.push(error),
          });
          try {
            assert.equal(
              client.getProtocolEra()?.era,
              way.protocol === "auto" ? "modern" : "legacy",
            );
            const call = rejectionOf(client.request(
              {
                method: "tools/call",
                params: { name: "wait", arguments: { ms: 60_000 } },
              },
              CallToolResultSchema,
              // The backstop: a call left waiting rejects with a TimeoutError.
              { signal: AbortSignal.timeout(10_000) },
            ));
            await server.waitStarted; // the POST is in, its headers held
            await server.stop();
            assertLost(await call);
            // The transport reports it too, as the same error.
            assert.ok(errors.some((e) => e instanceof ConnectionLostError));
          } finally {
            await client.close();
          }
        });
      } finally {
        await server.stop();
      }
    });
  }

  Deno.test(`lost request: nothing listening any more at call time fails the call with ConnectionLostError, its cause the fetch failure (${way.label})`, async () => {
    const server = await spawnFixture([...way.args]);
    try {
      const client = await connectHttp(server.url, {
        protocol: way.protocol,
        // Declared, so that the client may send roots/list_changed below.
        capabilities: { roots: { listChanged: true } },
        onerror: () => {},
      });
      try {
        const { tools } = await client.listTools();
        assert.ok(tools.some((tool) => tool.name === "echo"));
        await server.stop(); // gone: the port refuses connections
        const call = client.request(
          { method: "tools/call", params: { name: "echo", arguments: {} } },
          CallToolResultSchema,
          { signal: AbortSignal.timeout(10_000) },
        );
        assertLost(await rejectionOf(call));
        // A request of another kind fails the same way.
        assertLost(
          await rejectionOf(
            client.ping({ signal: AbortSignal.timeout(10_000) }),
          ),
        );
        // A notification is no call: nothing is lost, its send fails with
        // the fetch's own error, as the SDK's transport gives it.
        const sent = await rejectionOf(client.sendRootsListChanged());
        assert.ok(
          sent instanceof TypeError && !(sent instanceof ConnectionLostError),
          String(sent),
        );
      } finally {
        await client.close();
      }
    } finally {
      await server.stop();
    }
  });
}

Deno.test("lost request: an initialize that reaches nothing loses no connection: the handshake's ServerConnectError (phase initialize), its cause the fetch's TypeError", async () => {
  const server = await spawnFixture([]);
  await server.stop(); // its port refuses connections now
  const error = await rejectionOf(
    // The initialize era: no server/discover probe before the handshake.
    connectHttp(server.url, {
      protocol: "legacy",
      name: "gone",
      signal: AbortSignal.timeout(10_000),
    }),
  );
  assert.ok(error instanceof ServerConnectError, String(error));
  assert.equal(error.server, "gone");
  assert.equal(error.phase, "initialize");
  assert.ok(
    error.cause instanceof TypeError &&
      !(error.cause instanceof ConnectionLostError),
    `cause: ${String(error.cause)}`,
  );
});

Deno.test("lost request: a call's own cancellation while its POST waits for headers is still the signal's reason, not a lost connection", async () => {
  const server = await spawnFixture(["hold-headers"]);
  try {
    const errors: Error[] = [];
    const client = await connectHttp(server.url, {
      onerror: (error) => errors.push(error),
    });
    try {
      const controller = new AbortController();
      const call = client.request(
        { method: "tools/call", params: { name: "wait", arguments: {} } },
        CallToolResultSchema,
        { signal: controller.signal },
      );
      await server.waitStarted;
      const reason = new Error("caller gave up");
      controller.abort(reason);
      assert.equal(await rejectionOf(call), reason);
      assert.deepEqual(errors, [], "the drop is no transport error");
    } finally {
      await client.close();
    }
  } finally {
    await server.stop();
  }
});

function byName(tools: readonly ToolDef[], name: string): ToolDef {
  const found = tools.find((t) => t.name === name);
  assert.ok(found, `no ${name} among ${tools.map((t) => t.name).join(", ")}`);
  return found;
}

for (const protocol of ["auto", "legacy"] as const) {
  Deno.test(`lost request (connectServers): a URL server killed before the response headers fails the call in flight as a lost server (phase call); the next call reconnects (protocol ${protocol})`, async () => {
    const first = await spawnFixture(["sessions", "hold-headers"]);
    let second: HttpFixture | undefined;
    try {
      await using servers = await connectServers(
        { fx: { url: first.url, protocol } },
        {
          reconnect: { maxAttempts: 3, initialDelay: 1, maxDelay: 5 },
          onError: () => {},
        },
      );
      assert.deepEqual(
        servers.servers().map((s) => s.protocol),
        [protocol === "auto" ? "modern" : "legacy"],
      );
      // Its rejection is taken at once (it may come before it is awaited).
      const call = rejectionOf(
        byName(servers.tools, "fx_wait").invoke(
          '{"ms":60000}',
          { signal: AbortSignal.timeout(10_000) },
        ),
      );
      await first.waitStarted;
      await first.stop();
      const error = await call;
      assert.ok(error instanceof McpTransportError, String(error));
      const named = error.cause;
      assert.ok(named instanceof ServerConnectError, String(named));
      assert.equal(named.server, "fx");
      assert.equal(named.phase, "call");
      assertLost(named.cause);
      assert.deepEqual(servers.servers().map((s) => s.state), ["lost"]);
      // The server is back on the same port: the next call reconnects.
      second = await spawnFixture(["sessions", `port=${first.port}`]);
      const echoed = await byName(servers.tools, "fx_echo").invoke(
        '{"back":true}',
        { signal: AbortSignal.timeout(10_000) },
      );
      assert.equal(echoed, '{"back":true}');
      assert.deepEqual(servers.servers().map((s) => s.state), ["connected"]);
    } finally {
      await first.stop();
      await second?.stop();
    }
  });
}
