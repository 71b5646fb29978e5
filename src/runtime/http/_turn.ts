/**
 * Running callbacks once the current event-loop turn is over: one timer for
 * everything queued in a turn, not one per caller.
 *
 * @module
 */

let queued: (() => void)[] = [];

function flush(): void {
  const due = queued;
  queued = [];
  for (const run of due) run();
}

/**
 * Runs `run` after the promise jobs of this turn (and of the turns before
 * the timer fires) have run; callbacks queued in one turn share one timer.
 */
export function afterThisTurn(run: () => void): void {
  queued.push(run);
  if (queued.length === 1) setTimeout(flush, 0);
}
