/**
 * The one module of `@weft/mcp` that reaches into private fields of the MCP
 * SDK (`@modelcontextprotocol/sdk`) or zod. Every shortcut the module takes
 * through them — a lane — asks here first, and gets a view (or `true`) only
 * when what it finds has the shape the lane needs (`typeof`/`instanceof` of
 * each field, and where a field is written, the SDK's own public getter
 * reading it back). When the shape is not there the lane falls back to the
 * SDK's own way, and the fallback is said once per internal (a
 * `console.warn`, or the sink {@link setSeamWarn} installs) and counted in
 * {@link seamReport}. {@link checkSdkInternals} runs every check over an SDK
 * copy's classes and lists the shapes missing: tests assert it is empty for
 * the pinned SDK, and the interop tests run it over the other copies of the
 * supported range.
 *
 * The module imports nothing: the SDK's classes are passed in (so the HTTP
 * server loads no SDK client, the HTTP clients no SDK server).
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
  | "jsonSchemaValidator";

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

function installed(internal: SeamInternal): void {
  counts[internal].installed++;
}

function fellBack(internal: SeamInternal): void {
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
function outcome<T>(
  internal: SeamInternal,
  value: T | undefined,
): T | undefined {
  if (value === undefined) fellBack(internal);
  else installed(internal);
  return value;
}

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null;

// ---------------------------------------------------------------------------
// The client Protocol: response handlers and timers.

/** A request's deadline entry, as the SDK's `Protocol` keeps it. */
export interface TimeoutInfo {
  timeoutId: unknown;
  startTime: number;
  timeout: number;
  maxTotalTimeout?: number;
  resetTimeoutOnProgress: boolean;
  onTimeout: () => void;
}

/** The `Protocol`'s timer methods, as {@link ProtocolSeam.replaceTimers} takes them. */
export interface ProtocolTimers {
  setup(
    messageId: number,
    timeout: number,
    maxTotalTimeout: number | undefined,
    onTimeout: () => void,
    resetTimeoutOnProgress?: boolean,
  ): void;
  reset(messageId: number): boolean;
  cleanup(messageId: number): void;
}

interface ProtocolFields {
  _responseHandlers: Map<number, (response: unknown) => void>;
  _progressHandlers: Map<number, unknown>;
  _requestResolvers: Map<number, unknown>;
  _timeoutInfo: Map<number, TimeoutInfo>;
  _setupTimeout: ProtocolTimers["setup"];
  _resetTimeout: ProtocolTimers["reset"];
  _cleanupTimeout: ProtocolTimers["cleanup"];
}

function protocolFields(protocol: object): ProtocolFields | undefined {
  const p = protocol as Partial<ProtocolFields>;
  return p._responseHandlers instanceof Map &&
      p._progressHandlers instanceof Map &&
      p._requestResolvers instanceof Map &&
      p._timeoutInfo instanceof Map &&
      typeof p._setupTimeout === "function" &&
      typeof p._resetTimeout === "function" &&
      typeof p._cleanupTimeout === "function"
    ? p as ProtocolFields
    : undefined;
}

/** The client `Protocol`'s bookkeeping, read live (the SDK replaces maps on close). */
export class ProtocolSeam {
  readonly #p: ProtocolFields;

  constructor(fields: ProtocolFields) {
    this.#p = fields;
  }

  /** The deadline entries by request id. */
  get timeouts(): Map<number, TimeoutInfo> {
    return this.#p._timeoutInfo;
  }

  /** The handler waiting for the response to request `id`. */
  responseHandler(id: number): ((response: unknown) => void) | undefined {
    return this.#p._responseHandlers.get(id);
  }

  /** Whether request `id` is queued for a task (its response goes another way). */
  queuedForTask(id: number): boolean {
    return this.#p._requestResolvers.has(id);
  }

  /** Forgets request `id` as the SDK does once its response came. */
  settle(id: number): void {
    const p = this.#p;
    p._responseHandlers.delete(id);
    p._cleanupTimeout(id);
    p._progressHandlers.delete(id);
  }

  /** Puts `timers` in place of the `Protocol`'s own timer methods. */
  replaceTimers(timers: ProtocolTimers): void {
    const p = this.#p;
    p._setupTimeout = timers.setup;
    p._resetTimeout = timers.reset;
    p._cleanupTimeout = timers.cleanup;
  }
}

const protocolSeams = new WeakMap<object, ProtocolSeam>();

/**
 * The client `Protocol`'s bookkeeping of `protocol` (a connected SDK
 * `Client`, or one being built), or `undefined` (said once) when it is not
 * as expected. `count: false` looks without counting (a per-message check).
 */
export function protocolSeam(
  protocol: object,
  count = true,
): ProtocolSeam | undefined {
  let seam = protocolSeams.get(protocol);
  if (seam === undefined) {
    const fields = protocolFields(protocol);
    if (fields !== undefined) {
      protocolSeams.set(protocol, seam = new ProtocolSeam(fields));
    }
  }
  return count ? outcome("clientProtocol", seam) : seam;
}

// ---------------------------------------------------------------------------
// StreamableHTTPClientTransport: SSE reading, the session id.

/** What the SDK transport's SSE reading is given besides the body. */
export interface SseReadOptions {
  onresumptiontoken?: (token: string) => void;
  replayMessageId?: string | number;
}

/** Reads an SSE body in the SDK transport's place (its three arguments). */
export type SseRead = (
  stream: ReadableStream<Uint8Array> | null,
  options: SseReadOptions,
  isReconnectable: boolean,
) => void;

interface SseFields {
  _handleSseStream: SseRead;
  _scheduleReconnection(
    options: SseReadOptions & { resumptionToken?: string },
    attemptCount?: number,
  ): void;
  _serverRetryMs?: number;
  _abortController?: AbortController;
}

function sseFields(transport: object): SseFields | undefined {
  const t = transport as Partial<SseFields>;
  return typeof t._handleSseStream === "function" &&
      typeof t._scheduleReconnection === "function" &&
      t._handleSseStream.length === 3
    ? t as SseFields
    : undefined;
}

/** What an SSE reader standing in for the SDK's uses of the transport. */
export interface SseReaderSeam {
  /** Sets the delay before a reconnection, as a `retry:` field sets it. */
  setRetry(ms: number): void;
  /** The transport's abort signal (aborted on close), if it has one now. */
  signal(): AbortSignal | undefined;
  /** Resumes a stream as the SDK does (a GET with `Last-Event-ID`). */
  scheduleReconnection(
    options: SseReadOptions & { resumptionToken?: string },
    attemptCount?: number,
  ): void;
}

/**
 * Puts `read` in place of `transport`'s (an SDK
 * `StreamableHTTPClientTransport`) SSE reading and returns what the reader
 * uses of the transport; `undefined` (said once) when its internals are not
 * as expected, and nothing is replaced.
 */
export function replaceSseReader(
  transport: object,
  read: SseRead,
): SseReaderSeam | undefined {
  const t = sseFields(transport);
  if (t === undefined) return outcome("sseReader", undefined);
  t._handleSseStream = read;
  return outcome("sseReader", {
    setRetry: (ms) => void (t._serverRetryMs = ms),
    signal: () => t._abortController?.signal,
    scheduleReconnection: (options, attempt) =>
      t._scheduleReconnection(options, attempt),
  });
}

/**
 * Clears `transport`'s session id (an SDK `StreamableHTTPClientTransport`),
 * so the next `initialize` begins a new session. Written only when the
 * transport's public `sessionId` reads the field; `false` (said once) when not.
 */
export function forgetSessionId(transport: object): boolean {
  const t = transport as { _sessionId?: unknown; sessionId?: unknown };
  const known = Object.hasOwn(t, "_sessionId") &&
    t.sessionId === t._sessionId;
  if (known) t._sessionId = undefined;
  return outcome("sessionId", known || undefined) ?? false;
}

/**
 * Replaces `body`'s `pipeThrough` (the SDK reads an SSE body with
 * `body.pipeThrough(new TextDecoderStream())`) by `pipe`. When the body is
 * read another way — a reader taken outside `pipe` — the fallback is said
 * once: the watch is then bypassed.
 */
export function replacePipeThrough(
  body: ReadableStream<Uint8Array>,
  pipe: <T>(
    transform: ReadableWritablePair<T, Uint8Array>,
  ) => ReadableStream<T>,
): void {
  let piping = false;
  let seen = false;
  const getReader = ReadableStream.prototype.getReader;
  Object.defineProperty(body, "pipeThrough", {
    value: <T>(transform: ReadableWritablePair<T, Uint8Array>) => {
      if (!seen) installed("bodyPipe");
      seen = true;
      piping = true;
      try {
        return pipe(transform);
      } finally {
        piping = false;
      }
    },
    configurable: true,
    writable: true,
  });
  Object.defineProperty(body, "getReader", {
    value: function (this: ReadableStream<Uint8Array>, ...args: unknown[]) {
      if (!piping && !seen) {
        seen = true;
        fellBack("bodyPipe");
      }
      return (getReader as (...a: unknown[]) => unknown).apply(this, args);
    },
    configurable: true,
    writable: true,
  });
}

// ---------------------------------------------------------------------------
// The Client's handshake fields.

/** What an `initialize` sent again reads of the `Client` and records on it. */
export interface ClientHandshakeSeam {
  readonly capabilities: unknown;
  readonly clientInfo: unknown;
  /** Records the server's answer as the SDK's `connect` does. */
  record(result: {
    capabilities: unknown;
    serverInfo: unknown;
    instructions?: unknown;
  }): void;
}

interface ClientFields {
  _capabilities: unknown;
  _clientInfo: unknown;
  _serverCapabilities?: unknown;
  _serverVersion?: unknown;
  _instructions?: unknown;
  getServerCapabilities(): unknown;
  getServerVersion(): unknown;
  getInstructions(): unknown;
}

/**
 * The handshake fields of `client` (an SDK `Client`), or `undefined` (said
 * once) when they are not as expected: its capabilities and info objects,
 * and the server's answer fields as its public getters read them.
 */
export function clientHandshake(
  client: object,
): ClientHandshakeSeam | undefined {
  const c = client as Partial<ClientFields>;
  const known = isObject(c._capabilities) && isObject(c._clientInfo) &&
    typeof c.getServerCapabilities === "function" &&
    typeof c.getServerVersion === "function" &&
    typeof c.getInstructions === "function" &&
    c.getServerCapabilities() === c._serverCapabilities &&
    c.getServerVersion() === c._serverVersion &&
    c.getInstructions() === c._instructions;
  if (!known) return outcome("clientHandshake", undefined);
  return outcome("clientHandshake", {
    capabilities: c._capabilities,
    clientInfo: c._clientInfo,
    record: (result) => {
      c._serverCapabilities = result.capabilities;
      c._serverVersion = result.serverInfo;
      c._instructions = result.instructions;
    },
  });
}

// ---------------------------------------------------------------------------
// zod: a schema's `run`.

/** A zod 4 schema's `run`, as its `safeParse` calls it. */
export type ZodRun = (
  payload: { value: unknown; issues: unknown[] },
  ctx: unknown,
) => unknown;

function zodRunOf(schema: unknown): ZodRun | undefined {
  const internals = isObject(schema) ? schema._zod : undefined;
  return isObject(internals) && typeof internals.run === "function"
    ? internals.run.bind(internals) as ZodRun
    : undefined;
}

/**
 * `schema` (a zod 4 schema) with its `run` wrapped: a schema whose
 * prototype is `schema` and whose internals' prototype is `schema`'s, with
 * `wrap(run)` as their `run`. `undefined` (said once) when `schema` has no
 * zod 4 internals.
 */
export function wrapZodRun<T extends object>(
  schema: T,
  wrap: (run: ZodRun) => ZodRun,
): T | undefined {
  const run = zodRunOf(schema);
  if (run === undefined) return outcome("callResultSchema", undefined);
  const internals = (schema as unknown as { _zod: object })._zod;
  return outcome(
    "callResultSchema",
    Object.create(schema, {
      _zod: {
        value: Object.create(internals, { run: { value: wrap(run) } }),
      },
    }) as T,
  );
}

// ---------------------------------------------------------------------------
// The Server: handler maps, capabilities, handshake fields, validator.

/** The getter and setter of one handler map's accessor. */
export interface MapAccessor {
  get(this: object): unknown;
  set(this: object, map: unknown): void;
}

/**
 * Puts accessors for the SDK `Protocol`'s two handler maps on `proto` (a
 * subclass of the SDK's `Server`), so the constructor's assignments reach
 * them. Whether they did is {@link handlerMapsCaught}'s to say.
 */
export function interceptHandlerMaps(
  proto: object,
  requests: MapAccessor,
  notifications: MapAccessor,
): void {
  Object.defineProperties(proto, {
    _requestHandlers: { ...requests, configurable: true },
    _notificationHandlers: { ...notifications, configurable: true },
  });
}

/**
 * Whether the maps an SDK constructor assigned through
 * {@link interceptHandlerMaps} are both `Map`s; when not (said once), the
 * caller makes its deferred registrations at once.
 */
export function handlerMapsCaught(
  requests: unknown,
  notifications: unknown,
): boolean {
  const caught = requests instanceof Map && notifications instanceof Map;
  return outcome("deferredMaps", caught || undefined) ?? false;
}

/**
 * The request handler map of `server` (an SDK `Server`), by method, or
 * `undefined` (said once) when it has none.
 */
export function requestHandlers(
  server: object,
): Map<string, unknown> | undefined {
  const map = (server as { _requestHandlers?: unknown })._requestHandlers;
  return outcome("handlerMap", map instanceof Map ? map : undefined);
}

/**
 * The capabilities `server` (an SDK `Server`) declares, from its private
 * `getCapabilities()`, or `undefined` (said once) when it has none.
 */
export function serverCapabilities(
  server: object,
): Record<string, unknown> | undefined {
  const get = (server as { getCapabilities?: unknown }).getCapabilities;
  const found = typeof get === "function" ? get.call(server) : undefined;
  return outcome("serverCapabilities", isObject(found) ? found : undefined);
}

/** What answering `initialize` without the `Protocol` reads of a `Server`. */
export interface ServerHandshakeSeam {
  /** Whether the server was built with a task store (tasks take the SDK's path). */
  readonly hasTaskStore: boolean;
  readonly serverInfo: unknown;
  readonly instructions: unknown;
  /** Its declared capabilities (its private `getCapabilities()`). */
  capabilities(): unknown;
  /** Records the client's capabilities and info as the SDK's `initialize` handler does. */
  recordClient(capabilities: unknown, clientInfo: unknown): void;
}

interface ServerFields {
  _serverInfo: unknown;
  _instructions?: unknown;
  _taskStore?: unknown;
  _clientCapabilities?: unknown;
  _clientVersion?: unknown;
  getCapabilities(): unknown;
  getClientCapabilities(): unknown;
  getClientVersion(): unknown;
}

/**
 * The handshake fields of `server` (an SDK `Server`, possibly of the
 * user's own copy), or `undefined` (said once) when they are not as
 * expected. The client fields are written only when the server's public
 * `getClientCapabilities()` and `getClientVersion()` read them.
 */
export function serverHandshake(
  server: object,
): ServerHandshakeSeam | undefined {
  const s = server as Partial<ServerFields>;
  const known = isObject(s._serverInfo) &&
    typeof s.getCapabilities === "function" &&
    typeof s.getClientCapabilities === "function" &&
    typeof s.getClientVersion === "function" &&
    s.getClientCapabilities() === s._clientCapabilities &&
    s.getClientVersion() === s._clientVersion;
  return outcome(
    "serverHandshake",
    known ? new ServerHandshake(s as ServerFields) : undefined,
  );
}

class ServerHandshake implements ServerHandshakeSeam {
  readonly #s: ServerFields;

  constructor(fields: ServerFields) {
    this.#s = fields;
  }

  get hasTaskStore(): boolean {
    return this.#s._taskStore !== undefined;
  }

  get serverInfo(): unknown {
    return this.#s._serverInfo;
  }

  get instructions(): unknown {
    return this.#s._instructions;
  }

  capabilities(): unknown {
    return this.#s.getCapabilities();
  }

  recordClient(capabilities: unknown, clientInfo: unknown): void {
    this.#s._clientCapabilities = capabilities;
    this.#s._clientVersion = clientInfo;
  }
}

/** A JSON Schema validator provider (the SDK's `jsonSchemaValidator` shape). */
export interface ValidatorProvider {
  getValidator(
    schema: Record<string, unknown>,
  ): (input: unknown) => { valid: boolean; errorMessage?: string };
}

/**
 * The JSON Schema validator `server` (an SDK `Server`) was built with, or
 * `undefined` (said once) when it has none.
 */
export function serverValidator(
  server: object,
): ValidatorProvider | undefined {
  const given = (server as { _jsonSchemaValidator?: unknown })
    ._jsonSchemaValidator;
  return outcome(
    "jsonSchemaValidator",
    isObject(given) && typeof given.getValidator === "function"
      ? given as unknown as ValidatorProvider
      : undefined,
  );
}

// ---------------------------------------------------------------------------
// Every check over one SDK copy.

/** The classes of one copy of the SDK that {@link checkSdkInternals} builds. */
export interface SdkCopy {
  readonly Server: new (
    info: { name: string; version: string },
    options?: Record<string, unknown>,
  ) => object;
  readonly Client: new (
    info: { name: string; version: string },
    options?: Record<string, unknown>,
  ) => object;
  readonly StreamableHTTPClientTransport: new (url: URL) => object;
  readonly CallToolResultSchema: unknown;
}

/**
 * Runs every shape check over fresh objects of `sdk` (nothing counted,
 * nothing said) and returns the internals whose shape is missing, each with
 * what was looked for: `[]` when every lane can be installed.
 */
export function checkSdkInternals(sdk: SdkCopy): string[] {
  const missing: string[] = [];
  const info = { name: "seam-check", version: "0.0.0" };
  const client = new sdk.Client(info);
  if (protocolFields(client) === undefined) {
    missing.push(
      "clientProtocol: Protocol _responseHandlers, _progressHandlers, _requestResolvers, _timeoutInfo (Maps), _setupTimeout, _resetTimeout, _cleanupTimeout (functions)",
    );
  }
  const c = client as Partial<ClientFields>;
  if (
    !isObject(c._capabilities) || !isObject(c._clientInfo) ||
    typeof c.getServerCapabilities !== "function" ||
    typeof c.getServerVersion !== "function" ||
    typeof c.getInstructions !== "function"
  ) {
    missing.push(
      "clientHandshake: Client _capabilities, _clientInfo (objects), getServerCapabilities, getServerVersion, getInstructions (functions)",
    );
  }
  const transport = new sdk.StreamableHTTPClientTransport(
    new URL("http://127.0.0.1:9/mcp"),
  );
  if (sseFields(transport) === undefined) {
    missing.push(
      "sseReader: StreamableHTTPClientTransport _handleSseStream(stream, options, isReconnectable), _scheduleReconnection (functions)",
    );
  }
  const handle = (transport as { _handleSseStream?: unknown })._handleSseStream;
  if (typeof handle !== "function" || !/\.pipeThrough\(/.test(String(handle))) {
    missing.push(
      "bodyPipe: StreamableHTTPClientTransport reads an SSE body with body.pipeThrough",
    );
  }
  const t = transport as { _sessionId?: unknown; sessionId?: unknown };
  if (!Object.hasOwn(t, "_sessionId") || t.sessionId !== t._sessionId) {
    missing.push(
      "sessionId: StreamableHTTPClientTransport _sessionId (own field, read by sessionId)",
    );
  }
  if (zodRunOf(sdk.CallToolResultSchema) === undefined) {
    missing.push("callResultSchema: CallToolResultSchema._zod.run (function)");
  }
  const caught: unknown[] = [];
  const Probe = class extends sdk.Server {};
  interceptHandlerMaps(Probe.prototype, {
    get: () => caught[0],
    set: (map) => void (caught[0] = map),
  }, {
    get: () => caught[1],
    set: (map) => void (caught[1] = map),
  });
  try {
    new Probe(info);
  } catch {
    // A constructor that reads a map back differently: counted as missing below.
  }
  if (!(caught[0] instanceof Map && caught[1] instanceof Map)) {
    missing.push(
      "deferredMaps: Server constructor assigns _requestHandlers and _notificationHandlers",
    );
  }
  const server = new sdk.Server(info);
  if (!((server as Fields)._requestHandlers instanceof Map)) {
    missing.push("handlerMap: Server _requestHandlers (Map)");
  }
  const capabilities = (server as Partial<ServerFields>).getCapabilities;
  if (
    typeof capabilities !== "function" ||
    !isObject(capabilities.call(server))
  ) {
    missing.push("serverCapabilities: Server getCapabilities() (an object)");
  }
  const s = server as Partial<ServerFields>;
  if (
    !isObject(s._serverInfo) || typeof s.getClientCapabilities !== "function" ||
    typeof s.getClientVersion !== "function"
  ) {
    missing.push(
      "serverHandshake: Server _serverInfo (object), getClientCapabilities, getClientVersion (functions)",
    );
  } else {
    // The fields written are the ones the SDK's getters read.
    const probe = { probe: true };
    s._clientCapabilities = probe;
    s._clientVersion = probe;
    if (s.getClientCapabilities() !== probe || s.getClientVersion() !== probe) {
      missing.push(
        "serverHandshake: Server getClientCapabilities/getClientVersion read _clientCapabilities/_clientVersion",
      );
    }
  }
  const validator = (server as Fields)._jsonSchemaValidator;
  if (!isObject(validator) || typeof validator.getValidator !== "function") {
    missing.push(
      "jsonSchemaValidator: Server _jsonSchemaValidator.getValidator (function)",
    );
  }
  return missing;
}
