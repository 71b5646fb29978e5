/**
 * How long a lost server waits before each reconnect, and the wait itself.
 *
 * @module
 */

/** How a lost server is brought back. */
export interface ReconnectOptions {
  /** Reconnects in a row, without a call getting through, before the server is given up. Default 5. */
  maxAttempts?: number;
  /** The wait before the first reconnect, in ms; it doubles each attempt. Default 250. */
  initialDelay?: number;
  /** The longest wait between attempts, in ms. Default 10000. */
  maxDelay?: number;
}

/**
 * The wait before reconnect attempt `attempt` (from 1): `initialDelay`
 * doubled each attempt, at most `maxDelay`, jittered down to half by
 * `random` (a number in [0, 1)).
 */
export function reconnectDelay(
  attempt: number,
  policy: Required<ReconnectOptions>,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(
    policy.maxDelay,
    policy.initialDelay * 2 ** (attempt - 1),
  );
  return ceiling / 2 + random() * (ceiling / 2);
}

/** Resolves after `ms`, or at once when `signal` aborts; never keeps a timer after. */
export function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
