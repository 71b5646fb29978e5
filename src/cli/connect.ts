/**
 * How `weft-mcp` reaches a target: a child process over stdio or a
 * Streamable HTTP endpoint, with progress on stderr while it waits.
 *
 * @module
 */

import type { Client } from "../runtime/sdk.ts";
import { connectHttp } from "../runtime/client/connect_http.ts";
import { connectStdio } from "../runtime/process/connect_stdio.ts";
import type { Target } from "./args.ts";

/**
 * A client that owns its connection: closing it ends the child or the
 * session. `getProtocolEra` tells the era it speaks, when it knows.
 */
export type OwnedClient = Client & AsyncDisposable & {
  getProtocolEra?(): { era: "modern" | "legacy"; version: string } | undefined;
};

/** The server `weft-mcp` runs when no target is given (the bundled example). */
export interface DefaultTarget {
  /** The program to spawn. */
  readonly command: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /** Its working directory. */
  readonly cwd?: string;
  /** Variables set for it (on top of connectStdio's inherited few). */
  readonly env?: Readonly<Record<string, string>>;
  /** How messages name it. */
  readonly label: string;
}

/** Options of {@link connectTarget}. */
export interface ConnectTargetOptions {
  /** Ends the attempt (and, once connected, the connection). */
  signal: AbortSignal;
  /** What `{ kind: "default" }` means; absent where there is no bundled server. */
  defaultTarget?: DefaultTarget;
  /** Variables for a server process (`--env`), over the default target's own. */
  env?: Readonly<Record<string, string>>;
}

/**
 * The target not available: no target was given and this copy of
 * `weft-mcp` has no bundled server next to it (it runs from a registry, not
 * a clone).
 */
export class NoDefaultTargetError extends Error {
  /** Builds the error. */
  constructor() {
    super(
      "weft-mcp: no target given, and the bundled example server is only there in a clone; pass a URL or -- <command>",
    );
    this.name = "NoDefaultTargetError";
  }
}

/**
 * How messages name a target: the URL, the command line (words a shell
 * would split or expand in single quotes), or the default target's label.
 *
 * @example Using `targetLabel`
 * ```ts
 * import { targetLabel } from "./connect.ts";
 * import assert from "node:assert/strict";
 * assert.equal(targetLabel({ kind: "command", command: "npx", args: ["-y", "srv"] }), "npx -y srv");
 * assert.equal(targetLabel({ kind: "command", command: "sh", args: ["-c", "a b"] }), "sh -c 'a b'");
 * ```
 */
export function targetLabel(
  target: Target,
  defaultTarget?: DefaultTarget,
): string {
  switch (target.kind) {
    case "url":
      return target.url.href;
    case "config":
      return target.path;
    case "command":
      return [target.command, ...target.args].map(shellWord).join(" ");
    case "default":
      return defaultTarget?.label ?? "the bundled example server";
  }
}

function shellWord(word: string): string {
  if (/^[\w./:=@%+,-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Connects to `target` and resolves to an initialized client that owns the
 * connection. A child's stderr goes to ours, each line prefixed with the
 * program's name. Rejects as the connector does (the signal's reason when
 * it ends first), or with {@link NoDefaultTargetError}.
 */
export function connectTarget(
  target: Target,
  options: ConnectTargetOptions,
): Promise<OwnedClient> {
  const { signal, defaultTarget, env } = options;
  switch (target.kind) {
    case "url":
      return connectHttp(target.url, { signal });
    case "config":
      return Promise.reject(
        new TypeError("a config target connects through connectServers"),
      );
    case "command":
      return connectStdio(target.command, {
        args: [...target.args],
        env: { ...env },
        signal,
      });
    case "default":
      if (defaultTarget === undefined) {
        return Promise.reject(new NoDefaultTargetError());
      }
      return connectStdio(defaultTarget.command, {
        args: [...defaultTarget.args],
        cwd: defaultTarget.cwd,
        env: { ...defaultTarget.env, ...env },
        signal,
      });
  }
}

/** Options of {@link withProgress}. */
export interface ProgressOptions {
  /** What is being connected to. */
  readonly label: string;
  /** Receives each progress line, newline included. */
  readonly write: (line: string) => void;
}

/**
 * Resolves as `pending` does; while it is pending, writes
 * `weft-mcp: connecting to <label> (<n>s)` once a second, starting after
 * the first second, so a slow start is never silent.
 */
export async function withProgress<T>(
  pending: Promise<T>,
  options: ProgressOptions,
): Promise<T> {
  const { label, write } = options;
  let seconds = 0;
  const timer = setInterval(() => {
    seconds++;
    write(`weft-mcp: connecting to ${label} (${seconds}s)\n`);
  }, 1000);
  try {
    return await pending;
  } finally {
    clearInterval(timer);
  }
}
