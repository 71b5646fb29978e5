/**
 * The types of the seam's views: what a lane sees of an SDK or zod internal
 * once its shape was checked. Internal to `src/seam/`; the seam re-exports
 * them. Names no private field.
 *
 * @module
 */

/** A request's deadline entry, as the SDK's `Protocol` keeps it. */
export interface TimeoutInfo {
  timeoutId: unknown;
  startTime: number;
  timeout: number;
  maxTotalTimeout?: number;
  resetTimeoutOnProgress: boolean;
  onTimeout: () => void;
}

/** The `Protocol`'s timer methods, as the seam's `replaceTimers` takes them. */
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

/** A zod 4 schema's `run`, as its `safeParse` calls it. */
export type ZodRun = (
  payload: { value: unknown; issues: unknown[] },
  ctx: unknown,
) => unknown;

/** The getter and setter of one handler map's accessor. */
export interface MapAccessor {
  get(this: object): unknown;
  set(this: object, map: unknown): void;
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

/** A JSON Schema validator provider (the SDK's `jsonSchemaValidator` shape). */
export interface ValidatorProvider {
  getValidator(
    schema: Record<string, unknown>,
  ): (input: unknown) => { valid: boolean; errorMessage?: string };
}

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
