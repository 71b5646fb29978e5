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

/** A request's deadline entry, as the SDK keeps it in `_timeoutInfo`. */
interface TimeoutInfo {
  timeoutId: unknown;
  startTime: number;
  timeout: number;
  maxTotalTimeout?: number;
  resetTimeoutOnProgress: boolean;
  onTimeout: () => void;
  /** When it fires, on `performance.now()`'s clock (the lane's own field). */
  due?: number;
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
 * `timeoutId` is the shared timer's. The entry fires when its deadline has
 * passed, as the SDK's own timer would; the timer is cleared whenever no
 * request waits, so an idle client keeps nothing alive. Nothing happens
 * when the SDK's internals are not as expected.
 */
export function shareDeadlines(protocol: object): void {
  const p = internals(protocol);
  if (p === undefined) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let armedFor = Infinity;
  const arm = (due: number): void => {
    if (timer !== undefined) {
      if (due >= armedFor) return;
      clearTimeout(timer);
    }
    armedFor = due;
    timer = setTimeout(fire, Math.max(0, due - performance.now()));
  };
  const disarm = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    armedFor = Infinity;
  };
  const fire = (): void => {
    timer = undefined;
    armedFor = Infinity;
    const now = performance.now();
    const expired: TimeoutInfo[] = [];
    for (const info of p._timeoutInfo.values()) {
      if ((info.due ?? Infinity) <= now) expired.push(info);
    }
    // Each fires as its own timer would have (the SDK's handler cleans up).
    for (const info of expired) info.onTimeout();
    let next = Infinity;
    for (const info of p._timeoutInfo.values()) {
      if ((info.due ?? Infinity) < next) next = info.due!;
    }
    if (next !== Infinity) arm(next);
  };
  p._setupTimeout = (
    messageId,
    timeout,
    maxTotalTimeout,
    onTimeout,
    resetTimeoutOnProgress = false,
  ) => {
    const due = performance.now() + timeout;
    p._timeoutInfo.set(messageId, {
      timeoutId: undefined,
      startTime: Date.now(),
      timeout,
      maxTotalTimeout,
      resetTimeoutOnProgress,
      onTimeout,
      due,
    });
    arm(due);
  };
  p._resetTimeout = (messageId) => {
    const info = p._timeoutInfo.get(messageId);
    if (!info) return false;
    const totalElapsed = Date.now() - info.startTime;
    if (info.maxTotalTimeout && totalElapsed >= info.maxTotalTimeout) {
      p._timeoutInfo.delete(messageId);
      if (p._timeoutInfo.size === 0) disarm();
      throw McpError.fromError(
        ErrorCode.RequestTimeout,
        "Maximum total timeout exceeded",
        { maxTotalTimeout: info.maxTotalTimeout, totalElapsed },
      );
    }
    info.due = performance.now() + info.timeout;
    arm(info.due);
    return true;
  };
  p._cleanupTimeout = (messageId) => {
    if (p._timeoutInfo.delete(messageId) && p._timeoutInfo.size === 0) {
      disarm();
    }
  };
  // The SDK's close clears each entry's `timeoutId` (none here) and
  // empties the map: emptying it clears the shared timer.
  const map = p._timeoutInfo;
  const clear = map.clear.bind(map);
  map.clear = () => {
    clear();
    disarm();
  };
}
