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
 *   the answers so far returned in ask order. The state is verified (the
 *   key, the expiry, the caller's principal, the tool, the arguments), the
 *   new answer checked against the form asked, then the state's id claimed:
 *   each state is accepted once.
 *
 * Every answer is checked (`_answer.ts`) before the tool sees it, in both
 * eras. The key: the server's (`setRequestStateKey`), else a random one of
 * the HTTP handler that made the server (`server_state.ts`: every server
 * its factory makes, tools built inside the factory or not), else of the
 * exported tool definition — made when it first signs, so two endpoints
 * in one process never accept each other's states.
 *
 * @module
 */

import { acceptStore, hasMethods } from "../store/accept.ts";
import {
  askElicitation,
  type AskFn,
  askKey,
  type ElicitationRequest,
  type InputResponse,
} from "../core/input.ts";
import { principalOf } from "../core/auth.ts";
import { bridgeState, bridgeStateOf } from "./_state.ts";
import { quote } from "../core/errors.ts";
import {
  digest,
  InvalidRequestStateError,
  newStateId,
  randomStateKey,
  REQUEST_STATE_TTL_MS,
  signState,
  stateKey,
  verifyState,
} from "./_request_state.ts";
import { type ClaimStore, MemoryClaims } from "./_claims.ts";
import { checkAnswer, InvalidAnswerError } from "./_answer.ts";
import {
  checkSampleResult,
  legacySample,
  type SamplingMessage,
  samplingMessage,
} from "./_sampling.ts";
import { type SampleFn, SamplingUnavailableError } from "../core/sampling.ts";

// The `_meta` keys of a modern request (src/runtime/era/era.ts names them too;
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

/** Thrown by a modern call's `ask` or `sample` past its answers: the call ends `input_required`. */
export class AskParked extends Error {
  /** The question: an elicitation, or a sampling request. */
  readonly request: ElicitationRequest | SamplingMessage;
  /** Its index among the call's asks and samples. */
  readonly index: number;

  constructor(index: number, request: ElicitationRequest | SamplingMessage) {
    super("weft: the call asked for input (answered input_required)");
    this.name = "AskParked";
    this.index = index;
    this.request = request;
  }
}

/** What the bridge's handler needs of the SDK context to ask in the 2025 way. */
export interface AskExtra {
  readonly signal: AbortSignal;
  /** The verified caller, when the HTTP handler authenticated the request. */
  readonly authInfo?: unknown;
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
  /** The call's `sample`, in the same order as its asks (a modern call's answers are one list). */
  readonly sample?: SampleFn;
  /** Present for a modern call: builds the result for a question past the answers. */
  readonly inputRequired?: (
    parked: AskParked,
  ) => Promise<Record<string, unknown>>;
}

/** What `setRequestStateKey` set on a server (its record's `requestState`). */
export interface StateConfig {
  readonly key: Promise<CryptoKey>;
  readonly store?: ClaimStore;
}

// The random key of each endpoint (or, outside one, of each exported tool
// definition), for servers without a key of their own.
const ownKeys = new WeakMap<object, Promise<CryptoKey>>();
let processClaims: ClaimStore | undefined;

/**
 * Signs `server`'s requestStates with `secret` (at least 32 bytes: a
 * `TypeError` at once otherwise) and keeps their single use in `store`
 * (default: this process's memory).
 */
export function setStateKey(
  server: object,
  secret: string | Uint8Array,
  store?: unknown,
): void {
  const claims: ClaimStore | undefined = store === undefined
    ? undefined
    : acceptStore(
      store,
      "setRequestStateKey(server, secret, { store }): the store",
      (value): value is ClaimStore => hasMethods(value, "claimOnce"),
    );
  const key = stateKey(secret);
  // Import failures (none expected past the length check) reach the first
  // call that signs or verifies; never unhandled here.
  key.catch(() => {
    // Nothing lost: an import failure reaches the first call that signs or verifies.
  });
  bridgeState(server).requestState = claims === undefined
    ? { key }
    : { key, store: claims };
}

/**
 * The key `server` signs `owner`'s states with: the server's own; else the
 * random one of the endpoint (an HTTP handler) that made the server, shared
 * by every server its factory makes; else `owner`'s random one.
 */
function keyOf(server: object, owner: object): Promise<CryptoKey> {
  const state = bridgeStateOf(server);
  const set = state?.requestState?.key;
  if (set !== undefined) return set;
  const holder = state?.endpoint ?? owner;
  let own = ownKeys.get(holder);
  if (own === undefined) ownKeys.set(holder, own = randomStateKey());
  return own;
}

/** Where `server`'s accepted states are claimed. */
function claimsOf(server: object): ClaimStore {
  return bridgeStateOf(server)?.requestState?.store ??
    (processClaims ??= new MemoryClaims());
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

/** One call: the server, the exported tool definition (`owner`) and its name. */
export interface AskCall {
  readonly server: AskServer & object;
  /** The exported tool definition: the owner of the default key. */
  readonly owner: object;
  readonly tool: string;
}

/**
 * The `ask` of one call; `args` gives its argument text (read only for a
 * modern call, whose state binds it). A modern call's retry is verified,
 * its answer checked and its state claimed first (rejecting with
 * `InvalidRequestStateError` or `InvalidAnswerError`, both -32602).
 */
export function askingFor(
  call: AskCall,
  args: () => string,
  params: Record<string, unknown>,
  extra: AskExtra,
): CallAsking | Promise<CallAsking> {
  if (!isModernCall(params)) {
    return {
      ask: legacyAsk(call.server, call.tool, extra),
      sample: legacySample(call.server, call.tool, extra),
    };
  }
  // The caller a state is bound to (as sessions are bound), or null for
  // an unauthenticated request.
  const principal = principalOf(extra.authInfo) ?? null;
  // A first call (no requestState) costs nothing until the tool asks: the
  // key and the arguments' digest are made only to sign or to verify.
  if (params.requestState === undefined) {
    return modernAsking(call, principal, args, params, [], undefined);
  }
  return verifiedAsking(call, principal, args, params);
}

async function verifiedAsking(
  call: AskCall,
  principal: string | null,
  args: () => string,
  params: Record<string, unknown>,
): Promise<CallAsking> {
  const argsDigest = await digest(args());
  const now = Date.now();
  const payload = await verifyState(
    await keyOf(call.server, call.owner),
    params.requestState,
    { principal, tool: call.tool, args: argsDigest, now },
  );
  const answers = [...payload.answers];
  const responses = params.inputResponses;
  if (
    responses !== undefined &&
    (responses === null || typeof responses !== "object" ||
      Array.isArray(responses))
  ) {
    throw new InvalidAnswerError(
      "inputResponses",
      "expected an object of answers by request key",
    );
  }
  const key = askKey(answers.length);
  const next = (responses as Record<string, unknown> | undefined)?.[key];
  if (next !== undefined) {
    const where = `inputResponses ${JSON.stringify(key)}`;
    answers.push(
      payload.sampled === true
        // Kept in the one list of answers, in ask order (see modernAsking).
        ? checkSampleResult(next, where) as unknown as InputResponse
        : checkAnswer(call.server, payload.asked, next, where),
    );
  }
  // Checked, then claimed: a state is accepted once (a refused answer does
  // not spend it).
  const first = await claimsOf(call.server).claimOnce(
    payload.id,
    payload.expires - now,
  );
  if (!first) {
    throw new InvalidRequestStateError(
      "already used (each requestState is accepted once); call the tool again without it",
    );
  }
  return modernAsking(call, principal, args, params, answers, argsDigest);
}

function modernAsking(
  call: AskCall,
  principal: string | null,
  args: () => string,
  params: Record<string, unknown>,
  answers: readonly InputResponse[],
  argsDigest: string | undefined,
): CallAsking {
  const { server, owner, tool } = call;
  const declared = metaOf(params)[CLIENT_CAPABILITIES];
  const canAsk = declared !== null && typeof declared === "object" &&
    (declared as Record<string, unknown>).elicitation !== undefined;
  const canSample = declared !== null && typeof declared === "object" &&
    (declared as Record<string, unknown>).sampling !== undefined;
  let index = 0;
  const ask: AskFn = (request) => {
    const elicitation = askElicitation(request);
    const at = index++;
    if (at < answers.length) return Promise.resolve(answers[at]);
    if (!canAsk) return Promise.reject(new Error(cannotAskText(tool)));
    return Promise.reject(new AskParked(at, elicitation));
  };
  // Asks and samples share one order: a retry's answers come back by index.
  const sample: SampleFn = (request) => {
    const message = samplingMessage(tool, request);
    const at = index++;
    if (at < answers.length) {
      return Promise.resolve(answers[at] as unknown as SampleResultLike);
    }
    if (!canSample) {
      return Promise.reject(
        new SamplingUnavailableError(tool, "no-capability"),
      );
    }
    return Promise.reject(new AskParked(at, message));
  };
  const inputRequired = async (
    parked: AskParked,
  ): Promise<Record<string, unknown>> => ({
    resultType: "input_required",
    inputRequests: { [askKey(parked.index)]: parked.request },
    requestState: await signState(await keyOf(server, owner), {
      id: newStateId(),
      principal,
      tool,
      args: argsDigest ?? await digest(args()),
      answers: [...answers],
      ...(parked.request.method === "sampling/createMessage"
        ? { sampled: true as const }
        : parked.request.params.requestedSchema === undefined
        ? {}
        : { asked: parked.request.params.requestedSchema }),
      expires: Date.now() + REQUEST_STATE_TTL_MS,
    }),
  });
  return { ask, sample, inputRequired };
}

type SampleResultLike = Awaited<ReturnType<SampleFn>>;

// The 2025 way: a request to the client, related to the call.
function legacyAsk(server: AskServer, tool: string, extra: AskExtra): AskFn {
  return async (request) => {
    const elicitation = askElicitation(request);
    // Without a client that initialized this server (stateless HTTP serving
    // of a 2025 client), the answer could not come back: fail now, not when
    // the call's deadline ends.
    if (typeof server.getClientCapabilities === "function") {
      const declared = server.getClientCapabilities();
      if (declared === undefined) throw new Error(noSessionText(tool));
      if (declared.elicitation === undefined) {
        throw new Error(cannotAskText(tool));
      }
    }
    const result = await send(elicitation, extra);
    return checkAnswer(
      server,
      elicitation.params.requestedSchema,
      result,
      "elicitation result",
    );
  };
}

// The SDK parses a request's result with the schema it is given; the answer
// is checked here instead (`checkAnswer`), with texts that say what was
// wrong, so it is taken as it came.
const ANY_RESULT = Object.freeze({
  safeParse: (data: unknown) => ({ success: true, data }),
});

function send(
  elicitation: ElicitationRequest,
  extra: AskExtra,
): Promise<unknown> {
  return extra.sendRequest(
    elicitation as unknown as {
      method: string;
      params: Record<string, unknown>;
    },
    ANY_RESULT,
    // The person may take their time: the call's signal bounds it, not the SDK's 60 s.
    { signal: extra.signal, timeout: 2_147_483_647 },
  );
}
