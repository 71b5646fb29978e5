/**
 * The cap on open `subscriptions/listen` streams (2026-07-28): per handler
 * and, with `auth`, per principal. A listen is refused before any server is
 * made for it; its slot is given back when its request ends (answered,
 * closed by the client, or the handler closing).
 *
 * @module
 */

import { HttpRefusalError } from "../errors.ts";
import { jsonRpcError } from "./guard.ts";

/** How long a client refused for a full handler is told to wait, in seconds. */
const RETRY_AFTER = 30;

/** A taken slot: call once when the stream ended (later calls do nothing). */
export type Release = () => void;

/** Counts open listen streams against `max` and `perPrincipal`. */
export class ListenCap {
  readonly #max: number;
  readonly #perPrincipal: number;
  readonly #onFull: (error: HttpRefusalError) => void;
  #open = 0;
  /** Open streams by principal; an entry goes when its count reaches 0. */
  readonly #byPrincipal = new Map<string, number>();

  /** A cap of `max` streams, `perPrincipal` each; `onFull` sees each refusal. */
  constructor(
    max: number,
    perPrincipal: number,
    onFull: (error: HttpRefusalError) => void,
  ) {
    this.#max = max;
    this.#perPrincipal = perPrincipal;
    this.#onFull = onFull;
  }

  /** Open streams now (all principals). */
  get open(): number {
    return this.#open;
  }

  /** Principals holding a stream now. */
  get principals(): number {
    return this.#byPrincipal.size;
  }

  /**
   * Takes a slot for a listen of `principal` (`undefined` without auth):
   * its release, or the refusal to answer — 503 when the handler is full,
   * 429 when the principal is — with a JSON-RPC error naming the option.
   */
  take(
    principal: string | undefined,
    id: string | number | null,
  ): Release | Response {
    if (this.#open >= this.#max) {
      const error = new HttpRefusalError(
        503,
        `the handler holds its maximum of ${this.#max} open subscriptions/listen streams (maxListens)`,
      );
      this.#onFull(error);
      return jsonRpcError(
        503,
        -32000,
        `Service Unavailable: the server holds its maximum of ${this.#max} open subscriptions/listen streams (maxListens); retry after ${RETRY_AFTER} s`,
        id,
        { "retry-after": String(RETRY_AFTER) },
      );
    }
    const held = principal === undefined
      ? 0
      : this.#byPrincipal.get(principal) ?? 0;
    if (principal !== undefined && held >= this.#perPrincipal) {
      this.#onFull(
        new HttpRefusalError(
          429,
          `a caller holds its maximum of ${this.#perPrincipal} open subscriptions/listen streams (maxListensPerPrincipal)`,
        ),
      );
      return jsonRpcError(
        429,
        -32000,
        `Too Many Requests: this caller holds its maximum of ${this.#perPrincipal} open subscriptions/listen streams (maxListensPerPrincipal); close one before opening another`,
        id,
      );
    }
    this.#open++;
    if (principal !== undefined) this.#byPrincipal.set(principal, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#open--;
      if (principal === undefined) return;
      const left = (this.#byPrincipal.get(principal) ?? 1) - 1;
      if (left > 0) this.#byPrincipal.set(principal, left);
      else this.#byPrincipal.delete(principal);
    };
  }
}

/** `value` as a cap option: a non-negative integer, else a `TypeError` naming `name`. */
export function capOption(
  value: number | undefined,
  fallback: number,
  name: string,
): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new TypeError(
      `httpHandler: options.${name} must be a non-negative integer, got ${
        String(value)
      }`,
    );
  }
  return value;
}
