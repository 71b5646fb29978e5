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

export {
  resetSeamReport,
  type SeamInternal,
  type SeamReport,
  seamReport,
  setSeamWarn,
} from "./_report.ts";
import { fellBack, installed, outcome, type SeamInternal } from "./_report.ts";
import type {
  ClientHandshakeSeam,
  MapAccessor,
  ProtocolTimers,
  SdkCopy,
  ServerHandshakeSeam,
  SseRead,
  SseReaderSeam,
  SseReadOptions,
  TimeoutInfo,
  ValidatorProvider,
  ZodRun,
} from "./_types.ts";
export type {
  ClientHandshakeSeam,
  MapAccessor,
  ProtocolTimers,
  SdkCopy,
  ServerHandshakeSeam,
  SseRead,
  SseReaderSeam,
  SseReadOptions,
  TimeoutInfo,
  ValidatorProvider,
  ZodRun,
} from "./_types.ts";

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null;

// ---------------------------------------------------------------------------
// The client Protocol: response handlers and timers.

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
  const known = sessionIdKnown(t);
  if (known) t._sessionId = undefined;
  return outcome("sessionId", known || undefined) ?? false;
}

function sessionIdKnown(
  t: { _sessionId?: unknown; sessionId?: unknown },
): boolean {
  return Object.hasOwn(t, "_sessionId") && t.sessionId === t._sessionId;
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

function clientFieldsKnown(c: Partial<ClientFields>): boolean {
  return isObject(c._capabilities) && isObject(c._clientInfo) &&
    typeof c.getServerCapabilities === "function" &&
    typeof c.getServerVersion === "function" &&
    typeof c.getInstructions === "function" &&
    c.getServerCapabilities() === c._serverCapabilities &&
    c.getServerVersion() === c._serverVersion &&
    c.getInstructions() === c._instructions;
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
  if (!clientFieldsKnown(c)) return outcome("clientHandshake", undefined);
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
  return outcome("handlerMap", handlerMapOf(server));
}

function handlerMapOf(server: object): Map<string, unknown> | undefined {
  const map = (server as { _requestHandlers?: unknown })._requestHandlers;
  return map instanceof Map ? map : undefined;
}

/**
 * The levels `logging/setLevel` set on `server` (an SDK `Server`), by
 * session id (`undefined`: no session): its private `_loggingLevels`, so
 * that the SDK's `sendLoggingMessage` and a tool's `ctx.log` filter alike;
 * `undefined` (said once) when it has none.
 */
export function loggingLevels(
  server: object,
): Map<string | undefined, unknown> | undefined {
  return outcome("loggingLevels", loggingLevelsOf(server));
}

function loggingLevelsOf(
  server: object,
): Map<string | undefined, unknown> | undefined {
  const map = (server as { _loggingLevels?: unknown })._loggingLevels;
  return map instanceof Map ? map : undefined;
}

/**
 * The capabilities `server` (an SDK `Server`) declares, from its private
 * `getCapabilities()`, or `undefined` (said once) when it has none.
 */
export function serverCapabilities(
  server: object,
): Record<string, unknown> | undefined {
  return outcome("serverCapabilities", capabilitiesOf(server));
}

function capabilitiesOf(server: object): Record<string, unknown> | undefined {
  const get = (server as { getCapabilities?: unknown }).getCapabilities;
  const found = typeof get === "function" ? get.call(server) : undefined;
  return isObject(found) ? found : undefined;
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
  return outcome(
    "serverHandshake",
    serverFieldsKnown(s) ? new ServerHandshake(s as ServerFields) : undefined,
  );
}

function serverFieldsKnown(s: Partial<ServerFields>): boolean {
  return isObject(s._serverInfo) &&
    typeof s.getCapabilities === "function" &&
    typeof s.getClientCapabilities === "function" &&
    typeof s.getClientVersion === "function" &&
    s.getClientCapabilities() === s._clientCapabilities &&
    s.getClientVersion() === s._clientVersion;
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

/**
 * The JSON Schema validator `server` (an SDK `Server`) was built with, or
 * `undefined` (said once) when it has none.
 */
export function serverValidator(
  server: object,
): ValidatorProvider | undefined {
  return outcome("jsonSchemaValidator", validatorOf(server));
}

function validatorOf(server: object): ValidatorProvider | undefined {
  const given = (server as { _jsonSchemaValidator?: unknown })
    ._jsonSchemaValidator;
  return isObject(given) && typeof given.getValidator === "function"
    ? given as unknown as ValidatorProvider
    : undefined;
}

// ---------------------------------------------------------------------------
// Every check over one SDK copy.

/**
 * Runs every shape check over fresh objects of `sdk` (nothing counted,
 * nothing said) and returns the internals whose shape is missing, each with
 * what was looked for: `[]` when every lane can be installed.
 */
export function checkSdkInternals(sdk: SdkCopy): string[] {
  const info = { name: "seam-check", version: "0.0.0" };
  const client = new sdk.Client(info);
  const transport = new sdk.StreamableHTTPClientTransport(
    new URL("http://127.0.0.1:9/mcp"),
  ) as SseFields & { _sessionId?: unknown };
  const server = new sdk.Server(info) as Partial<ServerFields>;
  const caught: unknown[] = [];
  const Probe = class extends sdk.Server {};
  interceptHandlerMaps(Probe.prototype, {
    get: () => caught[0],
    set: (map) => void (caught[0] = map),
  }, {
    get: () => caught[1],
    set: (map) => void (caught[1] = map),
  });
  new Probe(info);
  const checks: [SeamInternal, string, () => boolean][] = [
    [
      "clientProtocol",
      "Protocol _responseHandlers, _progressHandlers, _requestResolvers, _timeoutInfo (Maps), _setupTimeout, _resetTimeout, _cleanupTimeout (functions)",
      () => protocolFields(client) !== undefined,
    ],
    [
      "clientHandshake",
      "Client _capabilities, _clientInfo (objects), getServerCapabilities, getServerVersion, getInstructions (reading their fields)",
      () => clientFieldsKnown(client),
    ],
    [
      "sseReader",
      "StreamableHTTPClientTransport _handleSseStream(stream, options, isReconnectable), _scheduleReconnection (functions)",
      () => sseFields(transport) !== undefined,
    ],
    [
      "bodyPipe",
      "StreamableHTTPClientTransport reads an SSE body with body.pipeThrough",
      () => /\.pipeThrough\(/.test(String(transport._handleSseStream)),
    ],
    [
      "sessionId",
      "StreamableHTTPClientTransport _sessionId (own field, read by sessionId)",
      () => sessionIdKnown(transport),
    ],
    [
      "callResultSchema",
      "CallToolResultSchema._zod.run (function)",
      () => zodRunOf(sdk.CallToolResultSchema) !== undefined,
    ],
    [
      "deferredMaps",
      "Server constructor assigns _requestHandlers and _notificationHandlers",
      () => caught[0] instanceof Map && caught[1] instanceof Map,
    ],
    [
      "handlerMap",
      "Server _requestHandlers (Map)",
      () => handlerMapOf(server) !== undefined,
    ],
    [
      "serverCapabilities",
      "Server getCapabilities() (an object)",
      () => capabilitiesOf(server) !== undefined,
    ],
    [
      "serverHandshake",
      "Server _serverInfo (object), getClientCapabilities, getClientVersion (reading _clientCapabilities, _clientVersion)",
      () => {
        if (!serverFieldsKnown(server)) return false;
        // The fields written are the ones the SDK's getters read.
        const probe = { probe: true };
        new ServerHandshake(server as ServerFields).recordClient(probe, probe);
        return server.getClientCapabilities!() === probe &&
          server.getClientVersion!() === probe;
      },
    ],
    [
      "loggingLevels",
      "Server _loggingLevels (Map)",
      () => loggingLevelsOf(server) !== undefined,
    ],
    [
      "jsonSchemaValidator",
      "Server _jsonSchemaValidator.getValidator (function)",
      () => validatorOf(server) !== undefined,
    ],
  ];
  return checks.filter(([, , found]) => !found()).map(([name, what]) =>
    `${name}: ${what}`
  );
}
