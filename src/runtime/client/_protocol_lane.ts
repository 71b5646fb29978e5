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
  type Deadline,
  DeadlineHeap,
  type LaneClock,
  SYSTEM_CLOCK,
} from "./_deadlines.ts";

/** A request's deadline entry, as the SDK keeps it in `_timeoutInfo`. */
interface TimeoutInfo {
  timeoutId: unknown;
  startTime: number;
  timeout: number;
  maxTotalTimeout?: number;
  resetTimeoutOnProgress: boolean;
  onTimeout: () => void;
  /** When it fires, on the lane's clock (the lane's own field). */
  due?: number;
  /** Its entry in the lane's deadline heap (the lane's own field). */
  deadline?: Deadline<number>;
}

/** The internals of the SDK's `Protocol` these shortcuts use. */
interface ProtocolInternals {
  _responseHandlers: Map<number, (response: unknown) => void>;
  _progressHandlers: Map<number, unknown>;
  _requestResolvers: Map<number, unknown>;
  _timeoutInfo: Map<number, TimeoutInfo>;
  _setupTimeout: (
    messageId: number,
    timeout: number,
    maxTotalTimeout: number | undefined,
    onTimeout: () => void,
    resetTimeoutOnProgress?: boolean,
  ) => void;
  _resetTimeout: (messageId: number) => boolean;
  _cleanupTimeout: (messageId: number) => void;
}

function internals(protocol: object): ProtocolInternals | undefined {
  const p = protocol as Partial<ProtocolInternals>;
  return p._responseHandlers instanceof Map &&
      p._progressHandlers instanceof Map &&
      p._requestResolvers instanceof Map &&
      p._timeoutInfo instanceof Map &&
      typeof p._setupTimeout === "function" &&
      typeof p._resetTimeout === "function" &&
      typeof p._cleanupTimeout === "function"
    ? p as ProtocolInternals
    : undefined;
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
  const p = internals(protocol);
  if (p === undefined) return;
  const id = Number(message.id);
  const handler = p._responseHandlers.get(id);
  if (handler === undefined || p._requestResolvers.has(id)) return;
  const task = message.result.task;
  if (typeof task === "object" && task !== null) return;
  return () => {
    p._responseHandlers.delete(id);
    p._cleanupTimeout(id);
    p._progressHandlers.delete(id);
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
  const p = internals(protocol);
  if (p === undefined) return;
  const heap = new DeadlineHeap<number>();
  let timer: unknown;
  let armedFor = Infinity;
  /** Whether `entry` is the deadline its request holds now. */
  const current = (entry: Deadline<number>): boolean =>
    p._timeoutInfo.get(entry.key)?.deadline === entry;
  const disarm = (): void => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
    armedFor = Infinity;
  };
  const arm = (): void => {
    // Stale entries (reset, cleaned up) at the top are dropped here; a heap
    // grown well past the live requests is swept in one go.
    while (heap.size > 0 && !current(heap.peek()!)) heap.pop();
    if (heap.size > 2 * p._timeoutInfo.size + 64) heap.retain(current);
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
      const info = p._timeoutInfo.get(top.key)!;
      info.deadline = undefined;
      info.onTimeout();
    }
    arm();
  };
  const schedule = (messageId: number, info: TimeoutInfo): void => {
    info.due = clock.now() + info.timeout;
    info.deadline = heap.push(messageId, info.due);
    arm();
  };
  p._setupTimeout = (
    messageId,
    timeout,
    maxTotalTimeout,
    onTimeout,
    resetTimeoutOnProgress = false,
  ) => {
    const info: TimeoutInfo = {
      timeoutId: undefined,
      startTime: clock.now(),
      timeout,
      maxTotalTimeout,
      resetTimeoutOnProgress,
      onTimeout,
    };
    p._timeoutInfo.set(messageId, info);
    schedule(messageId, info);
  };
  p._resetTimeout = (messageId) => {
    const info = p._timeoutInfo.get(messageId);
    if (!info) return false;
    // Whole milliseconds, as the SDK's `Date.now()` difference reports it.
    const totalElapsed = Math.floor(clock.now() - info.startTime);
    if (info.maxTotalTimeout && totalElapsed >= info.maxTotalTimeout) {
      p._timeoutInfo.delete(messageId);
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
  p._cleanupTimeout = (messageId) => {
    if (!p._timeoutInfo.delete(messageId)) return;
    if (p._timeoutInfo.size === 0) {
      heap.clear();
      disarm();
    }
  };
  // The SDK's close clears each entry's `timeoutId` (none here) and
  // empties the map: emptying it clears the shared timer.
  const map = p._timeoutInfo;
  const clear = map.clear.bind(map);
  map.clear = () => {
    clear();
    heap.clear();
    disarm();
  };
}
