/**
 * `connectServers` does not retry a server that wants authorization as if
 * it were down: a start refused 401 (an `AuthorizationError`) leaves the
 * server `failed` at once, its error saying authorization is required; a
 * background retry (after a transient failure) that meets a 401 stops
 * there instead of running to `maxAttempts`. Real listeners on 127.0.0.1.
 */

import assert from "node:assert/strict";
import { connectServers } from "../mod.ts";
import { AuthorizationError } from "../auth.ts";
import { ReconnectLimitError } from "../servers.ts";
import { waitUntil } from "./fixtures/runtime_server_helpers.ts";
import { quietFor } from "./_helpers/wait.ts";

/** A listener answering `answer(n)` to its n-th request (from 1). */
function serve(
  answer: (n: number) => Response,
): AsyncDisposable & { url: string; requests: () => number } {
  let requests = 0;
  const closer = new AbortController();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: closer.signal,
    onListen: () => {},
  }, async (req) => {
    await req.body?.cancel();
    return answer(++requests);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/mcp`,
    requests: () => requests,
    async [Symbol.asyncDispose]() {
      closer.abort();
      await server.finished;
    },
  };
}

const unauthorized = () =>
  new Response('{"error":"invalid_token"}', {
    status: 401,
    headers: {
      "content-type": "application/json",
      "www-authenticate": 'Bearer scope="mcp"',
    },
  });

/** Fast retries: a mutation that retries runs to the limit at once. */
const RECONNECT = { maxAttempts: 4, initialDelay: 1, maxDelay: 5 };

Deno.test("connectServers: a server answering 401 at start is failed at once, not retried, its error an AuthorizationError", async () => {
  await using server = serve(unauthorized);
  const reported: Error[] = [];
  await using servers = await connectServers({ locked: { url: server.url } }, {
    reconnect: RECONNECT,
    onError: (e) => reported.push(e),
    signal: AbortSignal.timeout(10_000),
  });
  const [status] = servers.servers();
  assert.equal(status.state, "failed");
  assert.ok(status.error?.cause instanceof AuthorizationError);
  assert.equal(status.error.cause.reason, "authorization-required");
  assert.equal(status.error.cause.status, 401);
  assert.match(servers.error?.message ?? "", /authorization required/);
  const seen = server.requests();
  // A retry would have asked again by now; the state says none is planned.
  await quietFor(50, "no retry after a 401 (5x the retry's delay)");
  assert.equal(servers.servers()[0].state, "failed");
  assert.equal(server.requests(), seen);
  assert.deepEqual(reported, []);
});

Deno.test("connectServers: a retry that meets a 401 stops there, the server failed with the AuthorizationError, not given up after maxAttempts", async () => {
  // Down at first (503), then up and wanting a token.
  let first = 0;
  await using server = serve((n) => {
    if (first === 0) first = n;
    return n === first
      ? new Response("starting", { status: 503 })
      : unauthorized();
  });
  const reported: Error[] = [];
  await using servers = await connectServers({ locked: { url: server.url } }, {
    reconnect: RECONNECT,
    onError: (e) => reported.push(e),
    signal: AbortSignal.timeout(10_000),
  });
  assert.equal(servers.servers()[0].state, "retrying");
  assert.ok(
    await waitUntil(() => servers.servers()[0].state !== "retrying"),
    "the retry ended",
  );
  const [status] = servers.servers();
  assert.equal(status.state, "failed");
  assert.ok(status.error?.cause instanceof AuthorizationError);
  assert.equal(status.error.cause.status, 401);
  // One retry, reported; no give-up.
  assert.equal(reported.length, 1, reported.map((e) => e.message).join("\n"));
  assert.ok(!reported.some((e) => e.cause instanceof ReconnectLimitError));
});
