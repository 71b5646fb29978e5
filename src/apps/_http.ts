/**
 * The app host's request bodies and answers: a body read under its limit as
 * a JSON object, its fields, and JSON, text and error responses.
 *
 * @module
 */

import { AppGateError } from "./errors.ts";
import { BodyError } from "./_http_error.ts";

/** A refused or failed request's answer. */
export function errorResponse(error: unknown): Response {
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
export function objectOf(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : {};
}

export async function bodyOf(
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

export function stringOf(value: unknown, field: string): string {
  if (typeof value !== "string") {
    throw new BodyError(400, `appHost: ${field} must be a string`);
  }
  return value;
}

export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

export function text(status: number, body: string): Response {
  return new Response(body, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}
