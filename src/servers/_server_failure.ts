/**
 * How a server of a set names its failures: which ones are never retried,
 * and what a failed start or call is attributed to (an egress refusal, a
 * permission the server was not granted), so the host reads the real
 * cause rather than a closed connection.
 *
 * @module
 */

import { AuthorizationError } from "../auth/client/oauth_client.ts";
import { type ConnectPhase, ServerConnectError } from "../runtime/errors.ts";
import { ServerConfigError } from "./config.ts";
import { EgressRefusedError, ServerPermissionError } from "./errors.ts";
import type { PermissionDenial } from "./_permissions.ts";

/** The server a failure is named after: its config key and its command line or URL. */
export interface FailingServer {
  readonly spec: { readonly name: string };
  readonly target: string;
}

/**
 * A failure time does not mend, so never retried: a token the connection
 * could not give (`AuthorizationError`), an entry that cannot be run as
 * written (`ServerConfigError`, e.g. `permissions` on an `npx` entry).
 */
export function isFinal(error: unknown): boolean {
  return chainHas(error, AuthorizationError) ||
    chainHas(error, ServerConfigError);
}

/**
 * Whether `type` is in `error`'s cause chain (a start that failed because
 * the server wants authorization the connection could not give is not
 * transient, so it is not retried; an egress refusal neither).
 */
function chainHas(
  error: unknown,
  type: abstract new (...args: never[]) => Error,
): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 16 && current instanceof Error; depth++) {
    if (current instanceof type) return true;
    current = (current as Error).cause;
  }
  return false;
}

/**
 * A failed start as the host reads it: a request `allowedHosts` refused
 * during the start (OAuth discovery falls back when its metadata cannot be
 * fetched) names the refusal; else a server that died of a permission it
 * was not granted (said on its stderr) names the permission; else the
 * failure as it is.
 */
export function startFailure(
  server: FailingServer,
  failed: ServerConnectError,
  seen: {
    /** The refusal new since the start began, if any. */
    readonly refusal: EgressRefusedError | undefined;
    /**
     * The denial new since the start began: asked only when no refusal
     * names the failure (asking counts a denial still waiting for its target).
     */
    readonly denial: () => PermissionDenial | undefined;
  },
): ServerConnectError {
  const { refusal } = seen;
  if (refusal !== undefined && !chainHas(failed, EgressRefusedError)) {
    return new ServerConnectError(
      server.spec.name,
      server.target,
      failed.phase,
      new EgressRefusedError(
        server.spec.name,
        new URL(refusal.url),
        refusal.redirectedFrom === undefined
          ? undefined
          : new URL(refusal.redirectedFrom),
        { cause: failed.cause },
      ),
    );
  }
  const denied = seen.denial();
  if (denied === undefined) return failed;
  return new ServerConnectError(
    server.spec.name,
    server.target,
    failed.phase,
    new ServerPermissionError(
      server.spec.name,
      denied.permission,
      denied.target,
      { cause: failed.cause },
    ),
  );
}

/**
 * A call whose connection was lost: a `ServerConnectError` (phase `call`),
 * or, when the server died of a permission it was not granted (`denial`,
 * new since the call began), the `ServerPermissionError` naming it.
 */
export function lostCall(
  server: FailingServer,
  cause: Error,
  denial: PermissionDenial | undefined,
): Error {
  const lost = new ServerConnectError(
    server.spec.name,
    server.target,
    "call",
    cause,
  );
  if (denial === undefined) return lost;
  return new ServerPermissionError(
    server.spec.name,
    denial.permission,
    denial.target,
    { cause: lost },
  );
}

/** `error` as a `ServerConnectError` of `server`, in `phase` unless it is one already. */
export function named(
  server: FailingServer,
  error: unknown,
  phase: ConnectPhase,
): ServerConnectError {
  if (error instanceof ServerConnectError) return error;
  return new ServerConnectError(server.spec.name, server.target, phase, error);
}

/** What a call gets once the servers were closed. */
export function closedError(server: FailingServer): ServerConnectError {
  return new ServerConnectError(
    server.spec.name,
    server.target,
    "call",
    new Error("the servers were closed"),
  );
}

/** A catalog that could not be read or written: the server is listed over its connection. */
export function catalogError(
  server: FailingServer,
  what: "read" | "written",
  cause: unknown,
): ServerConnectError {
  return new ServerConnectError(
    server.spec.name,
    server.target,
    "list",
    new Error(
      `the catalog could not be ${what}: ${
        cause instanceof Error ? cause.message : String(cause)
      }; the server is listed over its connection instead`,
      { cause },
    ),
  );
}
