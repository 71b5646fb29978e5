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
} from "../era/era_server.ts";

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

function mismatch(message: string, id: RequestId | null): Classified {
  return {
    era: "refused",
    response: errorResponse(
      400,
      {
        code: MODERN_ERROR.headerMismatch,
        message: `Header mismatch: ${message}`,
      },
      id,
    ),
  };
}

// Header values with optional whitespace around them, as HTTP allows.
function header(req: Request, name: string): string | undefined {
  return req.headers.get(name)?.trim();
}

/**
 * The era of a parsed POST body, or the refusal a modern one gets: a
 * version not served (`-32022`, with `data: { supported, requested }`),
 * headers missing or disagreeing with the body (`-32020`), a modern
 * `MCP-Protocol-Version` header on a request without the envelope
 * (`-32602`), a batch carrying a modern message (`-32600`). All HTTP 400.
 */
export function classify(req: Request, body: unknown): Classified {
  if (Array.isArray(body)) {
    // Batches are legacy only (the modern revision has none).
    if (!body.some((m) => modernVersionOf(m) !== undefined)) {
      return { era: "legacy" };
    }
    return {
      era: "refused",
      response: errorResponse(400, {
        code: -32600,
        message:
          "Invalid Request: a JSON-RPC batch may not carry modern (2026-07-28) requests",
      }, null),
    };
  }
  if (!isObject(body) || typeof body.method !== "string") {
    return { era: "legacy" };
  }
  const method = body.method;
  const id = body.id as RequestId | undefined;
  const isRequest = typeof id === "string" || typeof id === "number";
  const versionHeader = header(req, HEADER.protocolVersion);
  const claimed = modernVersionOf(body);
  if (!isRequest) {
    // A notification is modern by its envelope or its header.
    if (claimed === undefined && !isModernVersion(versionHeader)) {
      return { era: "legacy" };
    }
    const methodHeader = header(req, HEADER.method);
    if (methodHeader !== undefined && methodHeader !== method) {
      return mismatch(
        `the body's method is ${method} but Mcp-Method says ${methodHeader}`,
        null,
      );
    }
    return { era: "modern", kind: "notification" };
  }
  if (claimed === undefined) {
    if (isModernVersion(versionHeader) && method !== "initialize") {
      return {
        era: "refused",
        response: errorResponse(400, {
          code: -32602,
          message:
            `Invalid params: MCP-Protocol-Version names ${versionHeader}, but the request has no io.modelcontextprotocol/protocolVersion in params._meta`,
        }, id),
      };
    }
    return { era: "legacy" };
  }
  if (!MODERN_PROTOCOL_VERSIONS.includes(claimed)) {
    return {
      era: "refused",
      response: errorResponse(400, unsupportedVersionError(claimed), id),
    };
  }
  if (versionHeader === undefined) {
    return mismatch(
      `the envelope names protocol version ${claimed} but the MCP-Protocol-Version header is absent`,
      id,
    );
  }
  if (versionHeader !== claimed) {
    return mismatch(
      `the envelope names protocol version ${claimed} but MCP-Protocol-Version says ${versionHeader}`,
      id,
    );
  }
  const methodHeader = header(req, HEADER.method);
  if (methodHeader === undefined) {
    return mismatch(
      `the body's method is ${method} but the Mcp-Method header is absent`,
      id,
    );
  }
  if (methodHeader !== method) {
    return mismatch(
      `the body's method is ${method} but Mcp-Method says ${methodHeader}`,
      id,
    );
  }
  const param = nameParamOf(method);
  if (param !== undefined) {
    const value = (body.params as Record<string, unknown> | undefined)?.[param];
    const nameHeader = header(req, HEADER.name);
    if (typeof value === "string") {
      if (nameHeader === undefined) {
        return mismatch(
          `the body's params.${param} is ${
            JSON.stringify(value)
          } but the Mcp-Name header is absent`,
          id,
        );
      }
      const decoded = decodeHeaderValue(nameHeader);
      if (decoded === undefined) {
        return mismatch("the Mcp-Name header's base64 form is malformed", id);
      }
      if (decoded !== value) {
        return mismatch(
          `the body's params.${param} is ${
            JSON.stringify(value)
          } but Mcp-Name says ${JSON.stringify(decoded)}`,
          id,
        );
      }
    }
  }
  // The envelope must be an object whose capabilities are an object.
  const meta = metaOf(body)!;
  const capabilities = meta[META.clientCapabilities];
  if (capabilities !== undefined && !isObject(capabilities)) {
    return {
      era: "refused",
      response: errorResponse(400, {
        code: -32602,
        message:
          "Invalid params: io.modelcontextprotocol/clientCapabilities must be an object",
      }, id),
    };
  }
  return { era: "modern", kind: "request" };
}
