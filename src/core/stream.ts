/**
 * A run as it happens: {@linkcode RunStream} is an async iterable of the
 * run's events that ends when the run does, with the outcome on `result`.
 *
 * @module
 */

import { RunConsumedError } from "./errors.ts";
import type { RunEvent } from "./events.ts";
import type { RunResult } from "./run.ts";

/** The reason a run is cancelled with when its stream's reader stops early. */
export function streamClosedReason(): DOMException {
  return new DOMException(
    "weft: the run's stream was closed before the run ended",
    "AbortError",
  );
}

/**
 * One run's events, in order, as an async iterable; the outcome on
 * {@linkcode RunStream.result}. The run starts at once (like `fetch`) and
 * its events wait in a queue until read.
 *
 * - Iteration yields every event from `run_start` to `run_finish` and then
 *   ends; a failed run yields its events and then throws its `RunError`.
 * - `result` resolves with the `RunResult`, or rejects with the same
 *   `RunError`. It never counts as an unhandled rejection: a failure seen
 *   through iteration need not be awaited again.
 * - Leaving the loop early (`break`, `return`, a throw in the loop body)
 *   cancels the run, with an `AbortError` `DOMException` as the reason, and
 *   waits for it to settle: `result` then rejects with a `RunError` whose
 *   cause is that reason.
 * - The events can be read once; a second iteration throws
 *   `RunConsumedError`.
 *
 * @example Using `RunStream`
 * ```ts
 * import assert from "node:assert/strict";
 * import { Agent } from "@weft/mcp";
 * import { say, script } from "@weft/mcp/testing";
 *
 * const agent = new Agent(script(say("Hello!")));
 * const stream = agent.stream("Say hello.");
 * let printed = "";
 * for await (const event of stream) {
 *   if (event.type === "text_delta") printed += event.text;
 * }
 * assert.equal(printed, "Hello!");
 * assert.equal((await stream.result).text, "Hello!");
 * ```
 */
export class RunStream implements AsyncIterable<RunEvent> {
  /** The run's outcome: the result, or the `RunError` (never reported as unhandled). */
  readonly result: Promise<RunResult>;
  #queue: RunEvent[] = [];
  #wake: (() => void) | undefined;
  #settled = false;
  #failed = false;
  #failure: unknown;
  #consumed = false;
  #cancel: (reason: unknown) => void;

  /**
   * Wraps a started run. `start` receives the event sink and returns the
   * run's promise; `cancel` aborts the run. Built by `Agent.stream`.
   */
  constructor(
    start: (emit: (event: RunEvent) => void) => Promise<RunResult>,
    cancel: (reason: unknown) => void,
  ) {
    this.#cancel = cancel;
    this.result = start((event) => {
      this.#queue.push(event);
      this.#notify();
    });
    this.result.then(
      () => this.#settle(false, undefined),
      (err) => this.#settle(true, err),
    );
  }

  /** The run's events; once only. */
  [Symbol.asyncIterator](): AsyncIterator<RunEvent> {
    if (this.#consumed) {
      return {
        next: () => Promise.reject(new RunConsumedError()),
        return: () => Promise.resolve({ done: true, value: undefined }),
      };
    }
    this.#consumed = true;
    let closed = false;
    const next = async (): Promise<IteratorResult<RunEvent>> => {
      for (;;) {
        if (closed) return { done: true, value: undefined };
        const value = this.#queue.shift();
        if (value !== undefined) return { done: false, value };
        if (this.#settled) {
          closed = true;
          if (this.#failed) throw this.#failure;
          return { done: true, value: undefined };
        }
        await new Promise<void>((wake) => (this.#wake = wake));
      }
    };
    const stop = async (): Promise<IteratorResult<RunEvent>> => {
      if (!closed) {
        closed = true;
        if (!this.#settled) this.#cancel(streamClosedReason());
        await this.result.catch(() => {
          // Nothing lost: the run's failure is on `result` for whoever awaits it; the reader stopped.
        });
      }
      return { done: true, value: undefined };
    };
    return { next, return: stop };
  }

  #settle(failed: boolean, failure: unknown): void {
    this.#settled = true;
    this.#failed = failed;
    this.#failure = failure;
    this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
