/**
 * The address `httpHandler` prints when `deno serve` tells it where it
 * listens: a URL its own Host rule accepts, so the one a user copies from
 * the terminal is answered, not refused with 403.
 *
 * @module
 */

import { hostName } from "./guard.ts";

/** Where a server listens (the fields of `deno serve`'s address used here). */
export interface ListenedAt {
  readonly hostname?: string;
  readonly port?: number;
  readonly path?: string;
}

/** Addresses meaning "every interface": no client sends them as a Host. */
const WILDCARDS = new Set(["", "0.0.0.0", "::", "[::]"]);
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * The URL to print for a server listening at `address`: a Unix socket's
 * path as it is; a wildcard address (`0.0.0.0`, `::`, `deno serve`'s
 * default) as `localhost`, the name the DNS-rebinding rule accepts from
 * this machine. With `allowedHosts` (the rule on), a host it does not
 * accept is replaced by its first loopback entry, else its first entry.
 */
export function listenUrl(
  address: ListenedAt,
  allowedHosts?: readonly string[],
): string {
  if (address.path !== undefined) return address.path;
  let host = address.hostname ?? "";
  if (WILDCARDS.has(host)) host = "localhost";
  else if (host.includes(":") && !host.startsWith("[")) host = `[${host}]`;
  if (allowedHosts !== undefined && allowedHosts.length > 0) {
    const names = allowedHosts.map(hostName);
    if (!names.includes(host.toLowerCase())) {
      host = names.find((name) => LOOPBACK.has(name)) ?? names[0];
    }
  }
  return `http://${host}:${address.port ?? ""}/`;
}
