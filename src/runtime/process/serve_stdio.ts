/**
 * `serveStdio`: serve an SDK server on this process's stdin and stdout.
 *
 * @module
 */

import type { ConnectableServer as Server } from "../connectable.ts";
import type { Transport } from "../sdk_types.ts";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { type CacheHints, resolveCacheHints } from "../era/cache_hints.ts";
import { EraTransport } from "../era/era_server.ts";
import { LineTransport } from "./_line_transport.ts";
import { bufferSource, type ByteSource, fileSink } from "./_byte_pipe.ts";
import { DEFAULT_MAX_LINE_BYTES } from "../errors.ts";
import { ToolsLane } from "../fast/fast_tools.ts";

/** Options of {@link serveStdio}. */
export interface ServeStdioOptions {
  /** Aborting stops serving: the server is closed and the promise resolves. */
  signal?: AbortSignal;
  /** The longest line read from stdin, in bytes. Default 16 MiB. */
  maxLineBytes?: number;
  /**
   * While serving, `console.log`, `console.info` and `console.debug` write
   * to stderr (as `console.error` does), so a stray log line cannot corrupt
   * the protocol stream; they are restored when serving ends. Default true;
   * `false` leaves the console alone.
   */
  redirectConsole?: boolean;
  /**
   * The cache hints on modern (2026-07-28) cacheable results (`tools/list`,
   * `server/discover`, …) as `ttlMs` and `cacheScope`. Default
   * `{ ttlMs: 0, scope: "private" }`: no reuse.
   *
   * @experimental Follows the MCP 2026-07-28 draft; may change with it.
   */
  cacheHints?: CacheHints;
}

type ConsoleMethod = "log" | "info" | "debug";
const REDIRECTED: readonly ConsoleMethod[] = ["log", "info", "debug"];

/**
 * Connects `server` to `Deno.stdin` and `Deno.stdout` through
 * {@link stdioTransport} (newline-delimited JSON-RPC, big integers kept
 * exactly) and resolves when serving ends: when stdin reaches its end (the
 * client went away or closed our input — a stdio server must not outlive
 * its client) or when `signal` aborts. At the end of stdin the requests
 * already read are answered first (open `subscriptions/listen` streams end
 * with their result; a cancelled request is not waited for), for at most
 * 10 s. The server is closed either way, so handlers still running see
 * their `extra.signal` abort.
 *
 * Both protocol eras are served on the one connection: a legacy client
 * (2025-11-25 and before) initializes as ever; a modern one (2026-07-28)
 * sends `server/discover` or any request with its envelope, no
 * `initialize`, and gets stamped results, `subscriptions/listen` streams of
 * the server's list changes, and `-32021` when serving a request needs a
 * client capability it did not declare (see `cacheHints`).
 *
 * Memory stays bounded for a client that does not read our stdout: while
 * more than 1 Mi characters of answers wait to be written, no more of stdin
 * is read; reading resumes as they drain.
 *
 * Only protocol goes to stdout: our writes are whole lines, malformed input
 * is answered with JSON-RPC errors, and console logging is sent to stderr
 * while serving (see `redirectConsole`). stdout itself is left open. The
 * process exits once nothing else holds it (a pending timer in a tool
 * would); call `Deno.exit()` after the promise if your tools may leave work
 * behind.
 *
 * @example Using `serveStdio`
 * ```ts ignore
 * import { Server, serveStdio } from "@weft/mcp";
 * const server = new Server({ name: "demo", version: "1.0.0" }, { capabilities: { tools: {} } });
 * await serveStdio(server); // returns when the client closes our stdin
 * ```
 */
export async function serveStdio(
  server: Server,
  options: ServeStdioOptions = {},
): Promise<void> {
  const signal = options.signal;
  const cacheHints = resolveCacheHints(options.cacheHints, "serveStdio");
  if (signal?.aborted) return;
  // Read from stdin into one buffer and written to stdout directly (no
  // stream between); stdout stays open when we are done. The end of stdin reaches the
  // transport once the requests read before it are answered (or
  // cancelled), so no call in flight is dropped.
  const inFlight = new InFlight();
  const lines = new LineTransport(() => ({
    source: inFlight.untilAnswered(bufferSource(Deno.stdin.readable)),
    sink: fileSink(Deno.stdout),
  }), {
    maxLineBytes: options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    highWater: OUTPUT_HIGH_WATER,
  });
  const transport = new EraTransport(
    inFlight.watch(lines),
    // One client on the other end: a request outside a handler's context
    // is that client's.
    { cacheHints, oneClient: true },
  );
  // Open listens end with their result when the input ends.
  inFlight.onEnd = () => void transport.endListens();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
  });
  const restore = options.redirectConsole === false
    ? () => {}
    : redirectConsole();
  // Open listens end with their result before the server closes.
  const onAbort = () =>
    void transport.endListens().finally(() => server.close());
  try {
    // tools/list and tools/call of exported tools are answered from the
    // server's registry in front of its Protocol (everything else passes).
    await server.connect(new ToolsLane(transport, server));
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) onAbort();
    await closed;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    restore();
  }
}

/**
 * While this many characters of answers wait to be written (a client that
 * does not read our stdout), no more of stdin is read: 1 Mi.
 */
const OUTPUT_HIGH_WATER = 1024 * 1024;

/** How long after the end of stdin the calls still in flight have to finish, in ms. */
const DRAIN_LIMIT = 10_000;

/**
 * The requests read and not yet answered: a request counts from its
 * arrival to its response (or to its `notifications/cancelled`, after
 * which no response comes).
 */
class InFlight {
  readonly #ids = new Set<string | number>();
  #idle?: () => void;

  /** `inner`, with every request in and every response out counted. */
  watch(inner: Transport): Transport {
    const outer: Transport = {
      start: () => inner.start(),
      close: () => inner.close(),
      send: (message, options) => {
        const id = "method" in message ? undefined : message.id;
        if (typeof id === "string" || typeof id === "number") this.#done(id);
        return inner.send(message, options);
      },
    };
    inner.onclose = () => {
      this.#ids.clear();
      this.#check();
      outer.onclose?.();
    };
    inner.onerror = (error) => outer.onerror?.(error);
    inner.onmessage = (message: JSONRPCMessage, extra) => {
      if ("method" in message) {
        if ("id" in message) this.#ids.add(message.id);
        else if (message.method === "notifications/cancelled") {
          const id = message.params?.requestId;
          if (typeof id === "string" || typeof id === "number") this.#done(id);
        }
      }
      outer.onmessage?.(message, extra);
    };
    return outer;
  }

  /** Called when the input ends, before the wait for the answers. */
  onEnd?: () => void;

  /**
   * `source`, ending once every request read from it is answered, or
   * `DRAIN_LIMIT` ms after its end, whichever comes first.
   */
  untilAnswered(source: ByteSource): ByteSource {
    return {
      read: async () => {
        const chunk = await source.read();
        if (chunk !== null) return chunk;
        this.onEnd?.();
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          this.#answered(),
          new Promise((resolve) => {
            timer = setTimeout(resolve, DRAIN_LIMIT);
          }),
        ]);
        clearTimeout(timer);
        return null;
      },
      cancel: () => source.cancel(),
    };
  }

  #answered(): Promise<void> {
    if (this.#ids.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.#idle = resolve;
    });
  }

  #done(id: string | number): void {
    if (this.#ids.delete(id)) this.#check();
  }

  #check(): void {
    if (this.#ids.size > 0 || this.#idle === undefined) return;
    const idle = this.#idle;
    this.#idle = undefined;
    idle();
  }
}

function redirectConsole(): () => void {
  const saved = REDIRECTED.map((method) => [method, console[method]] as const);
  for (const method of REDIRECTED) {
    console[method] = (...data: unknown[]) => console.error(...data);
  }
  return () => {
    for (const [method, original] of saved) console[method] = original;
  };
}
