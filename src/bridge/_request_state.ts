/**
 * The `requestState` an exported tool's `input_required` result carries
 * (2026-07-28): the answers the call got so far and the form of the
 * question pending, bound to the caller (its principal, when the request
 * was authenticated), the tool and its arguments, with an id and an expiry,
 * signed with HMAC-SHA256 (WebCrypto). The client echoes it on the retry;
 * the server verifies it, trusts nothing it did not sign, and accepts each
 * state once (its id claimed in a `ClaimStore`). A retry may reach another
 * instance, which verifies it with the same key (`setRequestStateKey`).
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
  /** Random, unique: the key its single use is claimed under. */
  readonly id: string;
  /** The caller's principal (client id and subject), or null without auth. */
  readonly principal: string | null;
  /** The tool called. */
  readonly tool: string;
  /** SHA-256 (base64url) of the call's argument text. */
  readonly args: string;
  /** The answers so far, in ask order. */
  readonly answers: readonly InputResponse[];
  /** The form of the question pending (its `requestedSchema`), which the next answer must match. */
  readonly asked?: Readonly<Record<string, unknown>>;
  /** The question pending is a sampling request: the next answer must be a sampling result. */
  readonly sampled?: true;
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

/** The least a requestState key holds, in bytes. */
export const MIN_KEY_BYTES = 32;

/**
 * The bytes of `secret` (text is UTF-8), checked at once: a `TypeError`
 * for anything but text or bytes, or fewer than 32 bytes.
 */
export function keyBytes(secret: string | Uint8Array): Uint8Array {
  const bytes = typeof secret === "string"
    ? new TextEncoder().encode(secret)
    : secret;
  if (!(bytes instanceof Uint8Array)) {
    throw new TypeError(
      "setRequestStateKey(server, secret): the secret must be a string or a Uint8Array",
    );
  }
  if (bytes.length < MIN_KEY_BYTES) {
    throw new TypeError(
      `setRequestStateKey(server, secret): the requestState key must hold at least ${MIN_KEY_BYTES} bytes, got ${bytes.length}; use a random secret of 32 bytes or more`,
    );
  }
  return bytes;
}

/** An HMAC-SHA256 key from secret bytes or text (at least 32 bytes, checked before any await). */
export function stateKey(
  secret: string | Uint8Array,
): Promise<CryptoKey> {
  const bytes = keyBytes(secret);
  return crypto.subtle.importKey(
    "raw",
    new Uint8Array(bytes),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign", "verify"],
  );
}

/** A new random key (32 bytes), of one exported tool definition. */
export function randomStateKey(): Promise<CryptoKey> {
  return stateKey(crypto.getRandomValues(new Uint8Array(MIN_KEY_BYTES)));
}

/** A new state id: 16 random bytes, base64url. */
export function newStateId(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(16)));
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
 * `now`, issued to `principal` for `tool` called with arguments whose
 * digest is `args`. Throws `InvalidRequestStateError` naming what failed.
 * (Its single use is the caller's to claim.)
 */
export async function verifyState(
  key: CryptoKey,
  state: unknown,
  expected: {
    principal: string | null;
    tool: string;
    args: string;
    now: number;
  },
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
  if (
    payload === null || typeof payload !== "object" ||
    typeof payload.id !== "string" || !Array.isArray(payload.answers)
  ) {
    throw new InvalidRequestStateError(
      "not a state this server issues; call the tool again without it",
    );
  }
  if (!(payload.expires > expected.now)) {
    throw new InvalidRequestStateError(
      "expired; call the tool again without it",
    );
  }
  if ((payload.principal ?? null) !== expected.principal) {
    throw new InvalidRequestStateError(
      "issued to another caller; call the tool again without it",
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
