/**
 * `appHost`: the backend of a browser page that runs an agent and shows the
 * views (MCP Apps) its tools ship, with the extension's gates enforced on
 * the server side.
 *
 * @module
 */

import type { Agent } from "../core/agent.ts";
import type { AppServer } from "../bridge/app_meta.ts";
import { AppHostCore } from "./_host.ts";
import type { RunRecord } from "./run_record.ts";
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
  const host = new AppHostCore(servers, {
    agent: options.agent,
    hostOrigin,
    sandboxHost: sandbox.host,
    maxRuns: options.maxRuns ?? 100,
    maxBody: options.maxBodyBytes ?? 1 << 20,
    maxParked: options.maxParkedCalls ?? 16,
    ...(pins === undefined ? {} : { pins }),
  });
  return Object.assign((request: Request) => host.handle(request), {
    close: () => host.close(),
    log: (runId: string) => host.log(runId),
    approveView: (server: string, uri: string) => host.approveView(server, uri),
  });
}
