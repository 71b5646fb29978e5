/**
 * The address `httpHandler` prints under `deno serve` is one its own
 * DNS-rebinding rule answers: `deno serve` listens on 0.0.0.0 by default,
 * a Host the rule refuses with 403; the handler prints `localhost`.
 */

import assert from "node:assert/strict";
import { listenUrl } from "../src/runtime/http/_listen_url.ts";
import { INITIALIZE, post } from "./fixtures/http_test_server.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const FIXTURE = new URL("./fixtures/serve_export.ts", import.meta.url).pathname;

/** The first `httpHandler: listening on <url>` line of `stderr`. */
async function printedUrl(
  stderr: ReadableStream<Uint8Array>,
  signal: AbortSignal,
): Promise<string> {
  const reader = stderr.pipeThrough(new TextDecoderStream()).getReader();
  signal.addEventListener("abort", () => void reader.cancel().catch(() => {}));
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`no address printed: ${text}`);
    text += value;
    const url = text.match(/httpHandler: listening on (\S+)\n/)?.[1];
    if (url !== undefined) {
      // Keep draining stderr so the child never blocks on it.
      (async () => {
        while (!(await reader.read()).done);
      })().catch(() => {});
      return url;
    }
  }
}

Deno.test("deno serve: the address the handler prints is answered, where deno serve's 0.0.0.0 is refused with 403", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["serve", "-A", "--quiet", "--port", "0", FIXTURE],
    cwd: ROOT,
    env: { WEFT_SERVE_EXPORT: "handler", NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    const url = await printedUrl(child.stderr, AbortSignal.timeout(20_000));
    const port = url.match(/^http:\/\/localhost:(\d+)\/$/)?.[1];
    assert.ok(port !== undefined, url);
    const answered = await post(url, INITIALIZE);
    await answered.body?.cancel();
    assert.equal(answered.status, 200);
    // What was printed before: the same server, refused by its Host rule.
    const wildcard = await post(`http://0.0.0.0:${port}/`, INITIALIZE);
    await wildcard.body?.cancel();
    assert.equal(wildcard.status, 403);
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
});

Deno.test("listenUrl: wildcard addresses print localhost; a given host as it is; allowedHosts' own name when it would refuse the host", () => {
  assert.equal(
    listenUrl({ hostname: "0.0.0.0", port: 8000 }),
    "http://localhost:8000/",
  );
  assert.equal(
    listenUrl({ hostname: "::", port: 8000 }),
    "http://localhost:8000/",
  );
  assert.equal(
    listenUrl({ hostname: "127.0.0.1", port: 9 }),
    "http://127.0.0.1:9/",
  );
  assert.equal(listenUrl({ hostname: "::1", port: 9 }), "http://[::1]:9/");
  assert.equal(listenUrl({ path: "/tmp/mcp.sock" }), "/tmp/mcp.sock");
  assert.equal(
    listenUrl({ hostname: "0.0.0.0", port: 80 }, ["mcp.example.com"]),
    "http://mcp.example.com:80/",
  );
  assert.equal(
    listenUrl({ hostname: "0.0.0.0", port: 80 }, [
      "mcp.example.com",
      "127.0.0.1:80",
    ]),
    "http://127.0.0.1:80/",
  );
  assert.equal(
    listenUrl({ hostname: "0.0.0.0", port: 80 }, ["LOCALHOST"]),
    "http://localhost:80/",
  );
});
