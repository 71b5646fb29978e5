/**
 * The `requestState` an exported tool's `input_required` result carries
 * (2026-07-28): the answers the call got so far, bound to the tool and its
 * arguments, with an expiry, signed with HMAC-SHA256 (WebCrypto). The
 * client echoes it on the retry; the server verifies it and trusts nothing
 * it did not sign. Stateless: a retry may reach another instance, which
 * verifies it with the same key (`setRequestStateKey`).
 *
 * Wire form: `base64url(payload JSON) "." base64url(HMAC of the first part)`.
 *
 * @module
 */

import type { InputResponse } from "../core/input.ts";

/** How long a signed requestState is honoured: one hour. */
export const REQUEST_STATE_TTL_MS = 3_600_000;

/** What a requestState holds. */
export interface RequestStatePayload {
  /** The tool called. */
  readonly tool: string;
  /** SHA-256 (base64url) of the call's argument text. */
  readonly args: string;
  /** The answers so far, in ask order. */
  readonly answers: readonly InputResponse[];
  /** When it stops being honoured, in ms since the epoch. */
  readonly expires: number;
}

/**
 * A retry's requestState that cannot be honoured: not ours, altered,
 * expired, or issued for another call. Answered as a JSON-RPC error
 * (InvalidParams, -32602): `invalid requestState: <reason>`.
 */
export class InvalidRequestStateError extends Error {
  readonly code: number = -32602;

  constructor(reason: string) {
    super(`invalid requestState: ${reason}`);
    this.name = "InvalidRequestStateError";
  }
}

/** An HMAC-SHA256 key from secret bytes or text (at least 32 bytes). */
export async function stateKey(
  secret: string | Uint8Array,
): Promise<CryptoKey> {
  const bytes = typeof secret === "string"
    ? new TextEncoder().encode(secret)
    : secret;
  if (bytes.length < 32) {
    throw new TypeError(
      `the requestState key must hold at least 32 bytes, got ${bytes.length}`,
    );
  }
  return await crypto.subtle.importKey(
    "raw",
    new Uint8Array(bytes),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign", "verify"],
  );
}

let processKey: Promise<CryptoKey> | undefined;

/** This process's own key, random, made on first use. */
export function processStateKey(): Promise<CryptoKey> {
  processKey ??= stateKey(crypto.getRandomValues(new Uint8Array(32)));
  return processKey;
}

/** SHA-256 of `text`, base64url. */
export async function digest(text: string): Promise<string> {
  const hash = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(text),
  );
  return toBase64Url(new Uint8Array(hash));
}

/** Signs `payload` into a requestState. */
export async function signState(
  key: CryptoKey,
  payload: RequestStatePayload,
): Promise<string> {
  const body = toBase64Url(new TextEncoder().encode(JSON.stringify(payload)));
  const mac = await crypto.subtle.sign(
    "HMAC",
    key,
    new TextEncoder().encode(body),
  );
  return `${body}.${toBase64Url(new Uint8Array(mac))}`;
}

/**
 * The payload of `state`, verified: signed with `key`, not expired at
 * `now`, issued for `tool` called with arguments whose digest is `args`.
 * Throws `InvalidRequestStateError` naming what failed.
 */
export async function verifyState(
  key: CryptoKey,
  state: unknown,
  expected: { tool: string; args: string; now: number },
): Promise<RequestStatePayload> {
  if (typeof state !== "string") {
    throw new InvalidRequestStateError("not a string");
  }
  const dot = state.indexOf(".");
  const body = state.slice(0, dot);
  const mac = dot < 0 ? undefined : fromBase64Url(state.slice(dot + 1));
  const ok = mac !== undefined && await crypto.subtle.verify(
    "HMAC",
    key,
    mac,
    new TextEncoder().encode(body),
  );
  if (!ok) {
    throw new InvalidRequestStateError(
      "not signed by this server (altered, or signed with another key); call the tool again without it",
    );
  }
  const payload = JSON.parse(
    new TextDecoder().decode(fromBase64Url(body)),
  ) as RequestStatePayload;
  if (!(payload.expires > expected.now)) {
    throw new InvalidRequestStateError(
      "expired; call the tool again without it",
    );
  }
  if (payload.tool !== expected.tool || payload.args !== expected.args) {
    throw new InvalidRequestStateError(
      "issued for another tool call (a different tool or arguments)",
    );
  }
  return payload;
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(
    /=+$/,
    "",
  );
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}
