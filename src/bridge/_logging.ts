/**
 * Logging over MCP: a tool's `ctx.log` as `notifications/message` on its
 * call's stream, honouring the level the client asked for.
 *
 * - A 2025 client sets its level with `logging/setLevel`; the level is kept
 *   per server and session (a server made per session keeps its own). A
 *   request whose `_meta` names a level (`io.modelcontextprotocol/logLevel`)
 *   uses that one for its own messages. With neither, every message goes.
 * - A 2026-07-28 request carries its level in `_meta`
 *   (`io.modelcontextprotocol/logLevel`); without it nothing is sent, as
 *   that revision asks.
 *
 * The bridge declares the `logging` capability on a server that is not yet
 * connected, and answers `logging/setLevel` itself unless the SDK's own
 * handler does (a server made with the capability); both keep the level in
 * the SDK server's map, so `server.sendLoggingMessage` filters alike.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type ServerNotification,
  SetLevelRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import {
  isLogLevel,
  type LogFn,
  type LogLevel,
  logLevelPasses,
} from "../core/logging.ts";
import type { ToolServer as Server } from "./peers.ts";
import { loggingLevels, serverCapabilities } from "../seam/sdk_internals.ts";
import { isModernCall } from "./_ask.ts";
import { bridgeState, bridgeStateOf } from "./_state.ts";
import type { CallExtra } from "./_exported.ts";

const LOG_LEVEL = "io.modelcontextprotocol/logLevel";

/**
 * The levels set with `logging/setLevel` on `server`, by session
 * (`undefined`: none): the SDK `Server`'s own map, so that its
 * `sendLoggingMessage` and a tool's `ctx.log` filter alike whichever
 * handler answered.
 */
function levelsOf(server: object): Map<string | undefined, LogLevel> {
  const own = loggingLevels(server);
  if (own !== undefined) return own as Map<string | undefined, LogLevel>;
  // A server that is not the SDK's keeps them on its record.
  const state = bridgeState(server);
  return state.logLevels ??= new Map();
}

/** The level `logging/setLevel` set for `sessionId` on `server`, if any. */
export function levelOf(
  server: object,
  sessionId: string | undefined,
): LogLevel | undefined {
  const own = loggingLevels(server);
  if (own !== undefined) return own.get(sessionId) as LogLevel | undefined;
  return bridgeStateOf(server)?.logLevels?.get(sessionId);
}

/** Whether `server` declares the logging capability. */
export function declaresLogging(server: object): boolean {
  return serverCapabilities(server)?.logging !== undefined;
}

/**
 * Declares the logging capability on `server` when it can still change
 * (not connected) and nobody declared it. Best effort: a server whose
 * capabilities cannot change keeps them, and its tools' `ctx.log` sends
 * nothing.
 */
export function declareLogging(server: Server): void {
  if (server.transport !== undefined || declaresLogging(server)) return;
  try {
    (server.registerCapabilities as (c: Record<string, unknown>) => void).call(
      server,
      { logging: {} },
    );
  } catch {
    // A server that refuses new capabilities keeps its own: ctx.log is absent there.
  }
}

/**
 * Answers `logging/setLevel` on `server` (when it declares logging):
 * keeps the level for the request's session, answers `{}`. An unknown
 * level is refused by the SDK's check of the request (InvalidParams).
 */
export function installSetLevel(server: Server): void {
  if (!declaresLogging(server)) return;
  try {
    server.assertCanSetRequestHandler("logging/setLevel");
  } catch {
    // The SDK's own handler (a server made with the logging capability)
    // keeps the levels where levelOf reads them: nothing to add.
    return;
  }
  server.setRequestHandler(SetLevelRequestSchema, (request, given) => {
    // The SDK checked the request against SetLevelRequestSchema: a known level.
    const level = request.params?.level as LogLevel;
    const extra = given as Pick<CallExtra, "sessionId" | "requestInfo">;
    const bySession = levelsOf(server);
    const header = extra.requestInfo?.headers?.["mcp-session-id"];
    bySession.set(
      extra.sessionId ?? (typeof header === "string" ? header : undefined),
      level,
    );
    return {};
  });
}

/** The log channel of one `tools/call`. */
export interface LogSink {
  readonly send: LogFn;
  /**
   * Stops sending; settles once every message sent so far is written (or
   * failed), or is `undefined` when none was sent.
   */
  close(): Promise<void> | undefined;
}

/**
 * The log sink of one call on `server`, or `undefined` when nothing may be
 * sent (no logging capability, or a 2026-07-28 request that named no
 * level). Messages below the level are dropped; the rest go one after
 * another, in order, before the call's result; a failed send is dropped,
 * never a failure of the call.
 */
export function logSink(
  server: object,
  params: Record<string, unknown>,
  extra: CallExtra,
): LogSink | undefined {
  if (!declaresLogging(server)) return undefined;
  const meta = params._meta as Record<string, unknown> | undefined;
  const asked = meta?.[LOG_LEVEL];
  let floor: LogLevel | undefined;
  if (isLogLevel(asked)) floor = asked;
  else if (isModernCall(params)) return undefined;
  else floor = levelOf(server, extra.sessionId);
  let closed = false;
  let queue: Promise<void> | undefined;
  const signal = extra.signal;
  return {
    send(level, data, options): void {
      if (closed || signal.aborted || !isLogLevel(level)) return;
      if (floor !== undefined && !logLevelPasses(level, floor)) return;
      const logger = options?.logger;
      const notification = {
        method: "notifications/message",
        params: typeof logger === "string"
          ? { level, logger, data }
          : { level, data },
      } as ServerNotification;
      queue = (queue ?? Promise.resolve()).then(() =>
        extra.sendNotification(notification)
      ).catch(
        // A message that cannot be written (closed stream, data that is not JSON) is dropped by design.
        () => {},
      );
    },
    close(): Promise<void> | undefined {
      closed = true;
      return queue;
    },
  };
}
