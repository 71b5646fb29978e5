/**
 * The pins of a `connectServers` set: each server's tool definitions kept
 * under its identity (its config key with its URL, or with its command and
 * arguments), so a server that changes its command or URL is a new server.
 *
 * @module
 */

import type { PinStore, ToolPins } from "../bridge/pins.ts";
import type { ServerSpec } from "./config.ts";
import type { DenoKvLike } from "../store/deno_kv.ts";

/** `connectServers`' `pins` option. */
export interface ServerPins {
  /**
   * Where the pins are kept: a store of `@weft/mcp/store` (a Deno KV or
   * shared store keeps them across restarts and instances), or a raw
   * `Deno.Kv`, taken as `denoKvStore(kv)`.
   */
  readonly store: PinStore | DenoKvLike;
  /**
   * A server met for the first time: `"trust"` (the default) pins its tools
   * as first listed; `"approve"` makes each of its tools wait for approval.
   * @default "trust"
   */
  readonly onNewServer?: "trust" | "approve";
}

/** The identity a server's pins are kept under. */
export function pinIdentity(spec: ServerSpec): string {
  return spec.kind === "stdio"
    ? JSON.stringify({
      server: spec.name,
      command: spec.config.command,
      args: spec.config.args ?? [],
    })
    : JSON.stringify({ server: spec.name, url: new URL(spec.config.url).href });
}

/** `importTools`' pins for `spec`; `onPin` runs after an approval re-pinned a tool. */
export function pinsFor(
  spec: ServerSpec,
  pins: ServerPins,
  onPin: () => void,
): ToolPins {
  return {
    store: pins.store,
    server: pinIdentity(spec),
    ...(pins.onNewServer === undefined
      ? {}
      : { onNewServer: pins.onNewServer }),
    onPin,
  };
}
