/**
 * A server process's tie to its host's end: a SIGINT or SIGTERM to the host
 * is forwarded to the server's process group, and the host's exit ends every
 * group. The host's own signal listeners see each signal once.
 *
 * @module
 */

import {
  send,
  type SpawnedProcess,
  terminateProcess,
} from "./process_group.ts";

/** The signals a host forwards to its children. */
const FORWARDED = ["SIGINT", "SIGTERM"] as const;
type Forwarded = typeof FORWARDED[number];

/** What a live child asked for. */
interface Tie {
  /** Milliseconds between the forwarded signal and SIGKILL. */
  readonly grace: number;
  /** Whether the host's SIGINT and SIGTERM reach it. */
  readonly forward: boolean;
}

/** Options of {@link endWithHost}. */
export interface EndWithHostOptions {
  /**
   * Forward the host's SIGINT and SIGTERM to the child's group. Default
   * true; `false` for a host that ends its children itself (its exit still
   * sends SIGTERM to the group).
   */
  readonly forwardSignals?: boolean;
}

/** Marks a listener as a forwarder (of any copy of this module). */
const FORWARDER = Symbol.for("@weft/mcp:signal-forwarder");
/** Where the one watch of the host's listeners lives, shared by every copy of this module. */
const WATCH = Symbol.for("@weft/mcp:host-signal-listeners");

const live = new Map<SpawnedProcess, Tie>();
let listening = false;
let unloadHooked = false;

/**
 * Ties `proc` to the host's end until it exits. While it runs, a SIGINT or
 * SIGTERM to the host goes to the child's process group (SIGKILL to what is
 * left after `grace` ms); then, when the host has no listener of its own
 * for that signal, the signal is raised again on the host with ours gone,
 * so the host ends as it would have without us (130, 143). A host that
 * listens itself has had the signal once, and is not sent it again. The
 * host's exit (`Deno.exit`, the `unload` event) sends SIGTERM to every
 * group. The listeners are installed with the first child and removed with
 * the last, and never keep the host alive.
 */
export function endWithHost(
  proc: SpawnedProcess,
  grace: number,
  options: EndWithHostOptions = {},
): void {
  if (Deno.build.os === "windows") return;
  live.set(proc, { grace, forward: options.forwardSignals !== false });
  update();
  const forget = (): void => {
    live.delete(proc);
    update();
  };
  proc.status.then(forget, forget);
}

// Listens while a live child wants forwarding; hooks `unload` while any lives.
function update(): void {
  const forwarding = [...live.values()].some((tie) => tie.forward);
  if (forwarding && !listening) listen();
  else if (!forwarding && listening) stopListening();
  if (live.size > 0 && !unloadHooked) {
    unloadHooked = true;
    globalThis.addEventListener("unload", onUnload);
  } else if (live.size === 0 && unloadHooked) {
    unloadHooked = false;
    globalThis.removeEventListener("unload", onUnload);
  }
}

function listen(): void {
  listening = true;
  try {
    for (const signal of FORWARDED) {
      Deno.addSignalListener(signal, LISTENERS[signal]);
    }
  } catch {
    // No signals here (a worker, a sandbox): close() and exit still apply.
  }
}

function stopListening(): void {
  listening = false;
  for (const signal of FORWARDED) {
    try {
      Deno.removeSignalListener(signal, LISTENERS[signal]);
    } catch {
      // never added
    }
  }
}

const LISTENERS: Record<Forwarded, () => void> = {
  SIGINT: ours(() => onHostSignal("SIGINT")),
  SIGTERM: ours(() => onHostSignal("SIGTERM")),
};

function onHostSignal(signal: Forwarded): void {
  // Read now, while the host's listeners run in this same pass: one that
  // removes itself as it handles the signal still counts.
  const hostListens = hostListeners.listens(signal);
  // Ours go first: a second signal takes the host's path (or the default) at once.
  stopListening();
  const children = [...live].filter(([, tie]) => tie.forward);
  void Promise.all(
    children.map(([proc, tie]) =>
      terminateProcess(proc, tie.grace, signal).catch(() => {
        // Nothing lost: the host is exiting on a signal; nobody is left to tell.
      })
    ),
  ).then(() => {
    // The host's own listener has had this signal: it decides what happens.
    if (!hostListens) raise(signal);
  });
}

// With our listener gone and none of the host's, the default action ends
// the host with the conventional status (130 for SIGINT, 143 for SIGTERM).
function raise(signal: Forwarded): void {
  try {
    Deno.kill(Deno.pid, signal);
  } catch {
    Deno.exit(128 + (signal === "SIGINT" ? 2 : 15));
  }
}

function onUnload(): void {
  for (const proc of live.keys()) send(proc, "SIGTERM", false);
}

// --- which signals the host listens to itself ---

function ours(listener: () => void): () => void {
  Object.defineProperty(listener, FORWARDER, { value: true });
  return listener;
}

function isForwarder(listener: unknown): boolean {
  return typeof listener === "function" &&
    (listener as { [FORWARDER]?: boolean })[FORWARDER] === true;
}

/** The host's own signal listeners, as `Deno.addSignalListener` saw them. */
interface HostListeners {
  /** Whether a listener not ours is on `signal`, or was removed in this turn (while handling it). */
  listens(signal: string): boolean;
}

type SignalListenerFn = (signal: Deno.Signal, handler: () => void) => void;

/**
 * Deno keeps signal listeners where no code can count them, and raising a
 * signal again reaches every listener on it. So that a host listening
 * itself is not sent the signal twice, `Deno.addSignalListener` and
 * `Deno.removeSignalListener` are wrapped once per process (when this module
 * is first evaluated) to note every listener that is not ours — node's
 * `process.on("SIGINT")` and `deno serve`'s shutdown go through them too.
 * The wrappers call the originals first and change nothing else. Listeners
 * added before this module was evaluated are not seen (see `forwardSignals`).
 */
function watchHostListeners(): HostListeners {
  const global = globalThis as { [WATCH]?: HostListeners };
  const existing = global[WATCH];
  if (existing !== undefined) return existing;
  const bySignal = new Map<string, Set<() => void>>();
  const removedThisTurn = new Set<string>();
  const watch: HostListeners = {
    listens: (signal) =>
      (bySignal.get(signal)?.size ?? 0) > 0 || removedThisTurn.has(signal),
  };
  global[WATCH] = watch;
  const deno = (globalThis as { Deno?: Record<string, unknown> }).Deno;
  const add = deno?.addSignalListener as SignalListenerFn | undefined;
  const remove = deno?.removeSignalListener as SignalListenerFn | undefined;
  if (deno === undefined || add === undefined || remove === undefined) {
    return watch;
  }
  deno.addSignalListener = function addSignalListener(
    signal: Deno.Signal,
    handler: () => void,
  ): void {
    add(signal, handler);
    if (isForwarder(handler)) return;
    let listeners = bySignal.get(signal);
    if (listeners === undefined) bySignal.set(signal, listeners = new Set());
    listeners.add(handler);
  };
  deno.removeSignalListener = function removeSignalListener(
    signal: Deno.Signal,
    handler: () => void,
  ): void {
    remove(signal, handler);
    if (bySignal.get(signal)?.delete(handler) !== true) return;
    // Deno calls a signal's listeners one after another in one turn: a
    // listener that removes itself as it runs is remembered until that
    // turn ends, so a forwarder called after it still counts it.
    removedThisTurn.add(signal);
    queueMicrotask(() => removedThisTurn.delete(signal));
  };
  return watch;
}

const hostListeners = watchHostListeners();
