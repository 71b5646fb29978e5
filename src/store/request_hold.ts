/**
 * Where a request handler that reads a shared store meets the HTTP server
 * answering it: the handler *holds* its request's answer (the HTTP server
 * waits for it before it commits to a status and a stream) and, when the
 * store turned out unreachable, marks the request so the HTTP server
 * answers it as any request the store could not serve (503 with
 * `Retry-After`), not as a 200 carrying an error. Keyed by the request's
 * `extra.requestInfo` object, which the HTTP server makes per POST and
 * the SDK hands to handlers unchanged; elsewhere (stdio, in-memory
 * transports) there is none and this does nothing.
 *
 * @module
 */

/** A held answer: let go of it when the handler knows whether the store answered. */
export interface AnswerHold {
  /** The store answered: the HTTP server may stream the answer as it comes. */
  release(): void;
  /** The store could not be reached: the request is answered 503. */
  outage(): void;
}

interface Held {
  readonly released: Promise<void>;
  outage: boolean;
}

const holds = new WeakMap<object, Held>();

/**
 * Holds the answer to the request whose `extra.requestInfo` is
 * `requestInfo` (nothing to hold without one).
 */
export function holdAnswer(requestInfo: unknown): AnswerHold {
  if (typeof requestInfo !== "object" || requestInfo === null) {
    return { release() {}, outage() {} };
  }
  let release!: () => void;
  const held: Held = {
    released: new Promise<void>((resolve) => release = resolve),
    outage: false,
  };
  holds.set(requestInfo, held);
  return {
    release,
    outage() {
      held.outage = true;
      release();
    },
  };
}

/** Resolves when the hold on `requestInfo`'s answer is let go; `undefined` when none was taken. */
export function answerHeld(requestInfo: unknown): Promise<void> | undefined {
  if (typeof requestInfo !== "object" || requestInfo === null) return undefined;
  return holds.get(requestInfo)?.released;
}

/** Whether a handler marked `requestInfo`'s request as one the store could not serve. */
export function storeWasDown(requestInfo: unknown): boolean {
  if (typeof requestInfo !== "object" || requestInfo === null) return false;
  return holds.get(requestInfo)?.outage === true;
}
