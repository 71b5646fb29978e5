/**
 * The scale-out rig: three instances of one server (real processes,
 * `tests/fixtures/scaleout_instance.ts`) on one store, behind a small
 * round-robin proxy on 127.0.0.1 that says which instance answered
 * (`x-served-by: 0`, `1`, `2`). For tests/store_scaleout_test.ts and
 * bench/scaleout_bench.ts.
 */

import { childEnv } from "../fixtures/runtime_server_helpers.ts";

const INSTANCE = new URL("../fixtures/scaleout_instance.ts", import.meta.url)
  .pathname;

/** The store the instances use: `memory` is one store per instance (none shared). */
export type RigStore = "redis" | "postgres" | "kv" | "memory";

/** One instance. */
export interface RigInstance {
  /** Its own endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** Its origin, for `POST /changed`. */
  readonly origin: string;
  /** Kills the process (`SIGKILL`: no goodbye) and waits for it. */
  kill(): Promise<void>;
}

/** Three instances behind a proxy. */
export interface Rig extends AsyncDisposable {
  /** The proxy's endpoint. */
  readonly url: string;
  readonly instances: readonly RigInstance[];
  /** Makes a tool-list change on instance `i`. */
  changed(i: number): Promise<void>;
  /** Stops the proxy and every instance still running. */
  close(): Promise<void>;
}

async function startInstance(
  store: RigStore,
  target: string,
): Promise<RigInstance> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "--unstable-kv", INSTANCE, store, target],
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
      throw new Error(`a ${store} rig instance exited before listening`);
    }
    text += value;
  }
  // Whatever else it prints is not read.
  void (async () => {
    while (!(await reader.read().catch(() => ({ done: true }))).done) {
      // drained
    }
  })();
  const origin = `http://127.0.0.1:${text.trim()}`;
  let gone: Promise<void> | undefined;
  return {
    url: `${origin}/mcp`,
    origin,
    kill() {
      gone ??= (async () => {
        try {
          child.kill("SIGKILL");
        } catch { /* exited already */ }
        await child.status;
      })();
      return gone;
    },
  };
}

/**
 * Starts three instances on `store` (`target`: the connection string, or
 * the KV file) and the proxy before them.
 */
export async function startRig(
  store: RigStore,
  target = "",
): Promise<Rig> {
  const instances = await Promise.all(
    [0, 1, 2].map(() => startInstance(store, target)),
  );
  let next = 0;
  const stop = new AbortController();
  const proxy = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: stop.signal,
    onListen() {},
  }, async (req) => {
    const i = next++ % instances.length;
    const url = new URL(req.url);
    try {
      const res = await fetch(`${instances[i].origin}${url.pathname}`, {
        method: req.method,
        headers: req.headers,
        body: req.body,
      });
      const headers = new Headers(res.headers);
      headers.set("x-served-by", String(i));
      return new Response(res.body, { status: res.status, headers });
    } catch {
      // The instance is gone: what a load balancer answers.
      return new Response(null, {
        status: 502,
        headers: { "x-served-by": String(i) },
      });
    }
  });
  const close = async () => {
    await Promise.all(instances.map((instance) => instance.kill()));
    stop.abort();
    await proxy.finished;
  };
  return {
    url: `http://127.0.0.1:${proxy.addr.port}/mcp`,
    instances,
    async changed(i: number) {
      const res = await fetch(`${instances[i].origin}/changed`, {
        method: "POST",
      });
      await res.body?.cancel();
      if (res.status !== 204) {
        throw new Error(`instance ${i} refused the change: ${res.status}`);
      }
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
