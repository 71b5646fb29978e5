/**
 * Which era a POST speaks, and the checks a modern one passes on HTTP
 * before a server sees it: the `MCP-Protocol-Version`, `Mcp-Method` and
 * `Mcp-Name` headers must agree with the body (`-32020`), and the version
 * its envelope names must be one served (`-32022`). A request is modern
 * when its `params._meta` names a modern protocol version; anything else
 * (batches, answers, envelope-less requests, `initialize`) is legacy and
 * goes where it went before.
 *
 * @module
 */

import {
  decodeHeaderValue,
  HEADER,
  isModernVersion,
  META,
  MODERN_ERROR,
  MODERN_PROTOCOL_VERSIONS,
  nameParamOf,
} from "../era/era.ts";
import {
  metaOf,
  modernVersionOf,
  unsupportedVersionError,
} from "../era/envelope.ts";

type RequestId = string | number;

/** What a POST body is, era-wise. */
export type Classified =
  | { readonly era: "legacy" }
  | { readonly era: "modern"; readonly kind: "request" | "notification" }
  | { readonly era: "refused"; readonly response: Response };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A JSON-RPC error answer, with `data` when given. */
export function errorResponse(
  status: number,
  error: { code: number; message: string; data?: unknown },
  id: RequestId | null,
): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id, error }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** A refusal: the JSON-RPC error `error` answering `id`, with HTTP `status`. */
function refused(
  status: number,
  error: { code: number; message: string; data?: unknown },
  id: RequestId | null,
): Classified {
  return { era: "refused", response: errorResponse(status, error, id) };
}

function mismatch(message: string, id: RequestId | null): Classified {
  return refused(400, {
    code: MODERN_ERROR.headerMismatch,
    message: `Header mismatch: ${message}`,
  }, id);
}

// Header values with optional whitespace around them, as HTTP allows.
function header(req: Request, name: string): string | undefined {
  return req.headers.get(name)?.trim();
}

/** The verdicts that carry nothing of the request: made once. */
const LEGACY: Classified = { era: "legacy" };
const MODERN_REQUEST: Classified = { era: "modern", kind: "request" };
const MODERN_NOTIFICATION: Classified = {
  era: "modern",
  kind: "notification",
};

/**
 * The era of a parsed POST body, or the refusal a modern one gets: a
 * version not served (`-32022`, with `data: { supported, requested }`),
 * headers missing or disagreeing with the body (`-32020`), a modern
 * `MCP-Protocol-Version` header on a request without the envelope
 * (`-32602`), a batch carrying a modern message (`-32600`). All HTTP 400.
 * The checks of a modern request run in the order its refusals are
 * documented on the wire.
 */
export function classify(req: Request, body: unknown): Classified {
  if (Array.isArray(body)) return batchEra(body);
  if (!isObject(body) || typeof body.method !== "string") return LEGACY;
  const method = body.method;
  const id = body.id as RequestId | undefined;
  const versionHeader = header(req, HEADER.protocolVersion);
  const claimed = modernVersionOf(body);
  if (typeof id !== "string" && typeof id !== "number") {
    return notificationEra(
      req,
      method,
      claimed !== undefined || isModernVersion(versionHeader),
    );
  }
  if (claimed === undefined) {
    if (isModernVersion(versionHeader) && method !== "initialize") {
      return refused(400, {
        code: -32602,
        message:
          `Invalid params: MCP-Protocol-Version names ${versionHeader}, but the request has no io.modelcontextprotocol/protocolVersion in params._meta`,
      }, id);
    }
    return LEGACY;
  }
  if (!MODERN_PROTOCOL_VERSIONS.includes(claimed)) {
    return refused(400, unsupportedVersionError(claimed), id);
  }
  const mismatched = versionMismatch(claimed, versionHeader) ??
    methodMismatch(req, method) ?? nameMismatch(req, body);
  if (mismatched !== undefined) return mismatch(mismatched, id);
  // The envelope must be an object whose capabilities are an object.
  const capabilities = metaOf(body)![META.clientCapabilities];
  if (capabilities !== undefined && !isObject(capabilities)) {
    return refused(400, {
      code: -32602,
      message:
        "Invalid params: io.modelcontextprotocol/clientCapabilities must be an object",
    }, id);
  }
  return MODERN_REQUEST;
}

/** A batch is legacy only (the modern revision has none): one carrying a modern message is refused. */
function batchEra(body: readonly unknown[]): Classified {
  if (!body.some((m) => modernVersionOf(m) !== undefined)) return LEGACY;
  return refused(400, {
    code: -32600,
    message:
      "Invalid Request: a JSON-RPC batch may not carry modern (2026-07-28) requests",
  }, null);
}

/** A notification is modern by its envelope or its header; its Mcp-Method, when sent, must agree. */
function notificationEra(
  req: Request,
  method: string,
  modern: boolean,
): Classified {
  if (!modern) return LEGACY;
  const methodHeader = header(req, HEADER.method);
  if (methodHeader !== undefined && methodHeader !== method) {
    return mismatch(
      `the body's method is ${method} but Mcp-Method says ${methodHeader}`,
      null,
    );
  }
  return MODERN_NOTIFICATION;
}

/** How the MCP-Protocol-Version header disagrees with the envelope's version, if it does. */
function versionMismatch(
  claimed: string,
  versionHeader: string | undefined,
): string | undefined {
  if (versionHeader === undefined) {
    return `the envelope names protocol version ${claimed} but the MCP-Protocol-Version header is absent`;
  }
  if (versionHeader !== claimed) {
    return `the envelope names protocol version ${claimed} but MCP-Protocol-Version says ${versionHeader}`;
  }
  return undefined;
}

/** How the Mcp-Method header disagrees with the body's method, if it does. */
function methodMismatch(req: Request, method: string): string | undefined {
  const methodHeader = header(req, HEADER.method);
  if (methodHeader === undefined) {
    return `the body's method is ${method} but the Mcp-Method header is absent`;
  }
  if (methodHeader !== method) {
    return `the body's method is ${method} but Mcp-Method says ${methodHeader}`;
  }
  return undefined;
}

/**
 * How the Mcp-Name header disagrees with the name the method carries
 * (`params.name` or `params.uri`), if it does: absent, its base64 form
 * malformed, or another name.
 */
function nameMismatch(
  req: Request,
  body: Record<string, unknown>,
): string | undefined {
  const param = nameParamOf(body.method as string);
  if (param === undefined) return undefined;
  const value = (body.params as Record<string, unknown> | undefined)?.[param];
  if (typeof value !== "string") return undefined;
  const nameHeader = header(req, HEADER.name);
  if (nameHeader === undefined) {
    return `the body's params.${param} is ${
      JSON.stringify(value)
    } but the Mcp-Name header is absent`;
  }
  const decoded = decodeHeaderValue(nameHeader);
  if (decoded === undefined) {
    return "the Mcp-Name header's base64 form is malformed";
  }
  if (decoded !== value) {
    return `the body's params.${param} is ${
      JSON.stringify(value)
    } but Mcp-Name says ${JSON.stringify(decoded)}`;
  }
  return undefined;
}
