/**
 * The example server past one machine: run it on as many machines (or
 * processes) as you like behind any load balancer, with sessions, their
 * resumable streams and the listen bus in one shared store. `WEFT_STORE`
 * names it:
 *
 * - `redis://[user:pass@]host:6379[/db]` (`rediss://` for TLS): Redis;
 * - `postgres://user:pass@host:5432/db`: Postgres (tables created on first
 *   use);
 * - a file path: Deno KV on that file (processes of one machine);
 * - unset: `Deno.openKv()` (`--unstable-kv`, or `"unstable": ["kv"]` in
 *   `deno.json`) — on Deno Deploy, the database every isolate
 *   shares.
 *
 *     WEFT_STORE=redis://127.0.0.1:6379 deno serve -A --port 8001 examples/scaleout.ts
 *     WEFT_STORE=redis://127.0.0.1:6379 deno serve -A --port 8002 examples/scaleout.ts
 *
 * A session opened on :8001 is served by :8002, a stream dropped on one
 * resumes on the other, a listen stream on either hears the list changes
 * of both. When the store cannot be reached, requests answer 503 with
 * `Retry-After: 5`; `deno serve` stops the handler (and the store's
 * connections) on SIGTERM.
 *
 * @module
 */

import { httpHandler } from "../mod.ts";
import type { HttpHandler } from "../runtime.ts";
import {
  denoKvStore,
  postgresStore,
  redisStore,
  type Store,
} from "../store.ts";
import { newServer } from "./server.ts";

/** The store `target` names (see the module's text). */
export async function sharedStore(target: string | undefined): Promise<Store> {
  if (target?.startsWith("redis://") || target?.startsWith("rediss://")) {
    return redisStore(target);
  }
  if (
    target?.startsWith("postgres://") || target?.startsWith("postgresql://")
  ) {
    return postgresStore(target);
  }
  return denoKvStore(await Deno.openKv(target));
}

/** The session-mode handler over `store`. */
export function scaledOut(store: Store): HttpHandler {
  return httpHandler(newServer, { sessions: true, store });
}

/** What `deno serve` calls. */
const app: HttpHandler = scaledOut(
  await sharedStore(Deno.env.get("WEFT_STORE")),
);

export default app satisfies Deno.ServeDefaultExport;
