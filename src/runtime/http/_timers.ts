/**
 * Timers that do not keep the process alive.
 *
 * @module
 */

/** Unrefs a timer with Deno's `unrefTimer`; other runtimes' timers are left as they are. */
export function unrefTimer(timer: ReturnType<typeof setTimeout>): void {
  const deno =
    (globalThis as { Deno?: { unrefTimer?: (id: number) => void } }).Deno;
  deno?.unrefTimer?.(Number(timer));
}
