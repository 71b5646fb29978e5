/**
 * `appHost`: the backend of a browser page that runs an agent and shows the
 * views (MCP Apps) its tools ship, with the extension's gates enforced on
 * the server side.
 *
 * @module
 */

import type { Agent } from "../core/agent.ts";
import { type Message, userMessage } from "../core/messages.ts";
import type { AppServer } from "../bridge/app_meta.ts";
import { AppGateError } from "./errors.ts";
import { HostRun } from "./_runs.ts";
import { BodyError } from "./_http_error.ts";
import { decide, park, type ParkDeps, pendingRecord } from "./_parked.ts";
import type { RunRecord } from "./run_record.ts";
import { callFromView, readView } from "./_views.ts";
import { viewCsp } from "./_csp.ts";
import { sandboxPage } from "./_sandbox_page.ts";
import { approveViewPin, changedView } from "./_view_pins.ts";
import { acceptPinStore, type PinStore } from "../bridge/pins.ts";
import type { DenoKvLike } from "../store/deno_kv.ts";

/** Options of {@linkcode appHost}. */
export interface AppHostOptions {
  /** The agent the page runs; give it the servers' `toolSource`. */
  readonly agent: Agent;
  /** The origin the host page is served from (`http://127.0.0.1:8000`); the sandbox talks only to it. */
  readonly hostOrigin: string;
  /**
   * The sandbox proxy's own origin (another port or host name): requests
   * whose `Host` is its host get the proxy page and nothing else, and the
   * proxy page is never served on the host's origin.
   */
  readonly sandboxOrigin: string;
  /**
   * The most runs kept at once (in this process's memory). At the limit a
   * new run drops the oldest one that is not running; when every one is
   * running, it is refused with 503. Default 100.
   */
  readonly maxRuns?: number;
  /**
   * The most calls of one run's views waiting for approval at once; one
   * more is refused with 429 (it does not run). Default 16.
   */
  readonly maxParkedCalls?: number;
  /** The largest request body in bytes; larger is refused with 413. Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /**
   * Pin each view (its HTML, CSP, permissions and domain, as a SHA-256
   * digest) in this store — the one `connectServers`' `pins` uses, so a
   * view is pinned beside its tool: the first read pins it; a read of a
   * changed one parks (`view_pending`, reason `view_changed` with both
   * digests) until the page approves it through the decisions route (or
   * the host calls `approveView`); a denied one is never shown. A raw
   * `Deno.Kv` is taken as `denoKvStore(kv)`; anything else is a
   * `TypeError` at the call.
   */
  readonly pins?: PinStore | DenoKvLike;
}

/** What {@linkcode appHost} returns: the handler, and `close` to stop its runs. */
export interface AppHostHandler {
  (request: Request): Promise<Response>;
  /** Aborts every run in flight. */
  close(): void;
  /** A run's log (its events, then what its views did), for a test or a server-side reader. */
  log(runId: string): readonly RunRecord[] | undefined;
  /**
   * With `pins`: pins the view `uri` of `server` as it is now (the host
   * approved its change); later reads pass. A read already parked still
   * waits for the page's decision.
   */
  approveView(server: string, uri: string): Promise<void>;
}

/** The servers as `appHost` reads them. */
export type AppServers =
  | readonly AppServer[]
  | { appServers(): AppServer[] };

/**
 * The backend of a page that runs an agent and renders its tools' views.
 * One `Request → Response` handler (for `Deno.serve`, Deno Deploy):
 *
 * - `POST /runs` `{ input }` starts a run (`{ runId }`); `POST
 *   /runs/<id>/messages` `{ input }` continues it; `GET /runs/<id>?after=N`
 *   reads its log from entry N: the agent's events (an `app` event names a
 *   view to render) and what its views did, and `status`.
 * - `POST /runs/<id>/views/read` `{ server, uri }`: only a `ui://` URI a tool
 *   of that server names, only `text/html;profile=mcp-app`; answers `{ uri,
 *   mimeType, html, meta, csp }`, `meta` the listing's `_meta.ui` with the
 *   item's over it, `csp` the policy the sandbox applies. With `pins`, a
 *   view changed since it was pinned parks like a gated call (`view_pending`
 *   with reason `view_changed`): answered once the page approves it, or
 *   refused (`view_changed`, with `DENIED: <reason>`) when it denies.
 * - `POST /runs/<id>/views/call` `{ server, name, arguments }`: only a tool
 *   of that server whose visibility includes `"app"`, through
 *   `agent.callTool` (its middleware and the tool's policy, approval and
 *   pins); recorded on the run as `app_call` from the app. A call that
 *   waits for approval parks: it does not run, the log gets an
 *   `app_pending` record (and `GET` a `pending` list) with its id and
 *   approval request, and the answer waits for the page's decision.
 * - `POST /runs/<id>/decisions` `{ decisions }`: `approve(id)` (or
 *   `approve(pending)` with what was shown) or `deny(id, reason)` from
 *   `@weft/mcp`, per parked view call or view read: an approved call runs
 *   then (approved, like a resumed call) and the view's call is answered
 *   with its result; a denied one never runs and answers `DENIED: <reason>`
 *   (recorded as `app_call` with its `id` and `decision`). An approved view
 *   is pinned and shown if it is still the one shown (else it parks again
 *   with the new digest); a denied one is refused (`view_decided`
 *   records either). Answers `{ decided }`.
 * - `POST /runs/<id>/views/message` and `/views/context` `{ server, tool,
 *   params }` (`ui/message`, `ui/update-model-context`): text only; it enters
 *   the run labelled with the view's server and tool, never as the user's
 *   words (a message continues an idle run).
 * - `GET /sandbox?csp=<json>` on the sandbox origin only: the proxy page
 *   under a Content-Security-Policy built from the view's declared domains
 *   (none declared: no network, no frames).
 *
 * A refused request answers 403 (404 for an unknown run, server or parked
 * call) with
 * `{ error: { gate, message } }` ({@link AppGateError}).
 *
 * @example A host over connected servers
 * ```ts ignore
 * import { Agent, connectServers } from "@weft/mcp";
 * import { appHost } from "@weft/mcp/apps";
 *
 * const servers = await connectServers(config, { apps: true });
 * const agent = new Agent(model, { toolSource: servers.toolSource });
 * const handler = appHost(servers, {
 *   agent,
 *   hostOrigin: "http://localhost:8000",
 *   sandboxOrigin: "http://localhost:8001",
 * });
 * Deno.serve({ port: 8000 }, handler);
 * Deno.serve({ port: 8001 }, handler);
 * ```
 */
export function appHost(
  servers: AppServers,
  options: AppHostOptions,
): AppHostHandler {
  const hostOrigin = new URL(options.hostOrigin).origin;
  const sandbox = new URL(options.sandboxOrigin);
  if (sandbox.origin === hostOrigin) {
    throw new TypeError(
      "appHost: sandboxOrigin must differ from hostOrigin (the views' sandbox needs its own origin)",
    );
  }
  const pins = options.pins === undefined
    ? undefined
    : acceptPinStore(options.pins, "appHost: options.pins");
  const maxRuns = options.maxRuns ?? 100;
  const maxBody = options.maxBodyBytes ?? 1 << 20;
  const maxParked = options.maxParkedCalls ?? 16;
  const runs = new Map<string, HostRun>();
  const stop = new AbortController();
  const serverList = (): readonly AppServer[] =>
    Array.isArray(servers)
      ? servers as readonly AppServer[]
      : (servers as { appServers(): AppServer[] }).appServers();
  const serverNamed = (name: unknown): AppServer => {
    const found = serverList().find((s) => s.name === name);
    if (found === undefined) {
      throw new AppGateError(
        "unknown_server",
        `no app server named ${JSON.stringify(name)}`,
      );
    }
    return found;
  };
  const runNamed = (id: string): HostRun => {
    const run = runs.get(id);
    if (run === undefined) {
      throw new AppGateError("unknown_run", `no run ${JSON.stringify(id)}`);
    }
    return run;
  };

  const turn = (run: HostRun, input: string | undefined): void => {
    const added: Message[] = [];
    for (const text of run.context.values()) added.push(userMessage(text));
    run.context.clear();
    for (const text of run.queued.splice(0)) added.push(userMessage(text));
    if (input !== undefined) added.push(userMessage(input));
    run.status = "running";
    options.agent.generate([...run.messages, ...added], {
      runId: run.id,
      signal: stop.signal,
      onEvent: (event) => run.log.push(event),
    }).then((result) => {
      run.result = result;
      run.messages = result.messages;
      run.status = "idle";
      if (run.queued.length > 0) turn(run, undefined);
    }, (error: unknown) => {
      run.status = "failed";
      run.error = error instanceof Error ? error.message : String(error);
    });
  };

  const deps = (): ParkDeps => ({
    agent: options.agent,
    serverNamed,
    signal: stop.signal,
    maxParked,
    ...(pins === undefined ? {} : { pins }),
  });

  const routes = async (
    request: Request,
    url: URL,
  ): Promise<Response> => {
    const parts = url.pathname.split("/").filter((p) => p !== "");
    if (parts[0] !== "runs") return text(404, "not found");
    if (parts.length === 1 && request.method === "POST") {
      const body = await bodyOf(request, maxBody);
      if (runs.size >= maxRuns) {
        const done = [...runs.values()].find((r) => r.status !== "running");
        if (done === undefined) {
          return text(
            503,
            `appHost: ${maxRuns} runs are running (maxRuns); try again when one ends`,
          );
        }
        runs.delete(done.id);
      }
      const run = new HostRun(crypto.randomUUID());
      runs.set(run.id, run);
      turn(run, stringOf(body.input, "input"));
      return json(200, { runId: run.id });
    }
    const run = runNamed(parts[1] ?? "");
    if (parts.length === 2 && request.method === "GET") {
      const after = Number(url.searchParams.get("after") ?? "0");
      return json(200, {
        runId: run.id,
        status: run.status,
        ...(run.error === undefined ? {} : { error: run.error }),
        ...(run.parked.size === 0
          ? {}
          : { pending: [...run.parked.values()].map(pendingRecord) }),
        log: run.log.slice(Number.isInteger(after) && after > 0 ? after : 0),
        next: run.log.length,
        ...(run.status === "idle" && run.result !== undefined
          ? { text: run.result.text }
          : {}),
      });
    }
    if (request.method !== "POST") return text(405, "method not allowed");
    const body = await bodyOf(request, maxBody);
    const what = parts.slice(2).join("/");
    if (what === "messages") {
      if (run.status === "running") return text(409, "the run is running");
      turn(run, stringOf(body.input, "input"));
      return json(200, { runId: run.id });
    }
    if (what === "decisions") {
      return json(200, {
        decided: await decide(run, body.decisions, deps()),
      });
    }
    const server = serverNamed(body.server);
    if (what === "views/read") {
      const view = await readView(server, body.uri as string, stop.signal);
      const changed = pins === undefined
        ? undefined
        : await changedView(pins, server.name, view);
      if (changed !== undefined) {
        // Shown only once the page approves it (or the host, approveView).
        const answer = await park(run, {
          kind: "view",
          server: server.name,
          uri: view.uri,
          approval: changed,
        }, deps());
        return json(answer.status, answer.body);
      }
      return json(200, { ...view, csp: viewCsp(view.meta.csp) });
    }
    if (what === "views/call") {
      const args = objectOf(body.arguments);
      const name = stringOf(body.name, "name");
      const call = await callFromView(options.agent, server, {
        name,
        args,
        signal: stop.signal,
      });
      if (call.parked === undefined) {
        run.log.push({
          type: "app_call",
          from: "app",
          server: server.name,
          tool: call.tool.tool,
          input: args,
          result: call.result,
          isError: call.isError,
        });
        return json(200, call.result);
      }
      // The call waits for the page's decision; the view's tools/call is
      // answered when it comes.
      const answer = await park(run, {
        kind: "call",
        server: server.name,
        tool: call.tool.tool,
        input: args,
        ...(call.parked.approval === undefined
          ? {}
          : { approval: call.parked.approval }),
      }, deps());
      return json(answer.status, answer.body);
    }
    if (what === "views/message" || what === "views/context") {
      const tool = stringOf(body.tool, "tool");
      const said = appText(body.params, what === "views/message");
      if (what === "views/message") {
        const labelled =
          `[A message from the view of tool "${tool}" on server "${server.name}" — the app's words, not the user's] ${
            JSON.stringify(said)
          }`;
        run.log.push({
          type: "app_message",
          from: "app",
          server: server.name,
          tool,
          text: labelled,
        });
        run.queued.push(labelled);
        if (run.status !== "running") turn(run, undefined);
      } else {
        const labelled =
          `[Context from the view of tool "${tool}" on server "${server.name}" — from the app, not the user] ${
            JSON.stringify(said)
          }`;
        run.log.push({
          type: "app_context",
          from: "app",
          server: server.name,
          tool,
          text: labelled,
        });
        run.context.set(`${server.name}/${tool}`, labelled);
      }
      return json(200, {});
    }
    return text(404, "not found");
  };

  const handler = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const host = request.headers.get("host") ?? url.host;
    if (host === sandbox.host) {
      if (url.pathname !== "/sandbox" || request.method !== "GET") {
        return text(404, "the sandbox origin serves only /sandbox");
      }
      let declared: unknown = undefined;
      try {
        declared = JSON.parse(url.searchParams.get("csp") ?? "null");
      } catch {
        // An unreadable csp parameter: the restrictive default, nothing lost.
      }
      return new Response(sandboxPage(hostOrigin), {
        headers: {
          "content-type": "text/html; charset=utf-8",
          "content-security-policy": viewCsp(declared),
          "cache-control": "no-store",
        },
      });
    }
    try {
      return await routes(request, url);
    } catch (error) {
      if (error instanceof AppGateError) {
        return json(error.status, {
          error: { gate: error.gate, message: error.message },
        });
      }
      if (error instanceof BodyError) return text(error.status, error.message);
      return json(502, {
        error: {
          message: `appHost: ${
            error instanceof Error ? error.message : String(error)
          }`,
        },
      });
    }
  };
  return Object.assign(handler, {
    close: () => stop.abort(new Error("appHost closed")),
    log: (runId: string) => runs.get(runId)?.log,
    approveView: async (server: string, uri: string) => {
      if (pins === undefined) {
        throw new TypeError("appHost: approveView needs the pins option");
      }
      const view = await readView(serverNamed(server), uri, stop.signal);
      await approveViewPin(pins, server, view);
    },
  });
}

// The text a view said: `ui/message` content must be text items (role
// "user", the extension's only role); model context text items or
// structured content.
function appText(params: unknown, message: boolean): string {
  const p = (typeof params === "object" && params !== null ? params : {}) as {
    role?: unknown;
    content?: unknown;
    structuredContent?: unknown;
  };
  if (message && p.role !== "user") {
    throw new AppGateError(
      "not_app_message",
      `a view's ui/message must have role "user" (it enters labelled as the app's), got ${
        JSON.stringify(p.role ?? null)
      }`,
    );
  }
  const items = Array.isArray(p.content) ? p.content : [];
  if (items.some((c) => c?.type !== "text" || typeof c.text !== "string")) {
    throw new AppGateError(
      "not_app_message",
      "a view's message or context may hold only text items",
    );
  }
  const text = items.map((c) => c.text as string).join("\n");
  if (message || p.structuredContent === undefined) return text;
  return `${text}${text === "" ? "" : "\n"}${
    JSON.stringify(p.structuredContent)
  }`;
}

function objectOf(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : {};
}

async function bodyOf(
  request: Request,
  max: number,
): Promise<Record<string, unknown>> {
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.length > max) {
    throw new BodyError(413, `appHost: the body is over ${max} bytes`);
  }
  try {
    const value = JSON.parse(new TextDecoder().decode(bytes));
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      return value;
    }
  } catch {
    // Answered below: the body is not a JSON object.
  }
  throw new BodyError(400, "appHost: the body must be a JSON object");
}

function stringOf(value: unknown, field: string): string {
  if (typeof value !== "string") {
    throw new BodyError(400, `appHost: ${field} must be a string`);
  }
  return value;
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

function text(status: number, body: string): Response {
  return new Response(body, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}
