/**
 * What every server of a `connectServers` set shares: the set's options
 * as each server reads them, and the two hooks back to the set.
 *
 * @module
 */

import { acceptEraStore, type EraStore } from "../runtime/era/era_store.ts";
import type { InputHandler } from "../bridge/input.ts";
import { acceptPinStore } from "../bridge/pins.ts";
import type { ResultRendering } from "../bridge/render.ts";
import type { OAuthClientProvider } from "../auth/client/oauth_client.ts";
import type { ReconnectOptions } from "./_backoff.ts";
import { ServerCatalog } from "./_catalog.ts";
import type { ServerPins } from "./_pins.ts";
import type { ConnectServersOptions } from "./connect_types.ts";

/** What every server of a set shares. */
export interface ServerContext {
  readonly clientInfo?: { readonly name: string; readonly version: string };
  readonly initializeTimeout?: number;
  readonly stderr?:
    | "inherit"
    | "ignore"
    | ((server: string, line: string) => void);
  readonly reconnect: Required<ReconnectOptions> | false;
  readonly fetch?: typeof globalThis.fetch;
  readonly forwardSignals?: boolean;
  readonly render?: ResultRendering;
  /** MCP Apps for every server (an entry's own `apps` wins). */
  readonly apps?: boolean;
  readonly eraStore?: EraStore;
  /** The OAuth client of an HTTP server, by its name. */
  readonly auth?: (server: string) => OAuthClientProvider | undefined;
  /** Answers the servers' requests for input at once (`importTools`' `onInput`). */
  readonly onInput?: InputHandler;
  /** Where each server's listing is kept: a warm entry spares the connection at start. */
  readonly catalog?: ServerCatalog;
  /** Where the servers' tool definitions are pinned. */
  readonly pins?: ServerPins;
  /** A failure after connect: a refresh, a reconnect, a retry, a give-up. */
  report(error: Error): void;
  /** The server's tools or state changed. */
  changed(): void;
}

/**
 * The context of a set built from `connectServers`' options: the stores
 * accepted (a raw `Deno.Kv` taken, anything else a `TypeError` here), the
 * reconnect policy filled in, `onError` behind a hook that never throws,
 * and `changed` the set's own.
 */
export function serverContext(
  options: ConnectServersOptions,
  changed: () => void,
): ServerContext {
  const reconnect = options.reconnect === false ? false : {
    maxAttempts: options.reconnect?.maxAttempts ?? 5,
    initialDelay: options.reconnect?.initialDelay ?? 250,
    maxDelay: options.reconnect?.maxDelay ?? 10_000,
  };
  const onError = options.onError ??
    ((error: Error) => console.error(`weft-mcp: ${error.message}`));
  return {
    clientInfo: options.clientInfo,
    initializeTimeout: options.initializeTimeout,
    stderr: options.stderr,
    reconnect,
    fetch: options.fetch,
    forwardSignals: options.forwardSignals,
    render: options.render,
    apps: options.apps,
    eraStore: acceptEraStore(
      options.eraStore,
      "connectServers: options.eraStore",
    ),
    onInput: options.onInput,
    ...(options.catalog === undefined
      ? {}
      : { catalog: new ServerCatalog(options.catalog) }),
    pins: options.pins === undefined ? undefined : {
      ...options.pins,
      store: acceptPinStore(
        options.pins?.store,
        "connectServers: options.pins.store",
      ),
    },
    auth: authByName(options.auth),
    report: (error) => {
      try {
        onError(error);
      } catch {
        // A failing hook must not break a refresh.
      }
    },
    changed,
  };
}

function authByName(
  auth: ConnectServersOptions["auth"],
): ((server: string) => OAuthClientProvider | undefined) | undefined {
  if (auth === undefined || typeof auth === "function") return auth;
  return (server) => Object.hasOwn(auth, server) ? auth[server] : undefined;
}
