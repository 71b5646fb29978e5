// Stateless httpHandler with reuseServers: true reuses servers whose request
// ended (no tools registered anew per request), never one that holds
// per-client state; by default (and with reuseServers: false) it builds a
// fresh one per request.

import assert from "node:assert/strict";
import {
  INITIALIZE,
  listen,
  type Listening,
  post,
} from "./fixtures/http_test_server.ts";
import { waitFor } from "./_helpers/wait.ts";

/** Waits until servers were closed `n` times (a stateless request ended). */
function closed(listening: Listening, n: number): Promise<unknown> {
  return waitFor(() => listening.closes() >= n, `${n} server closes`);
}

const LIST = '{"jsonrpc":"2.0","id":2,"method":"tools/list"}';

Deno.test("stateless, reuseServers: true: sequential requests reuse one server; initialize gets its own, never reused", async () => {
  const listening = listen({ reuseServers: true });
  try {
    for (let i = 0; i < 5; i++) {
      const res = await post(listening.url, LIST);
      assert.match(await res.text(), /"tools"/);
      await closed(listening, i + 1); // back in the pool
    }
    assert.equal(listening.servers.length, 1, "one server served all five");
    const init = await post(listening.url, INITIALIZE);
    await init.text();
    await closed(listening, 6);
    assert.equal(listening.servers.length, 2);
    const again = await post(listening.url, LIST);
    await again.text();
    // The pooled server serves it; the one that saw initialize is gone.
    assert.equal(listening.servers.length, 2);
    assert.equal(listening.servers[1].getClientVersion()?.name, "raw");
    assert.equal(listening.servers[0].getClientVersion(), undefined);
  } finally {
    await listening.close();
  }
});

for (const options of [{}, { reuseServers: false }]) {
  Deno.test(`stateless, ${JSON.stringify(options)}: a fresh server per request`, async () => {
    const listening = listen(options);
    try {
      for (let i = 0; i < 3; i++) {
        const res = await post(listening.url, LIST);
        await res.text();
        await closed(listening, i + 1);
      }
      assert.equal(listening.servers.length, 3);
    } finally {
      await listening.close();
    }
  });
}

Deno.test("stateless, reuseServers: true: a server whose call close() interrupted is not reused", async () => {
  const listening = listen({ reuseServers: true });
  try {
    const res = await post(
      listening.url,
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","arguments":{"ms":8000}}}',
    );
    await listening.started;
    await listening.handler!.close();
    await res.body?.pipeTo(new WritableStream()).catch(() => {});
    assert.ok(listening.wasAborted(), "the call's signal aborted");
    await closed(listening, 1);
    const next = await post(listening.url, LIST);
    assert.match(await next.text(), /"tools"/);
    assert.equal(
      listening.servers.length,
      2,
      "a fresh server, not the interrupted one",
    );
  } finally {
    await listening.close();
  }
});
