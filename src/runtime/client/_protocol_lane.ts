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
import { protocolSeam, type TimeoutInfo } from "../../seam/sdk_internals.ts";
import {
  type Deadline,
  DeadlineHeap,
  type LaneClock,
  SYSTEM_CLOCK,
} from "./_deadlines.ts";

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
  clock: LaneClock = SYSTEM_CLOCK,
): void {
  const p = protocolSeam(protocol);
  if (p === undefined) return;
  const timeouts = (): Map<number, LaneTimeoutInfo> => p.timeouts;
  const heap = new DeadlineHeap<number>();
  let timer: unknown;
  let armedFor = Infinity;
  /** Whether `entry` is the deadline its request holds now. */
  const current = (entry: Deadline<number>): boolean =>
    timeouts().get(entry.key)?.deadline === entry;
  const disarm = (): void => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
    armedFor = Infinity;
  };
  const arm = (): void => {
    // Stale entries (reset, cleaned up) at the top are dropped here; a heap
    // grown well past the live requests is swept in one go.
    while (heap.size > 0 && !current(heap.peek()!)) heap.pop();
    if (heap.size > 2 * timeouts().size + 64) heap.retain(current);
    const due = heap.peek()?.due ?? Infinity;
    if (due === armedFor) return;
    disarm();
    if (due === Infinity) return;
    armedFor = due;
    timer = clock.setTimeout(fire, Math.max(0, due - clock.now()));
  };
  const fire = (): void => {
    timer = undefined;
    armedFor = Infinity;
    const now = clock.now();
    // Earliest deadline first; each fires as its own timer would have (the
    // SDK's handler cleans up, which makes its entry stale).
    for (let top = heap.peek(); top !== undefined; top = heap.peek()) {
      if (!current(top)) {
        heap.pop();
        continue;
      }
      if (top.due > now) break;
      heap.pop();
      const info = timeouts().get(top.key)!;
      info.deadline = undefined;
      info.onTimeout();
    }
    arm();
  };
  const schedule = (messageId: number, info: LaneTimeoutInfo): void => {
    info.due = clock.now() + info.timeout;
    info.deadline = heap.push(messageId, info.due);
    arm();
  };
  const setup = (
    messageId: number,
    timeout: number,
    maxTotalTimeout: number | undefined,
    onTimeout: () => void,
    resetTimeoutOnProgress = false,
  ): void => {
    const info: LaneTimeoutInfo = {
      timeoutId: undefined,
      startTime: clock.now(),
      timeout,
      maxTotalTimeout,
      resetTimeoutOnProgress,
      onTimeout,
    };
    timeouts().set(messageId, info);
    schedule(messageId, info);
  };
  const reset = (messageId: number): boolean => {
    const info = timeouts().get(messageId);
    if (!info) return false;
    // Whole milliseconds, as the SDK's `Date.now()` difference reports it.
    const totalElapsed = Math.floor(clock.now() - info.startTime);
    if (info.maxTotalTimeout && totalElapsed >= info.maxTotalTimeout) {
      timeouts().delete(messageId);
      arm();
      throw McpError.fromError(
        ErrorCode.RequestTimeout,
        "Maximum total timeout exceeded",
        { maxTotalTimeout: info.maxTotalTimeout, totalElapsed },
      );
    }
    schedule(messageId, info);
    return true;
  };
  const cleanup = (messageId: number): void => {
    if (!timeouts().delete(messageId)) return;
    if (timeouts().size === 0) {
      heap.clear();
      disarm();
    }
  };
  p.replaceTimers({ setup, reset, cleanup });
  // The SDK's close clears each entry's `timeoutId` (none here) and
  // empties the map: emptying it clears the shared timer.
  const map = timeouts();
  const clear = map.clear.bind(map);
  map.clear = () => {
    clear();
    heap.clear();
    disarm();
  };
}
