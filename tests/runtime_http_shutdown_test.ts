// A handler holding sessions, a GET stream and a call in flight lets the
// process stop when told: `deno serve` with the handler as its default
// export exits on SIGTERM; with `{ fetch: handler }` an idle session no
// longer holds it (its expiry timer is unref'd); `Deno.serve` with
// `signal` closes every stream. Each waits at most a few seconds for the
// exit: a regression fails, it does not hang.

import assert from "node:assert/strict";
import { httpHandler } from "../src/runtime/http/handler.ts";
import { buildToolServer } from "./fixtures/tool_server.ts";
import { INITIALIZE, post } from "./fixtures/http_test_server.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const FIXTURE = new URL("./fixtures/serve_export.ts", import.meta.url).pathname;
/** How long a stopped server may take to exit before the test fails. */
const EXIT_DEADLINE = 5_000;

function rejectAfter(ms: number, what: string): {
  promise: Promise<never>;
  clear(): void;
} {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} not within ${ms} ms`)),
      ms,
    );
  });
  return { promise, clear: () => clearTimeout(timer) };
}

async function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  const deadline = rejectAfter(ms, what);
  try {
    return await Promise.race([p, deadline.promise]);
  } finally {
    deadline.clear();
  }
}

/** The child's port, from the line its `onListen` prints. */
async function portOf(stderr: ReadableStream<Uint8Array>): Promise<number> {
  const reader = stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the server exited before listening: ${text}`);
    text += value;
    const port = text.match(/listening on http:\/\/[^:]+:(\d+)\//)?.[1];
    if (port !== undefined) {
      // Keep draining stderr so the child never blocks on it.
      (async () => {
        while (!(await reader.read()).done);
      })().catch(() => {});
      return Number(port);
    }
  }
}

/** Opens a session on `url`; returns its id. */
async function openSession(url: string): Promise<string> {
  const init = await post(url, INITIALIZE);
  await init.body?.cancel();
  const sid = init.headers.get("mcp-session-id");
  assert.ok(sid, "initialize gave a session id");
  const headers = {
    "mcp-session-id": sid,
    "mcp-protocol-version": "2025-06-18",
  };
  const ack = await post(
    url,
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    headers,
  );
  await ack.body?.cancel();
  return sid;
}

/** A GET stream and a call that runs for a minute, both open. */
async function holdStreams(url: string, sid: string) {
  const headers = {
    "mcp-session-id": sid,
    "mcp-protocol-version": "2025-06-18",
  };
  const get = await fetch(url, {
    headers: { accept: "text/event-stream", ...headers },
  });
  assert.equal(get.status, 200);
  const call = await post(
    url,
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{"ms":60000}}}',
    headers,
  );
  assert.equal(call.status, 200);
  return {
    getEnded: get.body!.pipeTo(new WritableStream()).catch(() => {}),
    callEnded: call.body!.pipeTo(new WritableStream()).catch(() => {}),
  };
}

/**
 * Runs `deno serve` on the fixture with the handler exported as `form`,
 * hands `use` its endpoint, then sends SIGTERM and asserts the child exits
 * with 0 within the deadline (killed afterwards whatever happened).
 */
async function stopServeChild(
  form: "handler" | "fetch",
  use: (url: string) => Promise<void>,
): Promise<void> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["serve", "-A", "--quiet", "--port", "0", FIXTURE],
    cwd: ROOT,
    env: { WEFT_SERVE_EXPORT: form, NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    const port = await within(20_000, "listening", portOf(child.stderr));
    await use(`http://127.0.0.1:${port}/mcp`);
    child.kill("SIGTERM");
    const status = await within(
      EXIT_DEADLINE,
      "exit after SIGTERM",
      child.status,
    );
    assert.equal(status.code, 0);
  } finally {
    try {
      child.kill("SIGKILL");
    } catch {
      // exited
    }
    await child.status;
  }
}

Deno.test("shutdown: deno serve with the handler as default export exits on SIGTERM with a session, a GET stream and a call open", async () => {
  let open: Awaited<ReturnType<typeof holdStreams>> | undefined;
  await stopServeChild("handler", async (url) => {
    open = await holdStreams(url, await openSession(url));
  });
  await within(
    EXIT_DEADLINE,
    "the client's streams end",
    Promise.all([open!.getEnded, open!.callEnded]),
  );
});

Deno.test("shutdown: deno serve with { fetch: handler } exits on SIGTERM while a session waits to expire", async () => {
  await stopServeChild("fetch", async (url) => {
    await openSession(url);
  });
});

Deno.test("shutdown: Deno.serve and httpHandler on one signal end every stream, session and call", async () => {
  const stop = new AbortController();
  let aborted: unknown;
  const handler = httpHandler(
    () =>
      buildToolServer({
        aborted: (reason) => (aborted = reason ?? "aborted"),
      }),
    { sessions: true, signal: stop.signal },
  );
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    handler,
  );
  const url = `http://127.0.0.1:${server.addr.port}/mcp`;
  const sid = await openSession(url);
  const open = await holdStreams(url, sid);
  assert.equal(handler.stats().sessions, 1);
  stop.abort();
  await within(EXIT_DEADLINE, "Deno.serve finished", server.finished);
  await within(
    EXIT_DEADLINE,
    "the client's streams end",
    Promise.all([open.getEnded, open.callEnded]),
  );
  assert.equal(handler.stats().sessions, 0);
  assert.notEqual(aborted, undefined, "the running call's signal aborted");
});

Deno.test("shutdown: close() ends a stateless call in flight", async () => {
  let aborted: unknown;
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const handler = httpHandler(() =>
    buildToolServer({
      started: () => started(),
      aborted: (reason) => (aborted = reason ?? "aborted"),
    })
  );
  const stop = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    handler,
  );
  try {
    const res = await post(
      `http://127.0.0.1:${server.addr.port}/mcp`,
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","arguments":{"ms":8000}}}',
    );
    await running;
    await handler.close();
    await within(
      EXIT_DEADLINE,
      "the call's stream ends",
      res.body!.pipeTo(new WritableStream()).catch(() => {}),
    );
    assert.notEqual(aborted, undefined, "the call's signal aborted");
  } finally {
    stop.abort();
    await server.finished;
    await handler.close();
  }
});
