/**
 * What the HTTP server takes from the runtime it runs on, where it offers
 * it: timers that do not keep the process alive, and the signals that stop
 * `deno serve`. The one file of the server that reaches Deno's API, always
 * through an optional `globalThis.Deno`, so the server runs wherever
 * `Request` and `Response` do.
 *
 * @module
 */

import { type Clock, SYSTEM_CLOCK } from "../clock.ts";

/**
 * The process's clock ({@link SYSTEM_CLOCK}) with timers the server can
 * unreference ({@link holdTimer}): the default of its deadline keepers.
 */
export const HOST_CLOCK: Clock = {
  ...SYSTEM_CLOCK,
  hold: holdTimer,
};

/**
 * Unrefs a timer: a timer object's own `unref` (Deno 2's and Node's
 * timers are objects), else Deno's `unrefTimer` for a numeric id; on a
 * runtime with neither the timer is left as it is.
 */
export function unrefTimer(timer: ReturnType<typeof setTimeout>): void {
  const unref = (timer as { unref?: () => unknown } | null)?.unref;
  if (typeof unref === "function") {
    unref.call(timer);
    return;
  }
  if (typeof timer !== "number") return;
  const deno =
    (globalThis as { Deno?: { unrefTimer?: (id: number) => void } }).Deno;
  deno?.unrefTimer?.(timer);
}

/**
 * References (`hold`) or unreferences a timer, as {@link unrefTimer} finds
 * the way (the timer's own `ref`/`unref`, else Deno's `refTimer` and
 * `unrefTimer` for a numeric id). Whether the runtime could.
 */
export function holdTimer(
  timer: ReturnType<typeof setTimeout>,
  hold: boolean,
): boolean {
  const own = timer as { ref?: () => unknown; unref?: () => unknown } | null;
  const call = hold ? own?.ref : own?.unref;
  if (typeof call === "function") {
    call.call(timer);
    return true;
  }
  if (typeof timer !== "number") return false;
  const deno = (globalThis as {
    Deno?: {
      refTimer?: (id: number) => void;
      unrefTimer?: (id: number) => void;
    };
  }).Deno;
  const byId = hold ? deno?.refTimer : deno?.unrefTimer;
  if (typeof byId !== "function") return false;
  byId(timer);
  return true;
}

type Listen = (signal: string, listener: () => void) => void;

interface SignalApi {
  addSignalListener?: Listen;
  removeSignalListener?: Listen;
}

const SIGNALS = ["SIGTERM", "SIGINT"] as const;

/** `onSignal` on SIGTERM and SIGINT, from `install` until `remove`. */
export class SignalHook {
  readonly #onSignal: () => void;
  #installed: string[] = [];

  /** A hook running `onSignal` once it is installed. */
  constructor(onSignal: () => void) {
    this.#onSignal = onSignal;
  }

  /** Listens to SIGTERM and SIGINT (again a no-op while installed). */
  install(): void {
    if (this.#installed.length > 0) return;
    const deno = (globalThis as { Deno?: SignalApi }).Deno;
    if (deno?.addSignalListener === undefined) return;
    for (const signal of SIGNALS) {
      try {
        deno.addSignalListener(signal, this.#onSignal);
        this.#installed.push(signal);
      } catch {
        // Not a signal this platform delivers (SIGTERM on Windows).
      }
    }
  }

  /** Stops listening. */
  remove(): void {
    const deno = (globalThis as { Deno?: SignalApi }).Deno;
    for (const signal of this.#installed) {
      deno?.removeSignalListener?.(signal, this.#onSignal);
    }
    this.#installed = [];
  }
}
