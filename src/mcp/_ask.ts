/**
 * `ctx.ask` for an exported tool's call: how a weft tool asks its MCP
 * caller for input, in the caller's era.
 *
 * - A 2025 caller gets `elicitation/create`, sent in the call's context
 *   (on its response stream); `ask` resolves to the answer.
 * - A 2026-07-28 caller (the request's `_meta` names a modern protocol
 *   version) gets, for the first question the call has no answer to, the
 *   result `{ resultType: "input_required", inputRequests, requestState }`;
 *   its retry carries the answer in `inputResponses` and the signed state
 *   (see `_request_state.ts`), and the handler runs again from the top with
 *   the answers so far returned in ask order.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import { ElicitResultSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  askElicitation,
  type AskFn,
  askKey,
  type ElicitationRequest,
  type InputResponse,
} from "../core/input.ts";
import { quote } from "../core/errors.ts";
import {
  digest,
  processStateKey,
  REQUEST_STATE_TTL_MS,
  signState,
  stateKey,
  verifyState,
} from "./_request_state.ts";

// The `_meta` keys of a modern request (src/runtime/era.ts names them too;
// the bridge does not import the runtime).
const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const FIRST_MODERN = "2026-07-28";

/**
 * The text a tool's `ask` fails with when the caller cannot answer: it
 * declared no elicitation capability.
 */
export function cannotAskText(tool: string): string {
  return `tool ${
    quote(tool)
  } asked for input, but the client declared no elicitation capability`;
}

/**
 * The text a 2025 call's `ask` fails with when no client initialized the
 * server serving it (stateless HTTP): the answer could not come back.
 */
export function noSessionText(tool: string): string {
  return `tool ${
    quote(tool)
  } asked for input, but no session carries the client's answer (a 2025 client served statelessly); serve with sessions to ask such clients`;
}

/** Thrown by a modern call's `ask` past its answers: the call ends `input_required`. */
export class AskParked extends Error {
  /** The question. */
  readonly request: ElicitationRequest;
  /** Its index among the call's asks. */
  readonly index: number;

  constructor(index: number, request: ElicitationRequest) {
    super("weft: the call asked for input (answered input_required)");
    this.name = "AskParked";
    this.index = index;
    this.request = request;
  }
}

/** What the bridge's handler needs of the SDK context to ask in the 2025 way. */
export interface AskExtra {
  readonly signal: AbortSignal;
  sendRequest(
    request: { method: string; params?: Record<string, unknown> },
    resultSchema: unknown,
    options?: { signal?: AbortSignal; timeout?: number },
  ): Promise<unknown>;
}

/** The server, as far as asking needs it. */
export interface AskServer {
  getClientCapabilities?(): Record<string, unknown> | undefined;
}

/** One call's `ask`, and for a modern call what its `input_required` result needs. */
export interface CallAsking {
  readonly ask: AskFn;
  /** Present for a modern call: builds the result for a question past the answers. */
  readonly inputRequired?: (
    parked: AskParked,
  ) => Promise<Record<string, unknown>>;
}

const keys = new WeakMap<object, Promise<CryptoKey>>();

/** Signs `server`'s requestStates with `secret` (at least 32 bytes). */
export function setStateKey(server: object, secret: string | Uint8Array): void {
  const key = stateKey(secret);
  // Reported at the first use, where a caller waits; never unhandled here.
  key.catch(() => {});
  keys.set(server, key);
}

/** The key `server` signs with: its own, or this process's. */
function keyOf(server: object): Promise<CryptoKey> {
  return keys.get(server) ?? processStateKey();
}

/** Whether `params` (a request's) name a modern protocol version in `_meta`. */
export function isModernCall(params: Record<string, unknown>): boolean {
  const version = metaOf(params)[PROTOCOL_VERSION];
  return typeof version === "string" && version >= FIRST_MODERN;
}

function metaOf(params: Record<string, unknown>): Record<string, unknown> {
  const meta = params._meta;
  return meta !== null && typeof meta === "object"
    ? meta as Record<string, unknown>
    : {};
}

/**
 * The `ask` of one call of `tool`; `args` gives its argument text (read
 * only for a modern call, whose state binds it). A modern call's retry is
 * verified first (rejecting with `InvalidRequestStateError`).
 */
export function askingFor(
  server: AskServer & object,
  tool: string,
  args: () => string,
  params: Record<string, unknown>,
  extra: AskExtra,
): CallAsking | Promise<CallAsking> {
  if (!isModernCall(params)) return { ask: legacyAsk(server, tool, extra) };
  // A first call (no requestState) costs nothing until the tool asks: the
  // key and the arguments' digest are made only to sign or to verify.
  if (params.requestState === undefined) {
    return modernAsking(server, tool, args, params, [], undefined);
  }
  return verifiedAsking(server, tool, args, params);
}

async function verifiedAsking(
  server: object,
  tool: string,
  args: () => string,
  params: Record<string, unknown>,
): Promise<CallAsking> {
  const argsDigest = await digest(args());
  const payload = await verifyState(await keyOf(server), params.requestState, {
    tool,
    args: argsDigest,
    now: Date.now(),
  });
  const answers = [...payload.answers];
  const responses = params.inputResponses as
    | Record<string, InputResponse>
    | undefined;
  const next = responses?.[askKey(answers.length)];
  if (next !== undefined && next !== null) answers.push(next);
  return modernAsking(server, tool, args, params, answers, argsDigest);
}

function modernAsking(
  server: object,
  tool: string,
  args: () => string,
  params: Record<string, unknown>,
  answers: readonly InputResponse[],
  argsDigest: string | undefined,
): CallAsking {
  const declared = metaOf(params)[CLIENT_CAPABILITIES];
  const canAsk = declared !== null && typeof declared === "object" &&
    (declared as Record<string, unknown>).elicitation !== undefined;
  let index = 0;
  const ask: AskFn = (request) => {
    const elicitation = askElicitation(request);
    const at = index++;
    if (at < answers.length) return Promise.resolve(answers[at]);
    if (!canAsk) return Promise.reject(new Error(cannotAskText(tool)));
    return Promise.reject(new AskParked(at, elicitation));
  };
  const inputRequired = async (
    parked: AskParked,
  ): Promise<Record<string, unknown>> => ({
    resultType: "input_required",
    inputRequests: { [askKey(parked.index)]: parked.request },
    requestState: await signState(await keyOf(server), {
      tool,
      args: argsDigest ?? await digest(args()),
      answers: [...answers],
      expires: Date.now() + REQUEST_STATE_TTL_MS,
    }),
  });
  return { ask, inputRequired };
}

// The 2025 way: a request to the client, related to the call.
function legacyAsk(server: AskServer, tool: string, extra: AskExtra): AskFn {
  return async (request) => {
    const elicitation = askElicitation(request);
    // Without a client that initialized this server (stateless HTTP serving
    // of a 2025 client), the answer could not come back: fail now, not when
    // the call's deadline ends.
    if (typeof server.getClientCapabilities !== "function") {
      return await send(elicitation, extra);
    }
    const declared = server.getClientCapabilities();
    if (declared === undefined) throw new Error(noSessionText(tool));
    if (declared.elicitation === undefined) {
      throw new Error(cannotAskText(tool));
    }
    return await send(elicitation, extra);
  };
}

function send(
  elicitation: ElicitationRequest,
  extra: AskExtra,
): Promise<InputResponse> {
  return extra.sendRequest(
    elicitation as unknown as {
      method: string;
      params: Record<string, unknown>;
    },
    ElicitResultSchema,
    // The person may take their time: the call's signal bounds it, not the SDK's 60 s.
    { signal: extra.signal, timeout: 2_147_483_647 },
  ) as Promise<InputResponse>;
}
