/**
 * Logging from inside a tool: `ctx.log(level, data)`. The core only defines
 * the shape; whoever runs the call (the MCP export) fills it in and decides
 * where the messages go (`notifications/message` to the client, at or above
 * the level the client set).
 *
 * @module
 */

/**
 * A log message's severity, RFC 5424's eight, lowest first: `debug`,
 * `info`, `notice`, `warning`, `error`, `critical`, `alert`, `emergency`.
 *
 * @example A level
 * ```ts
 * import type { LogLevel } from "@weft/mcp/core";
 * const level: LogLevel = "warning";
 * console.log(level);
 * ```
 */
export type LogLevel =
  | "debug"
  | "info"
  | "notice"
  | "warning"
  | "error"
  | "critical"
  | "alert"
  | "emergency";

/** The levels, lowest first. */
export const LOG_LEVELS: readonly LogLevel[] = Object.freeze([
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
]);

const SEVERITY: ReadonlyMap<string, number> = new Map(
  LOG_LEVELS.map((level, index) => [level, index]),
);

/** Whether `value` is one of the eight levels. */
export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === "string" && SEVERITY.has(value);
}

/**
 * Whether a message at `level` passes a floor of `floor` (its severity is
 * the floor's or above).
 */
export function logLevelPasses(level: LogLevel, floor: LogLevel): boolean {
  return (SEVERITY.get(level) ?? -1) >= (SEVERITY.get(floor) ?? 0);
}

/** Options of one log message. */
export interface LogOptions {
  /** The name of the logger that wrote it (MCP's `logger`). */
  logger?: string;
}

/**
 * Sends one log message: `data` is any JSON-serializable value (a string,
 * an object). Synchronous; never throws into the tool; a message below
 * the level the receiver asked for is dropped.
 */
export type LogFn = (
  level: LogLevel,
  data: unknown,
  options?: LogOptions,
) => void;
