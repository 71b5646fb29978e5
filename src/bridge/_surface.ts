/**
 * What the resources, prompts and completion registries share on an SDK
 * server: the wider server shape they use, and how each declares its
 * capability and installs its handlers once (on `@weft/mcp`'s `Server`,
 * queued until its handler maps are first read, as the tool registry's).
 *
 * @module
 */

import { deferredHandlers } from "../core/deferred_handlers.ts";
import { serverCapabilities } from "../seam/sdk_internals.ts";

/** The SDK `Server` as these registries use it (any copy in the supported range). */
export interface SurfaceServer {
  readonly transport?: unknown;
  onclose?: (() => void) | undefined;
  registerCapabilities(capabilities: Record<string, unknown>): void;
  assertCanSetRequestHandler(method: string): void;
  setRequestHandler(
    schema: unknown,
    handler: (request: never, extra: never) => unknown,
  ): void;
  notification(notification: {
    method: string;
    params?: Record<string, unknown>;
  }): Promise<void>;
}

/** A surface: who registers it, its capability and the methods it answers. */
export interface SurfaceOptions {
  /** Names the registering call in errors. */
  readonly caller: string;
  /** The server capability the surface declares. */
  readonly capability: string;
  /** The capability's value when declared. */
  readonly declared: Record<string, unknown>;
  /** The request methods it installs handlers for. */
  readonly methods: readonly string[];
}

/**
 * Declares `capability` (its value `declared`) on `server` unless it has it,
 * then installs the handlers of `methods` through `install`: now, or queued
 * on a server that defers its handler maps. Throws a `TypeError` naming
 * `caller`, installing nothing, on a connected server without the
 * capability, or one whose handler for one of `methods` someone else set.
 */
export function installSurface(
  server: SurfaceServer,
  options: SurfaceOptions & { readonly install: () => void },
): void {
  checkSurface(server, options);
  const has = serverCapabilities(server)?.[options.capability] !== undefined;
  if (!has) {
    server.registerCapabilities({ [options.capability]: options.declared });
  }
  if (!deferredHandlers(server, options.install)) options.install();
}

/**
 * Throws what `installSurface` would throw for `options`, changing nothing:
 * a registration that installs two surfaces checks both first.
 */
export function checkSurface(
  server: SurfaceServer,
  options: SurfaceOptions,
): void {
  const { caller, capability } = options;
  const has = serverCapabilities(server)?.[capability] !== undefined;
  if (!has && server.transport !== undefined) {
    throw new TypeError(
      `${caller}: the server is already connected and does not declare the ${capability} capability; pass capabilities: { ${capability}: ${
        JSON.stringify(options.declared)
      } } to the Server, or export before connect`,
    );
  }
  const deferring = deferredHandlers(server);
  if (!deferring) {
    for (const method of options.methods) {
      try {
        server.assertCanSetRequestHandler(method);
      } catch (cause) {
        throw new TypeError(
          `${caller}: the server already has a ${method} handler the bridge did not install (an McpServer's, or your own); the bridge keeps one ${capability} registry per server`,
          { cause },
        );
      }
    }
  }
}

/** Sends `method` to a connected server's client, best effort. */
export function notifyClient(
  server: SurfaceServer,
  method: string,
  params?: Record<string, unknown>,
): void {
  if (server.transport === undefined) return;
  // A closing transport is not the registry's failure: nothing to tell.
  server.notification(params === undefined ? { method } : { method, params })
    .catch(() => {
      // Nothing lost: a closing transport; nobody is left to tell.
    });
}
