/**
 * The front door of the HTTP handler: what every request passes before a
 * route (stateless or sessions) sees it — a well-formed Host, the
 * DNS-rebinding rule, a method the mode serves (else 405 naming those in
 * `Allow`), a JSON body read within its limits (else 413, 408 or 400), and
 * the era sorted out: a modern request (2026-07-28) checked and sent to the
 * modern route, a legacy `server/discover` probe answered -32601.
 *
 * @module
 */

import { DEFAULT_MAX_BODY_BYTES, HttpRefusalError } from "../errors.ts";
import {
  badHost,
  bodyTimedOut,
  checkRebinding,
  forbidden,
  isJsonContentType,
  isValidHost,
  jsonRpcError,
  type RebindingRefusal,
  type RemoteAddress,
  tooDeep,
  tooLarge,
} from "./guard.ts";
import {
  type BodyLimits,
  type BodyResult,
  Deadlines,
  readJsonBody,
} from "./_body.ts";
import { DEFAULT_BODY_TIMEOUT, DEFAULT_MAX_BODY_DEPTH } from "./limits.ts";
import { discoverRequest } from "./_requests.ts";
import { classify } from "./_modern.ts";
import type { ConnectionInfo } from "./_sse_body.ts";
import type { AuthGate } from "./_auth.ts";

/** What the handler is passed next to a request (`Deno.serve`'s info). */
export interface PeerInfo extends ConnectionInfo {
  /** The peer's address: the DNS-rebinding rule treats loopback peers as local. */
  readonly remoteAddr?: RemoteAddress;
}

/** Where a request that passed goes, with its parsed body. */
export interface Route {
  /** Answers a request whose body was read (`undefined`: none, or not JSON). */
  handle(
    req: Request,
    body: unknown,
    info: ConnectionInfo | undefined,
  ): Promise<Response>;
}

/**
 * Tells the operator of something to act on: every time to `onerror`
 * when there is one, else logged once under `key`.
 */
export type Notice = (key: string, error: Error, log: () => string) => void;

/** Options of {@link FrontDoor}: the handler's, and how it reports. */
export interface FrontDoorOptions {
  /** Session mode: GET and DELETE are served too. */
  readonly sessions: boolean;
  /** Host header values accepted. */
  readonly allowedHosts?: string[];
  /** Origin header values accepted. */
  readonly allowedOrigins?: string[];
  /** `false` turns the DNS-rebinding rule off. */
  readonly dnsRebindingProtection?: boolean;
  /** The largest request body accepted, in bytes. */
  readonly maxBodyBytes?: number;
  /** The time a request body may take to arrive, in ms. */
  readonly bodyTimeout?: number;
  /** The deepest nesting a request body may have. */
  readonly maxBodyDepth?: number;
  /** Sees every refusal. */
  readonly report: (error: Error) => void;
  /** Sees what an operator must act on (a refused Host or Origin, a client gone mid-body). */
  readonly notice: Notice;
  /** Where modern requests (2026-07-28) go, in either mode: stateless. */
  readonly modern: Route;
  /** The resource-server gate (`auth`): a token checked before the body is read. */
  readonly auth?: AuthGate;
}

/** The methods each mode serves, for a 405's `Allow`. */
const ALLOW_STATELESS = { allow: "POST" };
const ALLOW_SESSIONS = { allow: "GET, POST, DELETE" };

/**
 * The checks in front of a route, in the order a request meets them:
 * `enter` answers a request with a refusal, or with what the route
 * answers; `close` lets go of the idle body-deadline timer.
 */
export class FrontDoor {
  readonly #route: Route;
  readonly #modern: Route;
  readonly #auth: AuthGate | undefined;
  readonly #limits: BodyLimits;
  readonly #report: (error: Error) => void;
  readonly #notice: Notice;
  readonly #sessions: boolean;
  readonly #guard:
    | { allowedHosts?: string[]; allowedOrigins?: string[] }
    | undefined;

  /** The checks in front of `route` (legacy requests) and `options.modern`. */
  constructor(route: Route, options: FrontDoorOptions) {
    const bodyTimeout = options.bodyTimeout ?? DEFAULT_BODY_TIMEOUT;
    this.#limits = {
      maxBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      timeout: bodyTimeout,
      maxDepth: options.maxBodyDepth ?? DEFAULT_MAX_BODY_DEPTH,
      deadlines: new Deadlines(bodyTimeout),
    };
    this.#route = route;
    this.#modern = options.modern;
    this.#auth = options.auth;
    this.#report = options.report;
    this.#notice = options.notice;
    this.#sessions = options.sessions;
    this.#guard = options.dnsRebindingProtection === false ? undefined : {
      allowedHosts: options.allowedHosts,
      allowedOrigins: options.allowedOrigins,
    };
  }

  /** Answers `req`: a refusal, or what its route answers. */
  async enter(req: Request, info: PeerInfo | undefined): Promise<Response> {
    const refusal = this.#screen(req, info);
    if (refusal !== undefined) return await refusal;
    // The token, before the body is read: a stranger's body is never parsed.
    if (this.#auth !== undefined) {
      const refused = await this.#auth.admit(req);
      if (refused !== undefined) return await dropBody(req, refused);
    }
    if (
      req.method !== "POST" ||
      !isJsonContentType(req.headers.get("content-type"))
    ) {
      return this.#route.handle(req, undefined, info);
    }
    // Deno.serve's bodies (its info has `completed`) end at their
    // declared length: read whole.
    const read = await readJsonBody(
      req,
      this.#limits,
      info?.completed !== undefined,
    );
    if (read.kind !== "json") return this.#bodyRefusal(read);
    return this.#dispatch(req, read.value, info);
  }

  /** Lets go of the idle body-deadline timer. */
  close(): void {
    this.#limits.deadlines?.clear();
  }

  /**
   * The refusals by the request line and headers alone: a malformed Host
   * (400), the DNS-rebinding rule (403) — both drop the unread body —
   * and a method the mode does not serve (405).
   */
  #screen(
    req: Request,
    info: PeerInfo | undefined,
  ): Response | Promise<Response> | undefined {
    if (!isValidHost(req.headers.get("host"))) {
      this.#report(new HttpRefusalError(400, "malformed Host header"));
      return dropBody(req, badHost());
    }
    const guard = this.#guard;
    if (guard !== undefined) {
      const refusal = checkRebinding(req, info?.remoteAddr, guard);
      if (refusal !== undefined) {
        this.#refuseRebinding(refusal);
        return dropBody(req, forbidden(refusal));
      }
    }
    const method = req.method;
    if (method === "POST") return undefined;
    const sessions = this.#sessions;
    if (sessions && (method === "GET" || method === "DELETE")) return undefined;
    return jsonRpcError(
      405,
      -32000,
      "Method not allowed.",
      null,
      sessions ? ALLOW_SESSIONS : ALLOW_STATELESS,
    );
  }

  #refuseRebinding(refusal: RebindingRefusal): void {
    const error = new HttpRefusalError(403, refusal.reason);
    this.#notice(refusal.header, error, () => {
      const value = JSON.stringify(refusal.value.slice(0, 200));
      return `httpHandler: ${error.message}: ${value}; DNS-rebinding protection refuses it — to accept it, list it in the ${refusal.option} option (logged once)`;
    });
  }

  /** The answer to a body that could not be read as JSON within the limits. */
  #bodyRefusal(read: Exclude<BodyResult, { kind: "json" }>): Response {
    const limits = this.#limits;
    switch (read.kind) {
      case "tooLarge":
        this.#report(
          new HttpRefusalError(413, `body over ${limits.maxBytes} bytes`),
        );
        return tooLarge(limits.maxBytes);
      case "timeout":
        this.#report(
          new HttpRefusalError(
            408,
            `body not read within ${limits.timeout} ms`,
          ),
        );
        return bodyTimedOut(limits.timeout);
      case "tooDeep":
        this.#report(
          new HttpRefusalError(
            400,
            `body nested deeper than ${limits.maxDepth} levels`,
          ),
        );
        return tooDeep(limits.maxDepth);
      case "disconnected": {
        const error = new HttpRefusalError(
          499,
          "the client disconnected while sending its body",
        );
        this.#notice(
          "disconnect",
          error,
          () =>
            `httpHandler: ${error.message} (a client going away is not a failure; logged once)`,
        );
        return jsonRpcError(400, -32700, "Parse error");
      }
      case "invalid":
        return jsonRpcError(400, -32700, "Parse error");
    }
  }

  /**
   * A JSON POST by its era: a modern one (2026-07-28) checked and sent to
   * the modern route, a legacy `server/discover` probe answered -32601,
   * anything else to the route.
   */
  #dispatch(
    req: Request,
    body: unknown,
    info: PeerInfo | undefined,
  ): Promise<Response> | Response {
    const era = classify(req, body);
    switch (era.era) {
      case "refused":
        this.#report(
          new HttpRefusalError(
            era.response.status,
            "a modern request's headers or version were refused",
          ),
        );
        return era.response;
      case "modern":
        // Closing a modern request's stream cancels it; a notification
        // has nothing to say on HTTP.
        if (era.kind === "notification") {
          return new Response(null, { status: 202 });
        }
        return this.#modern.handle(req, body, info);
    }
    const discover = discoverRequest(body);
    if (discover !== undefined) {
      return jsonRpcError(400, -32601, "Method not found", discover.id);
    }
    return this.#route.handle(req, body, info);
  }
}

/** `response`, once the refused request's unread body is dropped. */
async function dropBody(req: Request, response: Response): Promise<Response> {
  await req.body?.cancel().catch(() => {
    // Nothing lost: the request is refused; the unread body is dropped either way.
  });
  return response;
}
