/**
 * Timers that do not keep the process alive.
 *
 * @module
 */

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
