/**
 * `subscriptions/listen` streams (2026-07-28) are bounded: per handler
 * (`maxListens`, 503) and per principal with `auth`
 * (`maxListensPerPrincipal`, 429), refused before a server is made; a
 * stream's slot, its server and its map entries go when it closes. Over a
 * real listener on 127.0.0.1.
 */

import assert from "node:assert/strict";
import { httpHandler, type HttpHandlerOptions } from "../mod.ts";
import type { AuthInfo } from "../auth.ts";
import {
  DEFAULT_MAX_LISTENS,
  DEFAULT_MAX_LISTENS_PER_PRINCIPAL,
} from "../src/runtime/http/limits.ts";
import {
  META,
  MODERN_PROTOCOL_VERSION as MODERN,
} from "../src/runtime/era/era.ts";
import { ListenCap } from "../src/runtime/http/_listen_cap.ts";
import { eraServer } from "./fixtures/era_server.ts";
import { waitFor } from "./_helpers/wait.ts";

const DEADLINE = 10_000;

/** Tokens name their holder: `Bearer alice` is Alice. */
const byName = {
  resource: "http://127.0.0.1/mcp",
  authorizationServers: ["http://127.0.0.1:9/issuer"],
  verify: (token: string): AuthInfo => ({
    token,
    clientId: "app",
    scopes: [],
    extra: { sub: token },
  }),
};

function serve(options: HttpHandlerOptions) {
  const servers: { transport?: unknown }[] = [];
  const handler = httpHandler(() => {
    const server = eraServer();
    servers.push(server);
    return server;
  }, { onerror: () => {}, ...options });
  const stop = new AbortController();
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    handler,
  );
  return {
    url: `http://127.0.0.1:${listener.addr.port}/mcp`,
    handler,
    servers,
    async [Symbol.asyncDispose]() {
      await handler.close();
      stop.abort();
      await listener.finished;
    },
  };
}

interface Stream {
  readonly status: number;
  readonly res: Response;
  /** Closes the stream from the client's side. */
  close(): Promise<void>;
  /** Reads the stream to its end: what it carried after the acknowledgement. */
  rest(): Promise<string>;
}

let ids = 0;

/** Opens a listen stream; for a 200, waits for its acknowledgement. */
async function listen(url: string, bearer?: string): Promise<Stream> {
  const id = `sub-${++ids}`;
  const client = new AbortController();
  const deadline = AbortSignal.timeout(DEADLINE);
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": "subscriptions/listen",
      ...(bearer !== undefined && { authorization: `Bearer ${bearer}` }),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "subscriptions/listen",
      params: {
        notifications: { toolsListChanged: true },
        _meta: {
          [META.protocolVersion]: MODERN,
          [META.clientCapabilities]: {},
          [META.clientInfo]: { name: "cap-test", version: "1" },
        },
      },
    }),
    signal: AbortSignal.any([client.signal, deadline]),
  });
  if (res.status === 200) {
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("notifications/subscriptions/acknowledged")) {
      const { value, done } = await reader.read();
      assert.ok(!done, `the stream ended before its acknowledgement: ${text}`);
      text += value;
    }
    return {
      status: 200,
      res,
      close: async () => {
        client.abort();
        await reader.cancel().catch(() => {});
      },
      rest: async () => {
        let rest = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return rest;
          rest += value;
        }
      },
    };
  }
  return {
    status: res.status,
    res,
    close: () => Promise.resolve(),
    rest: () => res.text(),
  };
}

/** Polls `done` until it holds, failing at the deadline. */
async function until(done: () => boolean, what: string): Promise<void> {
  await waitFor(done, what, { signal: AbortSignal.timeout(DEADLINE) });
}

Deno.test("listen cap: the defaults are 1,000 per handler and 100 per principal", () => {
  assert.equal(DEFAULT_MAX_LISTENS, 1000);
  assert.equal(DEFAULT_MAX_LISTENS_PER_PRINCIPAL, 100);
});

for (const sessions of [false, true]) {
  Deno.test(`listen cap (maxListens, ${sessions ? "session" : "stateless"} handler): up to the cap, the next 503 saying why, room again as streams close; nothing left after`, async () => {
    await using served = serve({ maxListens: 5, sessions });
    const open = await Promise.all(
      Array.from({ length: 5 }, () => listen(served.url)),
    );
    assert.deepEqual(open.map((s) => s.status), [200, 200, 200, 200, 200]);
    assert.equal(served.handler.stats().listens, 5);
    const made = served.servers.length;
    const refused = await listen(served.url);
    assert.equal(refused.status, 503);
    assert.equal(refused.res.headers.get("retry-after"), "30");
    assert.deepEqual(await refused.res.json(), {
      jsonrpc: "2.0",
      error: {
        code: -32000,
        message:
          "Service Unavailable: the server holds its maximum of 5 open subscriptions/listen streams (maxListens); retry after 30 s",
      },
      id: `sub-${ids}`,
    });
    assert.equal(served.servers.length, made, "no server made for a refusal");
    // Two close: two fit again, then the cap holds again.
    await open[0].close();
    await open[1].close();
    await until(() => served.handler.stats().listens === 3, "two slots back");
    const more = [await listen(served.url), await listen(served.url)];
    assert.deepEqual(more.map((s) => s.status), [200, 200]);
    const again = await listen(served.url);
    assert.equal(again.status, 503);
    await again.res.body?.cancel();
    // All close: every slot back and every server closed.
    await Promise.all([...open.slice(2), ...more].map((s) => s.close()));
    await until(() => served.handler.stats().listens === 0, "every slot back");
    await until(
      () => served.servers.every((s) => s.transport === undefined),
      "every stream's server closed",
    );
  });
}

Deno.test("listen cap (maxListensPerPrincipal): one caller is refused 429 past its cap, others are not; a closed stream makes room", async () => {
  await using served = serve({
    auth: byName,
    maxListens: 10,
    maxListensPerPrincipal: 2,
  });
  const alice = [
    await listen(served.url, "alice"),
    await listen(served.url, "alice"),
  ];
  assert.deepEqual(alice.map((s) => s.status), [200, 200]);
  const third = await listen(served.url, "alice");
  assert.equal(third.status, 429);
  assert.equal(third.res.headers.get("retry-after"), null);
  assert.deepEqual(await third.res.json(), {
    jsonrpc: "2.0",
    error: {
      code: -32000,
      message:
        "Too Many Requests: this caller holds its maximum of 2 open subscriptions/listen streams (maxListensPerPrincipal); close one before opening another",
    },
    id: `sub-${ids}`,
  });
  const bob = [
    await listen(served.url, "bob"),
    await listen(served.url, "bob"),
  ];
  assert.deepEqual(bob.map((s) => s.status), [200, 200]);
  await alice[0].close();
  await until(() => served.handler.stats().listens === 3, "Alice's slot back");
  const back = await listen(served.url, "alice");
  assert.equal(back.status, 200);
  await Promise.all([alice[1], back, ...bob].map((s) => s.close()));
  await until(() => served.handler.stats().listens === 0, "every slot back");
});

Deno.test("listen cap: the handler's close ends the streams and gives their slots back", async () => {
  await using served = serve({ maxListens: 3 });
  const open = await Promise.all(
    Array.from({ length: 3 }, () => listen(served.url)),
  );
  assert.equal(served.handler.stats().listens, 3);
  await served.handler.close();
  for (const stream of open) {
    // Each ends with its result, gracefully.
    assert.match(await stream.rest(), /"resultType":"complete"/);
  }
  await until(() => served.handler.stats().listens === 0, "every slot back");
  await Promise.all(open.map((s) => s.close()));
});

Deno.test("ListenCap: a released slot leaves no entry for its principal; releasing twice gives back one slot", () => {
  const cap = new ListenCap(3, 2, () => {});
  const a1 = cap.take("alice", 1);
  const a2 = cap.take("alice", 2);
  assert.ok(typeof a1 === "function" && typeof a2 === "function");
  assert.ok(cap.take("alice", 3) instanceof Response);
  const b = cap.take("bob", 4);
  assert.ok(typeof b === "function");
  assert.equal(
    cap.take(undefined, 5) instanceof Response,
    true,
    "handler full",
  );
  a1();
  a1();
  assert.equal(cap.open, 2);
  a2();
  b();
  assert.equal(cap.open, 0);
  assert.equal(cap.principals, 0, "no principal entries left");
});

Deno.test("listen cap: the options must be non-negative integers", () => {
  for (
    const [name, value] of [["maxListens", -1], [
      "maxListensPerPrincipal",
      1.5,
    ]] as const
  ) {
    assert.throws(() => httpHandler(() => eraServer(), { [name]: value }), {
      name: "TypeError",
      message:
        `httpHandler: options.${name} must be a non-negative integer, got ${value}`,
    });
  }
});
