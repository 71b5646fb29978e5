/**
 * Closing a handler on the signals that stop `deno serve`: SIGTERM and
 * SIGINT, on Deno only (elsewhere, and where a signal cannot be listened
 * to, nothing is installed).
 *
 * @module
 */

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
