/**
 * The seam's report: which lanes through the SDK's and zod's internals were
 * installed and which fell back (counted), and the once-per-internal
 * message a fallback gives. Internal to `src/seam/`; the seam re-exports
 * what tests and hosts use. Names no private field.
 *
 * @module
 */

/** Each SDK or zod internal a lane uses, by the lane's name. */
export type SeamInternal =
  /** The client `Protocol`'s response handlers and timers: result delivery and one shared deadline timer. */
  | "clientProtocol"
  /** `StreamableHTTPClientTransport`'s SSE reading, replaced by one reader loop. */
  | "sseReader"
  /** The SDK reads an SSE body through its `pipeThrough` (the watched body, when `sseReader` is not installed). */
  | "bodyPipe"
  /** `StreamableHTTPClientTransport`'s session id, forgotten after a `404`. */
  | "sessionId"
  /** The `Client`'s handshake fields, for an `initialize` sent again. */
  | "clientHandshake"
  /** zod's `_zod.run` of `CallToolResultSchema`: a plain result passed as it is. */
  | "callResultSchema"
  /** The `Server` constructor's handler maps, assigned through accessors (registrations deferred). */
  | "deferredMaps"
  /** The `Server`'s request handler map: the bridge's own tools answered without the `Protocol`. */
  | "handlerMap"
  /** The `Server`'s private `getCapabilities()`. */
  | "serverCapabilities"
  /** The `Server`'s handshake fields: `initialize` answered without the `Protocol`. */
  | "serverHandshake"
  /** The `Server`'s JSON Schema validator, used to check an elicitation answer. */
  | "jsonSchemaValidator"
  /** The `Server`'s per-session logging levels (`_loggingLevels`), shared with its `sendLoggingMessage`. */
  | "loggingLevels";

/** What each internal's fallback is, said once when it happens. */
const FALLBACK: Readonly<Record<SeamInternal, string>> = {
  clientProtocol:
    "the client Protocol's response handlers and timers; responses take the SDK's path and each request keeps its own timer",
  sseReader:
    "StreamableHTTPClientTransport's SSE reading (_handleSseStream); the SDK reads SSE bodies itself, watched",
  bodyPipe:
    "the SDK's reading of an SSE body through pipeThrough; the body is read unwatched (big integers and a broken stream's calls are not seen)",
  sessionId:
    "StreamableHTTPClientTransport's session id field; the session id is kept after a 404",
  clientHandshake:
    "the Client's handshake fields; an initialize sent again uses default capabilities and does not record the server's",
  callResultSchema:
    "zod's internals of CallToolResultSchema; every tools/call result is parsed by the schema",
  deferredMaps:
    "the Server constructor's handler maps; registrations are made at once",
  handlerMap:
    "the Server's request handler map; tools/call and tools/list take the SDK's Protocol",
  serverCapabilities:
    "the Server's getCapabilities(); capabilities are declared again and fast routes step aside",
  serverHandshake:
    "the Server's handshake fields; initialize and tool calls take the SDK's Protocol",
  jsonSchemaValidator:
    "the Server's JSON Schema validator; answers are checked with the module's own Ajv",
  loggingLevels:
    "the Server's logging levels map; ctx.log keeps levels of its own, and the SDK's sendLoggingMessage does not see what logging/setLevel set through weft",
};

/** Per internal: how often its lane was installed, and how often it fell back. */
export type SeamReport = Readonly<
  Record<
    SeamInternal,
    { readonly installed: number; readonly fellBack: number }
  >
>;

const counts = Object.fromEntries(
  Object.keys(FALLBACK).map((k) => [k, { installed: 0, fellBack: 0 }]),
) as Record<SeamInternal, { installed: number; fellBack: number }>;
const warned = new Set<SeamInternal>();
let warn: (message: string) => void = (message) => console.warn(message);

/**
 * How often each lane was installed and fell back since the process began
 * (or since {@link resetSeamReport}): a copy.
 */
export function seamReport(): SeamReport {
  return Object.fromEntries(
    Object.entries(counts).map(([k, v]) => [k, { ...v }]),
  ) as SeamReport;
}

/** Sets every count to zero and forgets which fallbacks were said (tests). */
export function resetSeamReport(): void {
  for (const v of Object.values(counts)) v.installed = v.fellBack = 0;
  warned.clear();
}

/**
 * Routes the once-per-internal fallback message to `sink` (the host's
 * notice, or a test's list) instead of `console.warn`; returns a function
 * restoring the previous sink.
 */
export function setSeamWarn(sink: (message: string) => void): () => void {
  const before = warn;
  warn = sink;
  return () => void (warn = before);
}

export function installed(internal: SeamInternal): void {
  counts[internal].installed++;
}

export function fellBack(internal: SeamInternal): void {
  counts[internal].fellBack++;
  if (warned.has(internal)) return;
  warned.add(internal);
  warn(
    `@weft/mcp: this copy of the MCP SDK (or zod) does not have the shape expected of ${
      FALLBACK[internal]
    } [${internal}]`,
  );
}

/** `value` when installed, after counting it; `undefined` after falling back. */
export function outcome<T>(
  internal: SeamInternal,
  value: T | undefined,
): T | undefined {
  if (value === undefined) fellBack(internal);
  else installed(internal);
  return value;
}
