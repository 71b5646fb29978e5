/**
 * The stateless fast path: a `tools/list` or `tools/call` of tools the
 * bridge registered (`exportTools`, `serveAgent`) answered from the
 * server's tool registry directly, on the same HTTP (and era) transports
 * as every other request, but without connecting the SDK's `Protocol`
 * for it. The SDK's `Protocol` validates each message twice (as a
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

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What the SDK's `Server` keeps that the fast path reads or sets. */
interface SdkServerShape {
  transport?: unknown;
  onclose?: unknown;
  onerror?: unknown;
  oninitialized?: () => void;
  _taskStore?: unknown;
  _serverInfo?: unknown;
  _instructions?: unknown;
  _clientCapabilities?: unknown;
  _clientVersion?: unknown;
  getCapabilities?: () => unknown;
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
  const token = meta.progressToken;
  return token === undefined || typeof token === "string" ||
    Number.isInteger(token);
}

/**
 * The registry `server` answers `body` from on the fast path, or
 * `undefined` when the body or the server takes the SDK's path.
 */
export function fastToolsFor(
  server: object,
  body: unknown,
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
  if (
    s.transport !== undefined || s.onclose !== undefined ||
    s.onerror !== undefined || s._taskStore !== undefined ||
    typeof s.getCapabilities !== "function"
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

/** The reason `abort()` would give: a `DOMException` named `AbortError`. */
function closedReason(): DOMException {
  if (closed === undefined) {
    const controller = new AbortController();
    controller.abort();
    closed = controller.signal.reason as DOMException;
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

/**
 * Serves one stateless request's messages to `server`'s registry, as the
 * SDK `Server` connected to the same transport would answer them.
 */
export class FastProtocol {
  readonly #server: SdkServerShape;
  readonly #tools: ServedTools;
  #transport?: Transport;
  readonly #controllers = new Map<RequestId, AbortController>();

  /** A protocol answering from `tools` on `server`'s behalf. */
  constructor(server: object, tools: ServedTools) {
    this.#server = server as SdkServerShape;
    this.#tools = tools;
  }

  /** Takes `transport`'s messages and starts it. */
  connect(transport: Transport): Promise<void> {
    this.#transport = transport;
    transport.onmessage = (message, extra) => this.#receive(message, extra);
    transport.onclose = () => this.#onclose();
    // The SDK hands transport errors to `server.onerror`; there is none here.
    transport.onerror = () => {};
    return transport.start();
  }

  /** Closes the transport: handlers still running see their signal abort. */
  async close(): Promise<void> {
    await this.#transport?.close();
  }

  #onclose(): void {
    this.#transport = undefined;
    if (this.#controllers.size === 0) return;
    const controllers = [...this.#controllers.values()];
    this.#controllers.clear();
    // The SDK aborts them with no reason (an `AbortError`): one made once.
    for (const controller of controllers) controller.abort(closedReason());
  }

  #receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    const m = message as {
      method?: string;
      id?: RequestId;
      params?: Json;
    };
    if (typeof m.method !== "string") return; // no request of ours is pending
    if (m.id === undefined) {
      if (m.method === "notifications/cancelled") {
        const id = m.params?.requestId as RequestId | undefined;
        if (id) this.#controllers.get(id)?.abort(m.params?.reason);
      } else if (m.method === "notifications/initialized") {
        this.#server.oninitialized?.();
      }
      return;
    }
    this.#request(m.method, m.id, m.params, extra);
  }

  #request(
    method: string,
    id: RequestId,
    params: Json | undefined,
    info: MessageExtraInfo | undefined,
  ): void {
    const transport = this.#transport;
    if (transport === undefined) return;
    if (method === "initialize") {
      this.#initialize(id, params ?? {});
      return;
    }
    const controller = new AbortController();
    this.#controllers.set(id, controller);
    const signal = controller.signal;
    const extra = {
      signal,
      sessionId: transport.sessionId,
      _meta: params?._meta,
      sendNotification: async (notification: Json): Promise<void> => {
        if (signal.aborted) return;
        const current = this.#transport;
        if (current === undefined) throw new Error("Not connected");
        await current.send(
          { ...notification, jsonrpc: "2.0" } as JSONRPCMessage,
          { relatedRequestId: id },
        );
      },
      // The bridge's tools ask their caller through the era's own means:
      // a stateless request has no client to send a request to.
      sendRequest: (): Promise<never> =>
        Promise.reject(new Error("Not connected")),
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
        return transport.send(
          { result, jsonrpc: "2.0", id } as JSONRPCMessage,
        );
      },
      (error) => {
        if (signal.aborted) return;
        const e = error as {
          code?: unknown;
          message?: unknown;
          data?: unknown;
        };
        return transport.send({
          jsonrpc: "2.0",
          id,
          error: {
            code: Number.isSafeInteger(e.code) ? e.code : INTERNAL_ERROR,
            message: e.message ?? "Internal error",
            ...(e.data !== undefined && { data: e.data }),
          },
        } as JSONRPCMessage);
      },
    ).catch(() => {}).finally(() => {
      if (this.#controllers.get(id) === controller) {
        this.#controllers.delete(id);
      }
    });
  }

  /** The era transport's internal `initialize`, answered as the SDK's `Server` does. */
  #initialize(id: RequestId, params: Json): void {
    const server = this.#server;
    const requested = params.protocolVersion as string;
    server._clientCapabilities = params.capabilities;
    server._clientVersion = params.clientInfo;
    const result = {
      protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
        ? requested
        : LATEST_PROTOCOL_VERSION,
      capabilities: server.getCapabilities!(),
      serverInfo: server._serverInfo,
      ...(server._instructions ? { instructions: server._instructions } : {}),
    };
    void Promise.resolve().then(() =>
      this.#transport?.send({ result, jsonrpc: "2.0", id } as JSONRPCMessage)
    ).catch(() => {});
  }
}
