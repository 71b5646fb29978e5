/**
 * Two shortcuts through the SDK `Protocol`'s own bookkeeping, for a client
 * with many requests in flight: a plain result response delivered to its
 * request without the SDK's zod checks of the message's kind, and one
 * shared deadline timer in place of a timer per request. Both work on the
 * `Protocol`'s internal maps (the SDK version is pinned), do what the SDK
 * code they replace does, and step aside (`false`, not installed) whenever
 * that is not plain: tests/runtime_client_lane_test.ts holds the SDK's
 * way and this one side by side.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import {
  type ProtocolSeam,
  protocolSeam,
  type ProtocolTimers,
  type TimeoutInfo,
} from "../../seam/sdk_internals.ts";
import { type Clock, SYSTEM_CLOCK } from "../clock.ts";
import { type Deadline, DeadlineHeap } from "./_deadlines.ts";

/** A request's deadline entry, with the lane's own fields. */
interface LaneTimeoutInfo extends TimeoutInfo {
  /** When it fires, on the lane's clock (the lane's own field). */
  due?: number;
  /** Its entry in the lane's deadline heap (the lane's own field). */
  deadline?: Deadline<number>;
}

/**
 * How to deliver `message` — a result response `isPlainResultResponse`
 * accepted — to the request waiting for it, as the SDK's `_onresponse`
 * does; `undefined` when this is not the plain case (no request waits for
 * that id, a task's result, a request queued for a task): the caller hands
 * the message to the SDK's way.
 */
export function resultDelivery(
  protocol: object,
  message: { id: string | number; result: Record<string, unknown> },
): (() => void) | undefined {
  const p = protocolSeam(protocol, false);
  if (p === undefined) return;
  const id = Number(message.id);
  const handler = p.responseHandler(id);
  if (handler === undefined || p.queuedForTask(id)) return;
  const task = message.result.task;
  if (typeof task === "object" && task !== null) return;
  return () => {
    p.settle(id);
    handler(message);
  };
}

/**
 * Replaces the `Protocol`'s timer per request with one timer, armed for
 * the earliest deadline: a request's entry in `_timeoutInfo` keeps the
 * SDK's fields (progress resets and `maxTotalTimeout` read them), its
 * `timeoutId` is the shared timer's. Deadlines are kept in a heap by when
 * they fall due, so entries found overdue together (after a blocked loop)
 * fire earliest first, as the SDK's separate timers would. The timer is
 * cleared whenever no request waits, so an idle client keeps nothing
 * alive. Nothing happens when the SDK's internals are not as expected.
 * `clock` supplies the time and the timer (tests pass a fake one).
 */
export function shareDeadlines(
  protocol: object,
  clock: Clock = SYSTEM_CLOCK,
): void {
  const p = protocolSeam(protocol);
  if (p === undefined) return;
  const shared = new SharedDeadlines(p, clock);
  p.replaceTimers(shared);
  // The SDK's close clears each entry's `timeoutId` (none here) and
  // empties the map: emptying it clears the shared timer.
  const map = p.timeouts;
  const clear = map.clear.bind(map);
  map.clear = () => {
    clear();
    shared.clear();
  };
}

/**
 * The deadlines of one `Protocol`'s requests behind one timer (see
 * {@link shareDeadlines}). `setup`, `reset` and `cleanup` stand in for the
 * `Protocol`'s methods of those names: fields, since the `Protocol` calls
 * them as its own.
 */
class SharedDeadlines implements ProtocolTimers {
  readonly #p: ProtocolSeam;
  readonly #clock: Clock;
  readonly #heap = new DeadlineHeap<number>();
  #timer: unknown;
  /** When the armed timer falls due; `Infinity` when none is armed. */
  #armedFor = Infinity;

  constructor(p: ProtocolSeam, clock: Clock) {
    this.#p = p;
    this.#clock = clock;
  }

  /** The SDK's `_setupTimeout`: a new request's deadline. */
  readonly setup = (
    messageId: number,
    timeout: number,
    maxTotalTimeout: number | undefined,
    onTimeout: () => void,
    resetTimeoutOnProgress = false,
  ): void => {
    const info: LaneTimeoutInfo = {
      timeoutId: undefined,
      startTime: this.#clock.now(),
      timeout,
      maxTotalTimeout,
      resetTimeoutOnProgress,
      onTimeout,
    };
    this.#timeouts.set(messageId, info);
    this.#schedule(messageId, info);
  };

  /** The SDK's `_resetTimeout`: progress moved a request's deadline. */
  readonly reset = (messageId: number): boolean => {
    const info = this.#timeouts.get(messageId);
    if (!info) return false;
    // Whole milliseconds, as the SDK's `Date.now()` difference reports it.
    const totalElapsed = Math.floor(this.#clock.now() - info.startTime);
    if (info.maxTotalTimeout && totalElapsed >= info.maxTotalTimeout) {
      this.#timeouts.delete(messageId);
      this.#arm();
      throw McpError.fromError(
        ErrorCode.RequestTimeout,
        "Maximum total timeout exceeded",
        { maxTotalTimeout: info.maxTotalTimeout, totalElapsed },
      );
    }
    this.#schedule(messageId, info);
    return true;
  };

  /** The SDK's `_cleanupTimeout`: a request is done with. */
  readonly cleanup = (messageId: number): void => {
    if (!this.#timeouts.delete(messageId)) return;
    if (this.#timeouts.size === 0) this.clear();
  };

  /** No request waits any more: the heap emptied, the timer cleared. */
  clear(): void {
    this.#heap.clear();
    this.#disarm();
  }

  get #timeouts(): Map<number, LaneTimeoutInfo> {
    return this.#p.timeouts;
  }

  /** Whether `entry` is the deadline its request holds now. */
  readonly #current = (entry: Deadline<number>): boolean =>
    this.#timeouts.get(entry.key)?.deadline === entry;

  #schedule(messageId: number, info: LaneTimeoutInfo): void {
    info.due = this.#clock.now() + info.timeout;
    info.deadline = this.#heap.push(messageId, info.due);
    this.#arm();
  }

  // Arms the timer for the earliest current deadline (unless it is armed
  // for it already).
  #arm(): void {
    const heap = this.#heap;
    // Stale entries (reset, cleaned up) at the top are dropped here; a heap
    // grown well past the live requests is swept in one go.
    while (heap.size > 0 && !this.#current(heap.peek()!)) heap.pop();
    if (heap.size > 2 * this.#timeouts.size + 64) heap.retain(this.#current);
    const due = heap.peek()?.due ?? Infinity;
    if (due === this.#armedFor) return;
    this.#disarm();
    if (due === Infinity) return;
    this.#armedFor = due;
    this.#timer = this.#clock.setTimeout(
      this.#fire,
      Math.max(0, due - this.#clock.now()),
    );
  }

  #disarm(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedFor = Infinity;
  }

  // The timer fell due: every deadline due by now fires, earliest first,
  // each as its own timer would have (the SDK's handler cleans up, which
  // makes its entry stale); then the timer is armed for the next.
  readonly #fire = (): void => {
    this.#timer = undefined;
    this.#armedFor = Infinity;
    const now = this.#clock.now();
    const heap = this.#heap;
    for (let top = heap.peek(); top !== undefined; top = heap.peek()) {
      if (!this.#current(top)) {
        heap.pop();
        continue;
      }
      if (top.due > now) break;
      heap.pop();
      const info = this.#timeouts.get(top.key)!;
      info.deadline = undefined;
      info.onTimeout();
    }
    this.#arm();
  };
}
