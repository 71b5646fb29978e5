/**
 * The routes that answer `tools/call`, each behind one `send(case)`: the
 * HTTP handler's SDK path (the fast path switched off), its direct route
 * (stateless, the default), its session mode, and `serveStdio`'s lane
 * (`ToolsLane` in front of the era transport, as `serveStdio` stacks
 * them, over the SDK's in-memory transports). Every answer comes back in
 * one shape — status, content type, the JSON-RPC messages — so one case
 * table can pin what every route must say.
 *
 * No timer decides anything here: a tool that waits holds a latch the
 * test opens, and "nothing more came" is proved by a `ping` sent behind
 * the case and answered after it.
 */

import {
  exportTools,
  httpHandler,
  InMemoryTransport,
  rawTool,
  Server,
  tool,
} from "../../mod.ts";
import type { AuthInfo } from "../../auth.ts";
import { z } from "zod";
import { fastPath, ToolsLane } from "../../src/runtime/fast/fast_tools.ts";
import { EraTransport } from "../../src/runtime/era/era_server.ts";
import { resolveCacheHints } from "../../src/runtime/era/cache_hints.ts";
import { META, MODERN_PROTOCOL_VERSION } from "../../src/runtime/era/era.ts";

/** The routes under test. */
export type RouteName = "sdk" | "direct" | "sessions" | "stdio" | "stdio-sdk";
/** The protocol eras a route serves. */
export type Era = "2025-11-25" | "2026-07-28";

export const HTTP_ROUTES: readonly RouteName[] = ["sdk", "direct", "sessions"];
export const ALL_ROUTES: readonly RouteName[] = [
  ...HTTP_ROUTES,
  "stdio",
  "stdio-sdk",
];

/** Whether `route` is one of the stdio stacks (no status, no headers). */
export function isStdio(route: RouteName): boolean {
  return route === "stdio" || route === "stdio-sdk";
}
export const ERAS: readonly Era[] = ["2025-11-25", "2026-07-28"];

const DEADLINE = 5_000;
/** The HTTP routes' body cap (a case sends more). */
export const MAX_BODY_BYTES = 16 * 1024;
type Json = Record<string, unknown>;

/** A case's request: a JSON-RPC message, with what the HTTP request around it changes. */
export interface CaseRequest {
  /** The method (absent with `raw` or `batch`). */
  readonly method?: string;
  readonly params?: Json;
  /** `null`: notification-shaped (no id). Default: the rig's next id. */
  readonly id?: number | null;
  /** A body sent as these bytes instead of the message (HTTP only). */
  readonly raw?: string;
  /** A batch of these messages (each with the rig's next id). */
  readonly batch?: readonly { method: string; params?: Json }[];
  /** Headers changed (`null`: removed), after the era's defaults. */
  readonly headers?: Readonly<Record<string, string | null>>;
  /** The bearer token (its `+`-joined scopes). Default: `tools`. */
  readonly token?: string;
  /** Sessions route, 2025-11-25: sent without opening a session first. */
  readonly sessionless?: true;
}

/** An answer, as every route reports it. */
export interface Answer {
  /** HTTP status (absent on stdio). */
  readonly status?: number;
  /** Content type: `sse`, `json` or `none` (absent on stdio). */
  readonly type?: "sse" | "json" | "none";
  /** The JSON-RPC messages the client got for the case, in order (ids as the client sent them). */
  readonly messages: readonly Json[];
}

/** What one route gives back for a case, with whether a server's SDK `Protocol` was connected for it. */
export interface Sent {
  readonly answer: Answer;
  readonly connected: boolean;
}

/** One route, ready for cases. */
export interface Route {
  readonly name: RouteName;
  readonly era: Era;
  send(request: CaseRequest): Promise<Sent>;
  /**
   * Starts a call of `wait` and returns once its tool runs; `cancel()`
   * cancels it as this route's client does (HTTP: drops the request;
   * stdio: `notifications/cancelled` with reason `enough`) and resolves
   * with the reason the tool saw.
   */
  waiting(): Promise<{ cancel(): Promise<string> }>;
  close(): Promise<void>;
}

/** The tools every route's server exports; `server` is the one they are on. */
function toolsFor(server: Server, hooks: Hooks) {
  return [
    tool({
      name: "echo",
      description: "Echoes.",
      input: z.object({ text: z.string() }),
      run: ({ text }) => "heard: " + text,
    }),
    tool({
      name: "sum",
      description: "Adds, structured.",
      input: z.object({ a: z.number(), b: z.number() }),
      output: z.object({ sum: z.number() }),
      run: ({ a, b }) => ({ sum: a + b }),
    }),
    tool({
      name: "liar",
      description: "Breaks its output schema.",
      input: z.object({}),
      output: z.object({ sum: z.number() }),
      run: () => ({ sum: "many" } as unknown as { sum: number }),
    }),
    rawTool({
      name: "boom",
      description: "Throws.",
      run: () => {
        throw new Error("kaput");
      },
    }),
    rawTool({
      name: "steps",
      description: "Reports progress.",
      run: async (_args, ctx) => {
        for (let i = 1; i <= 2; i++) {
          await ctx.progress?.({ progress: i, total: 2, message: `step ${i}` });
        }
        return "walked";
      },
    }),
    rawTool({
      name: "guarded",
      description: "Needs a scope.",
      scopes: ["orders:write"],
      run: (_args, ctx) => `for ${ctx.auth?.clientId ?? "nobody"}`,
    }),
    rawTool({
      name: "ask",
      description: "Asks its caller.",
      run: async (_args, ctx) =>
        JSON.stringify(
          await ctx.ask!({
            message: "Which?",
            schema: {
              type: "object",
              properties: { pick: { type: "string" } },
            },
          }),
        ),
    }),
    rawTool({
      name: "grow",
      description: "Adds a tool while it runs.",
      run: () => {
        exportTools(
          server,
          rawTool({ name: "extra", description: "New.", run: () => "new" }),
        );
        return "grown";
      },
    }),
    rawTool({
      name: "wait",
      description: "Waits for its signal.",
      run: (_args, ctx) =>
        new Promise<string>((resolve) => {
          const signal = ctx.signal!;
          signal.addEventListener("abort", () => {
            const reason = signal.reason;
            hooks.aborted?.(
              reason instanceof Error ? reason.message : String(reason),
            );
            resolve("stopped");
          });
          hooks.running?.();
        }),
    }),
  ];
}

interface Hooks {
  running?: () => void;
  aborted?: (reason: string) => void;
}

const auth = {
  resource: "http://localhost/mcp",
  authorizationServers: ["http://127.0.0.1:9/issuer"],
  verify: (token: string): AuthInfo => ({
    token,
    clientId: "app",
    scopes: token.split("+"),
    extra: { sub: "alice" },
  }),
};

const ENVELOPE = {
  [META.protocolVersion]: MODERN_PROTOCOL_VERSION,
  [META.clientCapabilities]: { elicitation: {} },
  [META.clientInfo]: { name: "t", version: "1" },
};

/** `params` with the modern envelope in its `_meta`. */
function enveloped(params: Json | undefined): Json {
  return {
    ...params,
    _meta: { ...(params?._meta as Json | undefined), ...ENVELOPE },
  };
}

/** A message of the case in `era`, under `id`. */
function messageOf(
  era: Era,
  method: string,
  params: Json | undefined,
  id: number | null,
): Json {
  const p = era === "2026-07-28" ? enveloped(params) : params;
  return {
    jsonrpc: "2.0",
    ...(id === null ? {} : { id }),
    method,
    ...(p === undefined ? {} : { params: p }),
  };
}

/** Masks what is random in an answer (a signed `requestState`). */
function masked(message: Json): Json {
  return JSON.parse(
    JSON.stringify(message).replace(
      /"requestState":"[^"]*"/g,
      '"requestState":"<signed>"',
    ),
  );
}

/**
 * An answer's messages with the ids the case sent written `#0`, `#1`, …
 * (in the order sent): every route numbers its requests its own way.
 */
function renumbered(
  messages: readonly Json[],
  sent: readonly number[],
): Json[] {
  return messages.map((m) => {
    if (m.method !== undefined) return m;
    const at = sent.indexOf(m.id as number);
    return at === -1 ? m : { ...m, id: `#${at}` };
  });
}

/**
 * An HTTP response as an {@link Answer}: SSE events' data, a JSON body, or
 * nothing. A stream is read until it carries an answer or a request to the
 * client (which this client does not answer), then let go.
 */
async function answerOf(res: Response): Promise<Answer> {
  const contentType = res.headers.get("content-type") ?? "";
  if (!contentType.startsWith("text/event-stream")) {
    const text = await res.text();
    if (text === "") return { status: res.status, type: "none", messages: [] };
    const body = JSON.parse(text);
    const messages = (Array.isArray(body) ? body : [body]).map(masked);
    return { status: res.status, type: "json", messages };
  }
  const messages: Json[] = [];
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
    let end: number;
    let last = false;
    while ((end = text.indexOf("\n")) !== -1) {
      const line = text.slice(0, end);
      text = text.slice(end + 1);
      if (!line.startsWith("data: ") || line.length === 6) continue;
      const m = JSON.parse(line.slice(6)) as Json;
      messages.push(masked(m));
      if (m.method === undefined || m.id !== undefined) last = true;
    }
    if (last) {
      await reader.cancel();
      break;
    }
  }
  return { status: res.status, type: "sse", messages };
}

/** An HTTP route: the handler called in process, one server per request (sessions: per session). */
function httpRoute(name: RouteName, era: Era): Route {
  const hooks: Hooks = {};
  let connected = false;
  const handler = httpHandler(() => {
    const server = new Server({ name: "routes", version: "1" });
    exportTools(server, ...toolsFor(server, hooks));
    const connect = server.connect.bind(server);
    server.connect = (transport) => {
      connected = true;
      return connect(transport);
    };
    return server;
  }, {
    onerror: () => {},
    auth,
    maxBodyBytes: MAX_BODY_BYTES,
    ...(name === "sessions" ? { sessions: true } : {}),
  });
  let next = 0;
  const headersOf = async (
    request: CaseRequest,
    method: string | undefined,
    params: Json | undefined,
    session: string | undefined,
  ): Promise<Headers> => {
    const headers = new Headers({
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${request.token ?? "tools"}`,
    });
    if (era === "2026-07-28") {
      headers.set("mcp-protocol-version", MODERN_PROTOCOL_VERSION);
      if (method !== undefined) headers.set("mcp-method", method);
      if (typeof params?.name === "string") {
        headers.set("mcp-name", params.name);
      }
    } else {
      headers.set("mcp-protocol-version", "2025-11-25");
      if (name === "sessions" && request.sessionless !== true) {
        headers.set("mcp-session-id", session ?? await openSession());
      }
    }
    for (const [k, v] of Object.entries(request.headers ?? {})) {
      if (v === null) headers.delete(k);
      else headers.set(k, v);
    }
    return headers;
  };
  const openSession = async (): Promise<string> => {
    const res = await handler(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: "Bearer tools",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: { elicitation: {} },
            clientInfo: { name: "t", version: "1" },
          },
        }),
      }),
    );
    await res.body?.cancel();
    const id = res.headers.get("mcp-session-id");
    if (id === null) throw new Error("sessions route: no session opened");
    return id;
  };
  let sent: number[] = [];
  const post = async (request: CaseRequest, session?: string) => {
    const id = request.id === undefined ? ++next : request.id;
    sent = request.raw !== undefined
      ? [1]
      : request.batch === undefined
      ? (id === null ? [] : [id])
      : request.batch.map(() => ++next);
    const body = request.raw ?? JSON.stringify(
      request.batch === undefined
        ? messageOf(era, request.method!, request.params, id)
        : request.batch.map((m, i) =>
          messageOf(era, m.method, m.params, sent[i])
        ),
    );
    const headers = await headersOf(
      request,
      request.method,
      request.params,
      session,
    );
    connected = false;
    return await handler(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers,
        body,
        signal: AbortSignal.timeout(DEADLINE),
      }),
    );
  };
  return {
    name,
    era,
    async send(request) {
      const res = await post(request);
      const answer = await answerOf(res);
      return {
        answer: { ...answer, messages: renumbered(answer.messages, sent) },
        connected,
      };
    },
    async waiting() {
      const running = new Promise<void>((r) => hooks.running = r);
      const reason = new Promise<string>((r) => hooks.aborted = r);
      // A 2025 session's stream is resumable, so a drop does not cancel
      // its calls: its client cancels in words, on the same session.
      const session = name === "sessions" && era === "2025-11-25"
        ? await openSession()
        : undefined;
      const id = next + 1;
      const res = await post(
        { method: "tools/call", params: { name: "wait" } },
        session,
      );
      await running;
      return {
        async cancel() {
          if (session === undefined) {
            // The client going away: its response body is cancelled.
            await res.body?.cancel();
            return await reason;
          }
          const told = await post({
            method: "notifications/cancelled",
            params: { requestId: id, reason: "enough" },
            id: null,
          }, session);
          await told.body?.cancel();
          const seen = await reason;
          await res.body?.cancel();
          return seen;
        },
      };
    },
    close: () => handler.close(),
  };
}

/** `serveStdio`'s stack over the SDK's in-memory pair: the lane in front of the era transport. */
async function stdioRoute(
  name: "stdio" | "stdio-sdk",
  era: Era,
): Promise<Route> {
  const hooks: Hooks = {};
  const server = new Server({ name: "routes", version: "1" });
  exportTools(server, ...toolsFor(server, hooks));
  const [client, serverEnd] = InMemoryTransport.createLinkedPair();
  const transport = new EraTransport(serverEnd, {
    cacheHints: resolveCacheHints(undefined, "test"),
    oneClient: true,
  });
  let connected = false;
  const protocolConnect = server.connect.bind(server);
  await protocolConnect(new ToolsLane(transport, server));
  // What reaches the server's Protocol: a request the lane passed on.
  const inner = server.transport!;
  const onmessage = inner.onmessage!;
  inner.onmessage = (message, extra) => {
    // (The era transport's own `initialize` for a modern request aside.)
    if (
      "id" in message && "method" in message && message.method !== "initialize"
    ) connected = true;
    onmessage(message, extra);
  };
  let collected: Json[] = [];
  let until: { id: unknown; done: () => void } | undefined;
  client.onmessage = (message) => {
    const m = message as Json;
    if (m.method === "elicitation/create") {
      collected.push(masked(m));
      void client.send({
        jsonrpc: "2.0",
        id: m.id as number,
        result: { action: "accept", content: { pick: "blue" } },
      });
      return;
    }
    const waited = until;
    if (m.method === undefined && waited !== undefined && waited.id === m.id) {
      if (typeof m.id !== "string") collected.push(masked(m));
      waited.done();
      return;
    }
    collected.push(masked(m));
  };
  await client.start();
  let next = 0;
  const exchange = async (message: Json, waitFor: unknown): Promise<Json[]> => {
    collected = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = new Promise<void>((resolve, reject) => {
      until = { id: waitFor, done: resolve };
      timer = setTimeout(() => reject(new Error("stdio: no answer")), DEADLINE);
    });
    await client.send(message as never);
    if (typeof waitFor === "string") {
      await client.send({ jsonrpc: "2.0", id: waitFor, method: "ping" });
    }
    await done.finally(() => clearTimeout(timer));
    until = undefined;
    return collected;
  };
  if (era === "2025-11-25") {
    await exchange({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: { elicitation: {} },
        clientInfo: { name: "t", version: "1" },
      },
    }, 0);
    await client.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  }
  return {
    name,
    era,
    async send(request) {
      if (request.raw !== undefined || request.batch !== undefined) {
        throw new Error("stdio: raw bodies and batches are HTTP cases");
      }
      const id = request.id === undefined ? ++next : request.id;
      connected = false;
      const message = messageOf(era, request.method!, request.params, id);
      // A notification has no answer: a ping behind it proves nothing came.
      const messages = await exchange(message, id ?? `after-${++next}`);
      return {
        answer: { messages: renumbered(messages, id === null ? [] : [id]) },
        connected,
      };
    },
    async waiting() {
      const running = new Promise<void>((r) => hooks.running = r);
      const reason = new Promise<string>((r) => hooks.aborted = r);
      const id = ++next;
      await client.send(
        messageOf(era, "tools/call", { name: "wait" }, id) as never,
      );
      await running;
      return {
        async cancel() {
          await client.send({
            jsonrpc: "2.0",
            method: "notifications/cancelled",
            params: { requestId: id, reason: "enough" },
          });
          return await reason;
        },
      };
    },
    close: () => client.close(),
  };
}

/** The route `name` in `era`; the `sdk` route switches the fast path off until closed. */
export async function openRoute(name: RouteName, era: Era): Promise<Route> {
  const route = isStdio(name)
    ? await stdioRoute(name as "stdio" | "stdio-sdk", era)
    : httpRoute(name, era);
  if (name !== "sdk" && name !== "stdio-sdk") return route;
  fastPath.enabled = false;
  return {
    ...route,
    close: async () => {
      fastPath.enabled = true;
      await route.close();
    },
  };
}
