/**
 * Instances of an HTTP server as child processes, for the tests that run
 * one server as several (sessions in Deno KV, in a contract store): each
 * fixture prints its port on stdout and serves until killed. And the
 * requests those tests send: a JSON-RPC POST, the events of an SSE body.
 */

import { childEnv } from "../fixtures/runtime_server_helpers.ts";
import { POST_HEADERS } from "../fixtures/http_test_server.ts";

/** A running instance. */
export interface Instance {
  /** Its endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** Stops it (`SIGTERM`) and waits for it. */
  stop(): Promise<void>;
}

/**
 * Starts `deno run -A --quiet --unstable-kv <fixture> <args…>` and waits
 * for the port it prints.
 */
export async function startInstance(
  fixture: string,
  args: readonly string[],
): Promise<Instance> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "--unstable-kv", fixture, ...args],
    env: childEnv(),
    clearEnv: true,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) {
      throw new Error(`${fixture} ${args.join(" ")} exited before listening`);
    }
    text += value;
  }
  reader.releaseLock();
  return {
    url: `http://127.0.0.1:${text.trim()}/mcp`,
    async stop() {
      child.kill("SIGTERM");
      await child.stdout.cancel().catch(() => {});
      await child.status;
    },
  };
}

/** POSTs `body` as JSON-RPC with the client's headers (and `headers`). */
export function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { ...POST_HEADERS, ...headers },
    body: JSON.stringify(body),
    signal,
  });
}

/** The events of an SSE body read to its end that carry data (priming events carry none). */
export function events(text: string): { id?: string; data: string }[] {
  return text.split("\n\n").filter((block) => block.includes("data:"))
    .map((block) => ({
      id: /^id: (.*)$/m.exec(block)?.[1],
      data: block.split("\n").filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trim()).join("\n"),
    }))
    .filter((event) => event.data !== "");
}

/**
 * Opens a legacy session at `url` (`initialize`, then
 * `notifications/initialized`), asserting each answer, and returns the
 * headers that carry it on later requests.
 */
export async function openSession(
  url: string,
  version: string,
  clientName = "http-instances",
): Promise<Record<string, string>> {
  const init = await post(url, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: clientName, version: "1" },
    },
  });
  if (init.status !== 200) {
    throw new Error(`initialize at ${url} answered ${init.status}`);
  }
  const sid = init.headers.get("mcp-session-id");
  await init.text();
  if (sid === null) throw new Error(`initialize at ${url} opened no session`);
  const session = { "mcp-session-id": sid, "mcp-protocol-version": version };
  const initialized = await post(url, {
    jsonrpc: "2.0",
    method: "notifications/initialized",
  }, session);
  await initialized.body?.cancel();
  if (initialized.status !== 202) {
    throw new Error(
      `notifications/initialized at ${url} answered ${initialized.status}`,
    );
  }
  return session;
}
