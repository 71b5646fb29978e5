/**
 * What the HTTP handler checks before a request reaches a server: the
 * DNS-rebinding rule (Host, Origin), the Host's form, and the JSON-RPC error
 * bodies it answers with (fixed messages, never a stack or a client's bytes).
 *
 * @module
 */

/** The remote side of a request, as `Deno.serve` passes it (`info.remoteAddr`). */
export interface RemoteAddress {
  /** `"tcp"`, `"udp"`, `"unix"`, … */
  readonly transport: string;
  /** The peer's IP address, for network transports. */
  readonly hostname?: string;
}

/** The rebinding rule's settings. */
export interface GuardOptions {
  /** Host header values (`host` or `host:port`) accepted. Absent: see {@link checkRebinding}. */
  readonly allowedHosts?: readonly string[];
  /** Origin header values (`scheme://host[:port]`) accepted. Absent: loopback origins only. */
  readonly allowedOrigins?: readonly string[];
}

/** Why the rebinding rule refused a request. */
export interface RebindingRefusal {
  /** The header that failed. */
  readonly header: "Host" | "Origin";
  /** Our words for the failure (never the header's value). */
  readonly reason: string;
  /** What the client reads: the rule and the option that widens it. */
  readonly message: string;
  /** The option that would accept the header. */
  readonly option: "allowedHosts" | "allowedOrigins";
  /** The refused header's value (for the operator's log, never the client). */
  readonly value: string;
}

const RULE = "DNS-rebinding protection";

function refusal(
  header: "Host" | "Origin",
  reason: string,
  message: string,
  value: string,
): RebindingRefusal {
  const option = header === "Host" ? "allowedHosts" : "allowedOrigins";
  return { header, reason, message: `Forbidden: ${message}`, option, value };
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/**
 * A JSON-RPC error body with a fixed message, as a Response: every refusal
 * and failure of the HTTP server, in the SDK transport's key order
 * (`jsonrpc`, `error`, `id`), so one refusal reads the same byte for byte
 * whichever path answers it.
 */
export function jsonRpcError(
  status: number,
  code: number,
  message: string,
  id: string | number | null = null,
  headers: Record<string, string> = {},
): Response {
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id });
  return new Response(body, {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** The answer to a request for a session this handler does not hold: 404, -32001. */
export function sessionNotFound(): Response {
  return jsonRpcError(404, -32001, "Session not found");
}

/** Seconds a client waits before retrying a request refused because the shared store is down. */
export const STORE_RETRY_SECONDS = 5;

/**
 * The answer to a request the shared store (`store` option) could not
 * serve, unreachable: 503, -32000, `Retry-After`. Nothing was done.
 */
export function storeUnavailable(
  id: string | number | null = null,
): Response {
  return jsonRpcError(
    503,
    -32000,
    `Service Unavailable: the shared session store is unreachable, so nothing was done; retry after ${STORE_RETRY_SECONDS} s`,
    id,
    { "retry-after": String(STORE_RETRY_SECONDS) },
  );
}

/** The `StoreUnavailableError` that `error` is or was caused by, if any (the store's one classifier). */
export { storeOutageOf as storeDown } from "../../store/outage.ts";

/** The answer to anything that went wrong inside: 500, -32603, `Internal error`. */
export function internalError(): Response {
  return jsonRpcError(500, -32603, "Internal error");
}

/** The hostname part of a Host header value, lowercased, without its port. */
export function hostName(host: string): string {
  const lower = host.trim().toLowerCase();
  if (lower.startsWith("[")) {
    const end = lower.indexOf("]");
    return end === -1 ? lower : lower.slice(0, end + 1);
  }
  const colon = lower.indexOf(":");
  return colon === -1 ? lower : lower.slice(0, colon);
}

/** Whether an IP address is a loopback address (127.0.0.0/8, ::1, IPv4-mapped 127.x). */
export function isLoopbackAddress(address: string): boolean {
  const a = address.toLowerCase().replace(/^\[|\]$/g, "");
  return a === "::1" || a.startsWith("127.") || a.startsWith("::ffff:127.");
}

/**
 * Applies the DNS-rebinding rule; resolves to a refusal, or `undefined`.
 *
 * Host: with `allowedHosts`, the Host header must equal an entry or its
 * hostname must. A missing (or empty) Host header is replaced by the
 * request URL's host (`handler(new Request("http://localhost/mcp", …))`). Without, the rule applies to requests that come from a
 * loopback address, or whose remote address is unknown: their Host must be
 * `localhost`, `127.0.0.1` or `[::1]`, any port — a page on another name
 * that resolved to 127.0.0.1 is exactly the rebinding attack. Requests from
 * other addresses (a public deployment) pass.
 *
 * Origin, when the header is present: it must be in `allowedOrigins`, or,
 * without that list, have a loopback hostname.
 */
export function checkRebinding(
  req: Request,
  remote: RemoteAddress | undefined,
  options: GuardOptions,
): RebindingRefusal | undefined {
  // A Request built in-process (or an HTTP/1.0 one) may carry no Host
  // header: then its URL names the host. A Host header, when present, wins.
  const header = req.headers.get("host");
  const host = header !== null && header.trim() !== ""
    ? header
    : hostOfUrl(req.url);
  if (options.allowedHosts !== undefined) {
    const hostname = hostName(host);
    const ok = options.allowedHosts.some((entry) => {
      const e = entry.toLowerCase();
      return e === host.toLowerCase() || e === hostname;
    });
    if (!ok) {
      return refusal(
        "Host",
        "Host not in allowedHosts",
        `the Host header is not in the allowedHosts option (${RULE})`,
        host,
      );
    }
  } else if (remote === undefined || isLoopbackAddress(remote.hostname ?? "")) {
    if (!LOOPBACK_NAMES.has(hostName(host))) {
      return refusal(
        "Host",
        "Host is not a loopback name on a local request",
        `the Host header is not localhost, 127.0.0.1 or [::1], which ${RULE} requires of a request from this machine; list the host in the allowedHosts option to accept it`,
        host,
      );
    }
  }
  const origin = req.headers.get("origin");
  if (origin === null) return undefined;
  if (options.allowedOrigins !== undefined) {
    return options.allowedOrigins.includes(origin) ? undefined : refusal(
      "Origin",
      "Origin not in allowedOrigins",
      `the Origin header is not in the allowedOrigins option (${RULE})`,
      origin,
    );
  }
  let originHost: string;
  try {
    originHost = new URL(origin).hostname;
  } catch {
    return refusal(
      "Origin",
      "Origin is not a URL",
      `the Origin header is not a URL (${RULE})`,
      origin,
    );
  }
  return LOOPBACK_NAMES.has(originHost) ? undefined : refusal(
    "Origin",
    "Origin is not a loopback origin",
    `the Origin header is not a loopback origin, which ${RULE} requires; list the origin in the allowedOrigins option to accept it`,
    origin,
  );
}

/**
 * Whether a Host header value is well formed: a name or IPv4 address, or a
 * bracketed IPv6 address, with an optional port of 1 to 65535. An absent or
 * empty header passes (the request URL names the host then).
 */
export function isValidHost(host: string | null): boolean {
  if (host === null || host.trim() === "") return true;
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._~-]+)(?::([0-9]{1,5}))?$/
    .exec(host.trim());
  if (match === null) return false;
  return match[2] === undefined ||
    (Number(match[2]) >= 1 && Number(match[2]) <= 65535);
}

/** The client-visible answer to a malformed Host header: a plain 400. */
export function badHost(): Response {
  return jsonRpcError(400, -32000, "Bad Request: invalid Host header");
}

function hostOfUrl(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}

/** The client-visible answer to a rebinding refusal: the rule and the option that widens it. */
export function forbidden(refusal: RebindingRefusal): Response {
  return jsonRpcError(403, -32000, refusal.message);
}

/** The client-visible answer to a body over the cap. */
export function tooLarge(limit: number): Response {
  return jsonRpcError(
    413,
    -32000,
    `Payload Too Large: request body exceeds ${limit} bytes`,
  );
}

/** The answer to a body that did not arrive within `timeout` ms: 408. */
export function bodyTimedOut(timeout: number): Response {
  return jsonRpcError(
    408,
    -32000,
    `Request Timeout: the request body did not arrive within ${timeout} ms`,
    null,
    { connection: "close" },
  );
}

/** The answer to a body nested deeper than `depth` levels: 400. */
export function tooDeep(depth: number): Response {
  return jsonRpcError(
    400,
    -32600,
    `Invalid Request: the body nests deeper than ${depth} levels`,
  );
}

/** Whether a Content-Type names JSON (`application/json`, any parameters). */
export function isJsonContentType(contentType: string | null): boolean {
  if (contentType === null) return false;
  return contentType.split(";")[0].trim().toLowerCase() === "application/json";
}
