/**
 * The client capability a server-to-client request needs (`roots/list`,
 * `sampling/createMessage`, `elicitation/create`), and the `-32021` error
 * answering a modern request whose caller did not declare it.
 *
 * @module
 */

import { MODERN_ERROR } from "./era.ts";
import { isObject } from "./era_probe.ts";

type Json = Record<string, unknown>;

/** The client capability a server-to-client request needs. */
function requiredCapability(method: string, params: unknown): Json | undefined {
  switch (method) {
    case "roots/list":
      return { roots: {} };
    case "sampling/createMessage":
      return isObject(params) &&
          (params.tools !== undefined || params.toolChoice !== undefined)
        ? { sampling: { tools: {} } }
        : { sampling: {} };
    case "elicitation/create":
      return isObject(params) && params.mode === "url"
        ? { elicitation: { url: {} } }
        : { elicitation: {} };
    default:
      return undefined;
  }
}

/** Whether `declared` covers `required` (top-level keys and named members). */
function declares(declared: Json, required: Json): boolean {
  for (const [key, members] of Object.entries(required)) {
    const value = declared[key];
    if (!isObject(value)) return false;
    for (const member of Object.keys(members as Json)) {
      if (value[member] === undefined) return false;
    }
  }
  return true;
}

/**
 * The `-32021` error of `request`, a server-to-client request made while
 * serving the modern request `serving`, when `serving`'s caller did not
 * declare the client capability it needs; `undefined` when it did (or the
 * request needs none).
 */
export function missingCapabilityError(
  serving: { readonly method: string; readonly capabilities: Json },
  request: { readonly method: string; readonly params?: unknown },
): { code: number; message: string; data: Json } | undefined {
  const required = requiredCapability(request.method, request.params);
  if (required === undefined || declares(serving.capabilities, required)) {
    return undefined;
  }
  return {
    code: MODERN_ERROR.missingCapability,
    message: `Missing required client capability: serving ${
      JSON.stringify(serving.method)
    } needs ${request.method}, which the request's clientCapabilities do not declare`,
    data: { requiredCapabilities: required },
  };
}
