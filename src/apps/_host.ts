/**
 * The app host's state and routes: its runs, the turns it starts, and one
 * method per route of `appHost` (the handler `appHost` returns calls
 * {@linkcode AppHostCore.handle}).
 *
 * @module
 */

import type { Agent } from "../core/agent.ts";
import { type Message, userMessage } from "../core/messages.ts";
import type { AppServer } from "../bridge/app_meta.ts";
import type { PinStore } from "../bridge/pins.ts";
import { AppGateError } from "./errors.ts";
import { HostRun } from "./_runs.ts";
import {
  bodyOf,
  errorResponse,
  json,
  objectOf,
  stringOf,
  text,
} from "./_http.ts";
import { decide, park, type ParkDeps, pendingRecord } from "./_parked.ts";
import type { RunRecord } from "./run_record.ts";
import type { AppServers } from "./app_host.ts";
import { callFromView, readView } from "./_views.ts";
import { viewCsp } from "./_csp.ts";
import { sandboxPage } from "./_sandbox_page.ts";
import { approveViewPin, changedView } from "./_view_pins.ts";

/** The host's settings, checked by `appHost`. */
export interface HostSettings {
  readonly agent: Agent;
  /** The host page's origin (the sandbox talks only to it). */
  readonly hostOrigin: string;
  /** The sandbox origin's host (`Host` header). */
  readonly sandboxHost: string;
  readonly maxRuns: number;
  readonly maxBody: number;
  readonly maxParked: number;
  readonly pins?: PinStore;
}

/** One app host: its runs and its routes. */
export class AppHostCore {
  readonly #servers: AppServers;
  readonly #settings: HostSettings;
  readonly #runs = new Map<string, HostRun>();
  readonly #stop = new AbortController();

  constructor(servers: AppServers, settings: HostSettings) {
    this.#servers = servers;
    this.#settings = settings;
  }

  /** The app server named `name`; an `AppGateError` (`unknown_server`) otherwise. */
  readonly serverNamed = (name: unknown): AppServer => {
    const servers = this.#servers;
    const list = Array.isArray(servers)
      ? servers as readonly AppServer[]
      : (servers as { appServers(): AppServer[] }).appServers();
    const found = list.find((s) => s.name === name);
    if (found === undefined) {
      throw new AppGateError(
        "unknown_server",
        `no app server named ${JSON.stringify(name)}`,
      );
    }
    return found;
  };

  /** Answers one request: the sandbox page on the sandbox origin, else a route. */
  async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const host = request.headers.get("host") ?? url.host;
    if (host === this.#settings.sandboxHost) {
      return sandboxResponse(request, url, this.#settings.hostOrigin);
    }
    try {
      return await this.#routes(request, url);
    } catch (error) {
      return errorResponse(error);
    }
  }

  /** Aborts every run in flight. */
  close(): void {
    this.#stop.abort(new Error("appHost closed"));
  }

  /** A run's log. */
  log(runId: string): readonly RunRecord[] | undefined {
    return this.#runs.get(runId)?.log;
  }

  /** Pins the view `uri` of `server` as it is now. */
  async approveView(server: string, uri: string): Promise<void> {
    const pins = this.#settings.pins;
    if (pins === undefined) {
      throw new TypeError("appHost: approveView needs the pins option");
    }
    const view = await readView(
      this.serverNamed(server),
      uri,
      this.#stop.signal,
    );
    await approveViewPin(pins, server, view);
  }

  #runNamed(id: string): HostRun {
    const run = this.#runs.get(id);
    if (run === undefined) {
      throw new AppGateError("unknown_run", `no run ${JSON.stringify(id)}`);
    }
    return run;
  }

  /** Starts a turn of `run`: what its views said, then `input`. */
  #turn(run: HostRun, input: string | undefined): void {
    const added: Message[] = [];
    for (const text of run.context.values()) added.push(userMessage(text));
    run.context.clear();
    for (const text of run.queued.splice(0)) added.push(userMessage(text));
    if (input !== undefined) added.push(userMessage(input));
    run.status = "running";
    this.#settings.agent.generate([...run.messages, ...added], {
      runId: run.id,
      signal: this.#stop.signal,
      onEvent: (event) => run.log.push(event),
    }).then((result) => {
      run.result = result;
      run.messages = result.messages;
      run.status = "idle";
      if (run.queued.length > 0) this.#turn(run, undefined);
    }, (error: unknown) => {
      run.status = "failed";
      run.error = error instanceof Error ? error.message : String(error);
    });
  }

  #deps(): ParkDeps {
    const { agent, maxParked, pins } = this.#settings;
    return {
      agent,
      serverNamed: this.serverNamed,
      signal: this.#stop.signal,
      maxParked,
      ...(pins === undefined ? {} : { pins }),
    };
  }

  async #routes(request: Request, url: URL): Promise<Response> {
    const parts = url.pathname.split("/").filter((p) => p !== "");
    if (parts[0] !== "runs") return text(404, "not found");
    if (parts.length === 1 && request.method === "POST") {
      return await this.#start(request);
    }
    const run = this.#runNamed(parts[1] ?? "");
    if (parts.length === 2 && request.method === "GET") {
      return this.#status(run, url);
    }
    if (request.method !== "POST") return text(405, "method not allowed");
    const body = await bodyOf(request, this.#settings.maxBody);
    const what = parts.slice(2).join("/");
    if (what === "messages") {
      if (run.status === "running") return text(409, "the run is running");
      this.#turn(run, stringOf(body.input, "input"));
      return json(200, { runId: run.id });
    }
    if (what === "decisions") {
      return json(200, {
        decided: await decide(run, body.decisions, this.#deps()),
      });
    }
    const server = this.serverNamed(body.server);
    if (what === "views/read") return await this.#viewRead(run, server, body);
    if (what === "views/call") return await this.#viewCall(run, server, body);
    if (what === "views/message" || what === "views/context") {
      this.#viewSaid(run, server, body, what === "views/message");
      return json(200, {});
    }
    return text(404, "not found");
  }

  /** `POST /runs`: a new run (the oldest idle one dropped at `maxRuns`). */
  async #start(request: Request): Promise<Response> {
    const body = await bodyOf(request, this.#settings.maxBody);
    const runs = this.#runs;
    const maxRuns = this.#settings.maxRuns;
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
    this.#turn(run, stringOf(body.input, "input"));
    return json(200, { runId: run.id });
  }

  /** `GET /runs/<id>?after=N`: the run's status and its log from entry N. */
  #status(run: HostRun, url: URL): Response {
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

  /** `views/read`: the view, or parked when it changed since it was pinned. */
  async #viewRead(
    run: HostRun,
    server: AppServer,
    body: Record<string, unknown>,
  ): Promise<Response> {
    const pins = this.#settings.pins;
    const view = await readView(server, body.uri as string, this.#stop.signal);
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
      }, this.#deps());
      return json(answer.status, answer.body);
    }
    return json(200, { ...view, csp: viewCsp(view.meta.csp) });
  }

  /** `views/call`: the tool's result, or parked until the page decides. */
  async #viewCall(
    run: HostRun,
    server: AppServer,
    body: Record<string, unknown>,
  ): Promise<Response> {
    const args = objectOf(body.arguments);
    const name = stringOf(body.name, "name");
    const call = await callFromView(this.#settings.agent, server, {
      name,
      args,
      signal: this.#stop.signal,
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
    }, this.#deps());
    return json(answer.status, answer.body);
  }

  /**
   * `views/message` (queued for the next turn, which it starts when the run
   * is idle) or `views/context` (the view's latest, for the next turn):
   * labelled with the view's server and tool, never as the user's words.
   */
  #viewSaid(
    run: HostRun,
    server: AppServer,
    body: Record<string, unknown>,
    message: boolean,
  ): void {
    const tool = stringOf(body.tool, "tool");
    const said = appText(body.params, message);
    if (message) {
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
      if (run.status !== "running") this.#turn(run, undefined);
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
  }
}

/** `GET /sandbox?csp=<json>` on the sandbox origin; nothing else is served there. */
function sandboxResponse(
  request: Request,
  url: URL,
  hostOrigin: string,
): Response {
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
