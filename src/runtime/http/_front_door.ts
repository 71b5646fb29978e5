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
import { type BodyLimits, Deadlines, readJsonBody } from "./_body.ts";
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

/** Options of {@link frontDoor}: the handler's, and how it reports. */
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

/** The front door: answers a request; `close` lets go of its idle body-deadline timer. */
export type FrontDoor =
  & ((req: Request, info: PeerInfo | undefined) => Promise<Response>)
  & { close(): void };

/** The methods each mode serves, for a 405's `Allow`. */
const ALLOW_STATELESS = { allow: "POST" };
const ALLOW_SESSIONS = { allow: "GET, POST, DELETE" };

/**
 * The checks in front of `route`: a function answering a request with a
 * refusal, or with what `route` answers.
 */
export function frontDoor(
  route: Route,
  options: FrontDoorOptions,
): FrontDoor {
  const bodyTimeout = options.bodyTimeout ?? DEFAULT_BODY_TIMEOUT;
  const limits: BodyLimits = {
    maxBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    timeout: bodyTimeout,
    maxDepth: options.maxBodyDepth ?? DEFAULT_MAX_BODY_DEPTH,
    deadlines: new Deadlines(bodyTimeout),
  };
  const { report, notice, sessions } = options;
  const guard = options.dnsRebindingProtection === false ? undefined : {
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
  };

  function refuseRebinding(refusal: RebindingRefusal): void {
    const error = new HttpRefusalError(403, refusal.reason);
    notice(refusal.header, error, () => {
      const value = JSON.stringify(refusal.value.slice(0, 200));
      return `httpHandler: ${error.message}: ${value}; DNS-rebinding protection refuses it — to accept it, list it in the ${refusal.option} option (logged once)`;
    });
  }

  const enter = async (
    req: Request,
    info: PeerInfo | undefined,
  ): Promise<Response> => {
    if (!isValidHost(req.headers.get("host"))) {
      report(new HttpRefusalError(400, "malformed Host header"));
      await req.body?.cancel().catch(() => {
        // Nothing lost: the request is refused; the unread body is dropped either way.
      });
      return badHost();
    }
    if (guard !== undefined) {
      const refusal = checkRebinding(req, info?.remoteAddr, guard);
      if (refusal !== undefined) {
        refuseRebinding(refusal);
        await req.body?.cancel().catch(() => {
          // Nothing lost: the request is refused; the unread body is dropped either way.
        });
        return forbidden(refusal);
      }
    }
    const method = req.method;
    if (
      method !== "POST" &&
      (!sessions || (method !== "GET" && method !== "DELETE"))
    ) {
      return jsonRpcError(
        405,
        -32000,
        "Method not allowed.",
        null,
        sessions ? ALLOW_SESSIONS : ALLOW_STATELESS,
      );
    }
    // The token, before the body is read: a stranger's body is never parsed.
    if (options.auth !== undefined) {
      const refusal = await options.auth.admit(req);
      if (refusal !== undefined) {
        await req.body?.cancel().catch(() => {
          // Nothing lost: the request is refused; the unread body is dropped either way.
        });
        return refusal;
      }
    }
    let body: unknown = undefined;
    if (
      method === "POST" && isJsonContentType(req.headers.get("content-type"))
    ) {
      // Deno.serve's bodies (its info has `completed`) end at their
      // declared length: read whole.
      const read = await readJsonBody(
        req,
        limits,
        info?.completed !== undefined,
      );
      switch (read.kind) {
        case "tooLarge":
          report(
            new HttpRefusalError(413, `body over ${limits.maxBytes} bytes`),
          );
          return tooLarge(limits.maxBytes);
        case "timeout":
          report(
            new HttpRefusalError(
              408,
              `body not read within ${limits.timeout} ms`,
            ),
          );
          return bodyTimedOut(limits.timeout);
        case "tooDeep":
          report(
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
          notice(
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
      body = read.value;
      const era = classify(req, body);
      switch (era.era) {
        case "refused":
          report(
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
          return options.modern.handle(req, body, info);
      }
      const discover = discoverRequest(body);
      if (discover !== undefined) {
        return jsonRpcError(400, -32601, "Method not found", discover.id);
      }
    }
    return route.handle(req, body, info);
  };
  return Object.assign(enter, {
    close: () => limits.deadlines?.clear(),
  });
}
