/**
 * The fast path of `tools/list` and `tools/call`: a call of tools the
 * bridge registered (`exportTools`, `serveAgent`) answered from the
 * server's tool registry directly, on the same transports as every other
 * request, without the SDK's `Protocol` handling it — the HTTP handler's
 * stateless requests (no `Protocol` connected at all) and `serveStdio`'s
 * connection (the `Protocol` connected, but these two methods answered
 * in front of it). The SDK's `Protocol` validates each message twice (as a
 * JSON-RPC request, then against the handler's schema), arms a controller
 * and, on close, builds a "Connection closed" error with its stack for
 * every request; here the request was checked by the transport already,
 * and what the SDK would do with it — the request context its handler
 * sees, the `CallToolResult` check and its error text, the answer's
 * shape, cancellation and progress — is done in a few lines. A request
 * or server this does not cover (a batch, another method, odd `params`,
 * tasks, a server whose tools handlers someone replaced, or that has
 * `onclose`/`onerror` hooks or a transport of its own) takes the SDK's
 * path, as before.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolResultSchema,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type {
  JSONRPCMessage,
  MessageExtraInfo,
} from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/server/zod-compat"
import { safeParse } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import type { Transport } from "../sdk_types.ts";
import { serverHandshake } from "../../seam/sdk_internals.ts";
import type { TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport";
import { type ServedTools, servedToolsOf } from "../../core/served_tools.ts";

type RequestId = string | number;
type Json = Record<string, unknown>;

/** Internal switch: `false` sends every request down the SDK's path (tests compare both). */
export const fastPath: { enabled: boolean } = { enabled: true };

/** The `-32602` code of `InvalidParams` (the SDK's `ErrorCode`). */
const INVALID_PARAMS = -32602;
/** The `-32603` code of `InternalError`. */
const INTERNAL_ERROR = -32603;
const RELATED_TASK = "io.modelcontextprotocol/related-task";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What the SDK's `Server` keeps that the fast path reads or sets. */
interface SdkServerShape {
  transport?: unknown;
  onclose?: unknown;
  onerror?: (error: Error) => void;
  notification?: (n: Json, options: Json) => Promise<void>;
  request?: (r: Json, schema: unknown, options: Json) => Promise<unknown>;
  oninitialized?: () => void;
}

/**
 * Whether the SDK would read `params` as a valid request of its schema
 * without changing what the handler sees: an object, its `_meta` an
 * object (a string or integer `progressToken`, no related task), no task
 * asked.
 */
function plainParams(params: unknown): params is Json {
  if (!isObject(params) || params.task !== undefined) return false;
  const meta = params._meta;
  if (meta === undefined) return true;
  if (!isObject(meta) || meta[RELATED_TASK] !== undefined) return false;
  // A modern caller declaring tasks may be answered with one: the SDK's
  // path, where a task store that is down is answered 503.
  const declared = meta[CLIENT_CAPABILITIES];
  if (
    isObject(declared) && isObject(declared.extensions) &&
    declared.extensions[TASKS_EXTENSION] !== undefined
  ) return false;
  const token = meta.progressToken;
  return token === undefined || typeof token === "string" ||
    Number.isInteger(token);
}

/**
 * The registry `server` answers `body` from on the fast path, or
 * `undefined` when the body or the server takes the SDK's path. With
 * `connected`, the server is connected (to the lane in front of it) and
 * its hooks are called as the SDK would; without, it is not connected and
 * must have no `onclose`/`onerror` hooks (no close or error to tell).
 */
export function fastToolsFor(
  server: object,
  body: unknown,
  connected = false,
): ServedTools | undefined {
  if (!fastPath.enabled || !isObject(body)) return undefined;
  const method = body.method;
  const params = body.params;
  if (method === "tools/call") {
    if (!plainParams(params) || typeof params.name !== "string") {
      return undefined;
    }
  } else if (method === "tools/list") {
    if (
      params !== undefined &&
      (!plainParams(params) ||
        (params.cursor !== undefined && typeof params.cursor !== "string"))
    ) return undefined;
  } else return undefined;
  const s = server as SdkServerShape;
  const handshake = serverHandshake(server);
  if (handshake === undefined || handshake.hasTaskStore) return undefined;
  if (connected) {
    if (
      typeof s.notification !== "function" || typeof s.request !== "function"
    ) return undefined;
  } else if (
    s.transport !== undefined || s.onclose !== undefined ||
    s.onerror !== undefined
  ) return undefined;
  return servedToolsOf(server);
}

/** Whether a tools/call result is one the SDK's check passes as it is. */
function plainResult(result: unknown): boolean {
  if (!isObject(result)) return false;
  for (const key in result) {
    const value = result[key];
    switch (key) {
      case "content":
        if (!Array.isArray(value)) return false;
        for (const item of value) {
          if (!isObject(item) || item.type !== "text") return false;
          if (typeof item.text !== "string") return false;
          for (const k in item) if (k !== "type" && k !== "text") return false;
        }
        break;
      case "structuredContent":
        if (
          !isObject(value) || Object.getPrototypeOf(value) !== Object.prototype
        ) {
          return false;
        }
        break;
      case "isError":
        if (typeof value !== "boolean") return false;
        break;
      default:
        return false;
    }
  }
  return result.content !== undefined;
}

let closed: DOMException | undefined;

/**
 * The reason `abort()` would give: a `DOMException` named `AbortError`.
 * One object shared by every call of every server, so frozen: what one
 * handler writes on it never reaches another caller's.
 */
function closedReason(): DOMException {
  if (closed === undefined) {
    const controller = new AbortController();
    controller.abort();
    closed = Object.freeze(controller.signal.reason as DOMException);
  }
  return closed;
}

/** An error the SDK's `Server` throws for a result that is not a `CallToolResult`. */
class InvalidResultError extends Error {
  readonly code = INVALID_PARAMS;
}

/**
 * The SDK `Server`'s check of a tools/call result: as it is when it is
 * plainly valid (text items, an object, a boolean), else what the SDK's
 * schema parse gives, or the error it throws.
 */
function checkedResult(result: unknown): Json {
  if (plainResult(result)) return result as Json;
  const parsed = safeParse(CallToolResultSchema, result);
  if (!parsed.success) {
    const error = parsed.error as unknown;
    // The SDK throws an McpError, whose message leads with its code.
    throw new InvalidResultError(
      `MCP error ${INVALID_PARAMS}: Invalid tools/call result: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
  return parsed.data as Json;
}

/** Where a {@link FastDispatch} sends: a transport, or the lane in front of a server. */
export interface FastLink {
  /** The session id the handler sees (`extra.sessionId`). */
  readonly sessionId?: string;
  /** Sends a message as the server's transport would. */
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void>;
}

/**
 * Answers `tools/list` and `tools/call` requests from a server's registry
 * as the SDK `Server` would: the handler context, the result check, the
 * answer or error, cancellation by id, and on close every call still
 * running aborted.
 */
export class FastDispatch {
  readonly #server: SdkServerShape;
  readonly #tools: ServedTools;
  readonly #connected: boolean;
  #link?: FastLink;
  readonly #controllers = new Map<RequestId, AbortController>();

  /**
   * A dispatch answering from `tools` on `server`'s behalf through `link`.
   * `connected`: the server's `Protocol` is connected to `link` and sends
   * its notifications and requests itself.
   */
  constructor(
    server: object,
    tools: ServedTools,
    link: FastLink,
    connected = false,
  ) {
    this.#server = server as SdkServerShape;
    this.#tools = tools;
    this.#link = link;
    this.#connected = connected;
  }

  /** Whether a call under `id` is running here. */
  has(id: RequestId): boolean {
    return this.#controllers.has(id);
  }

  /** A `notifications/cancelled` for `id`: its signal aborts with `reason`. */
  cancel(id: RequestId, reason: unknown): void {
    this.#controllers.get(id)?.abort(reason);
  }

  /** The link closed: calls still running see their signal abort, nothing more is sent. */
  closed(): void {
    this.#link = undefined;
    if (this.#controllers.size === 0) return;
    const controllers = [...this.#controllers.values()];
    this.#controllers.clear();
    // The SDK aborts them with no reason (an `AbortError`): one made once.
    for (const controller of controllers) controller.abort(closedReason());
  }

  /** Answers a `tools/list` or `tools/call` request (`fastToolsFor` said yes). */
  request(
    method: string,
    id: RequestId,
    params: Json | undefined,
    info: MessageExtraInfo | undefined,
  ): void {
    const link = this.#link;
    if (link === undefined) return;
    const server = this.#server;
    const controller = new AbortController();
    this.#controllers.set(id, controller);
    const signal = controller.signal;
    const extra = {
      signal,
      sessionId: link.sessionId,
      _meta: params?._meta,
      sendNotification: async (notification: Json): Promise<void> => {
        if (signal.aborted) return;
        if (this.#connected) {
          return await server.notification!(notification, {
            relatedRequestId: id,
          });
        }
        const current = this.#link;
        if (current === undefined) throw new Error("Not connected");
        await current.send(
          { ...notification, jsonrpc: "2.0" } as JSONRPCMessage,
          { relatedRequestId: id },
        );
      },
      sendRequest: (r: Json, schema: unknown, options?: Json) => {
        // A stateless request has no client to send a request to.
        if (!this.#connected) return Promise.reject(new Error("Not connected"));
        return signal.aborted
          ? Promise.reject(
            new McpLikeError(-32000, "Request was cancelled"),
          )
          : server.request!(r, schema, { ...options, relatedRequestId: id });
      },
      authInfo: info?.authInfo,
      requestId: id,
      requestInfo: info?.requestInfo,
      taskId: undefined,
      taskStore: undefined,
      taskRequestedTtl: undefined,
      closeSSEStream: info?.closeSSEStream,
      closeStandaloneSSEStream: info?.closeStandaloneSSEStream,
    };
    // As the SDK does, the handler starts a turn later (a throw is a rejection).
    const tools = this.#tools;
    const answer = method === "tools/list"
      ? Promise.resolve().then(() => tools.list())
      : Promise.resolve().then(() => tools.call(params ?? {}, extra)).then(
        checkedResult,
      );
    answer.then(
      (result) => {
        if (signal.aborted) return;
        return link.send({ result, jsonrpc: "2.0", id } as JSONRPCMessage);
      },
      (error) => {
        if (signal.aborted) return;
        const e = error as {
          code?: unknown;
          message?: unknown;
          data?: unknown;
        };
        return link.send({
          jsonrpc: "2.0",
          id,
          error: {
            code: Number.isSafeInteger(e.code) ? e.code : INTERNAL_ERROR,
            message: e.message ?? "Internal error",
            ...(e.data !== undefined && { data: e.data }),
          },
        } as JSONRPCMessage);
      },
    ).catch((error) =>
      server.onerror?.(new Error(`Failed to send response: ${error}`))
    ).finally(() => {
      if (this.#controllers.get(id) === controller) {
        this.#controllers.delete(id);
      }
    });
  }
}

/** The SDK's `McpError` shape (code first in its message) for a cancelled request's send. */
class McpLikeError extends Error {
  readonly code: number;

  constructor(code: number, message: string) {
    super(`MCP error ${code}: ${message}`);
    this.code = code;
  }
}

/**
 * An `initialize` answered as the SDK's `Server` answers it: the client's
 * capabilities and info recorded on `server`, the result returned (never
 * sent). For a server `fastToolsFor` said yes to.
 */
export function answerInitialize(server: object, params: Json): Json {
  const s = serverHandshake(server);
  // Never met: fastToolsFor says no to such a server first.
  if (s === undefined) {
    throw new TypeError(
      "answerInitialize: the server's initialize fields are not the MCP SDK's; serve it through its own connect",
    );
  }
  const requested = params.protocolVersion as string;
  s.recordClient(params.capabilities, params.clientInfo);
  return {
    protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
      ? requested
      : LATEST_PROTOCOL_VERSION,
    capabilities: s.capabilities(),
    serverInfo: s.serverInfo,
    ...(s.instructions ? { instructions: s.instructions } : {}),
  };
}

/** A `notifications/initialized`, as the SDK's `Server` takes it: its `oninitialized` hook. */
export function initialized(server: object): void {
  (server as SdkServerShape).oninitialized?.();
}

/**
 * A transport in front of a connected server: `tools/list` and
 * `tools/call` requests the fast path covers (and their cancellations) are
 * answered here from the server's registry, everything else reaches the
 * server's `Protocol` as it came. For a connection the server holds long
 * (stdio).
 */
export class ToolsLane implements Transport {
  /** Set by the server on connect. */
  onmessage?: Transport["onmessage"];
  /** Set by the server on connect. */
  onclose?: () => void;
  /** Set by the server on connect. */
  onerror?: (error: Error) => void;

  readonly #inner: Transport;
  readonly #server: object;
  #dispatch?: FastDispatch;
  #tools?: ServedTools;

  /** A lane over `inner` for `server` (which is then connected to the lane). */
  constructor(inner: Transport, server: object) {
    this.#inner = inner;
    this.#server = server;
    // Hooks already set on `inner` keep running first (as the SDK's
    // connect keeps them).
    const { onclose, onerror } = inner;
    inner.onmessage = (message, extra) => this.#receive(message, extra);
    inner.onclose = () => {
      onclose?.();
      this.#dispatch?.closed();
      this.onclose?.();
    };
    inner.onerror = (error) => {
      onerror?.(error);
      this.onerror?.(error);
    };
  }

  /** The inner transport's session id. */
  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  /** Starts the inner transport. */
  start(): Promise<void> {
    return this.#inner.start();
  }

  /** Closes the inner transport. */
  close(): Promise<void> {
    return this.#inner.close();
  }

  /** Sends a message on the inner transport. */
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.#inner.send(message, options);
  }

  #receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    const m = message as { method?: unknown; id?: RequestId; params?: Json };
    if (typeof m.method === "string") {
      if (m.id !== undefined) {
        const tools = fastToolsFor(this.#server, message, true);
        if (tools !== undefined) {
          if (tools !== this.#tools || this.#dispatch === undefined) {
            this.#tools = tools;
            this.#dispatch = new FastDispatch(this.#server, tools, this, true);
          }
          this.#dispatch.request(m.method, m.id, m.params, extra);
          return;
        }
      } else if (m.method === "notifications/cancelled") {
        const id = m.params?.requestId as RequestId | undefined;
        if (id && this.#dispatch?.has(id)) {
          this.#dispatch.cancel(id, m.params?.reason);
          return;
        }
      }
    }
    this.onmessage?.(message, extra);
  }
}
