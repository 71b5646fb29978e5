/**
 * The `server/discover` probes a client connection sends over its own
 * transport (stdio; an HTTP connection sends its probe by itself): each
 * answered by id, or — when silence is evidence of the legacy era — taken
 * for a timeout after its wait; an answer after that wait can still be
 * waited for.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
import { outcomeOf, type ProbeOutcome } from "./era_probe.ts";

/** See the module doc. */
export class InnerProbes {
  /** What each probe waiting for its answer does with it, by id. */
  readonly #waiting = new Map<string, (outcome: ProbeOutcome) => void>();

  /**
   * Sends `request` over `inner`; resolves with its answer, the failure of
   * the send, the connection's close or — when `timeout` is given — the
   * silence of that many ms.
   */
  send(
    inner: Transport,
    request: JSONRPCRequest,
    timeout: number | undefined,
  ): Promise<ProbeOutcome> {
    return new Promise<ProbeOutcome>((resolve) => {
      const id = String(request.id);
      const timer = timeout !== undefined
        ? setTimeout(() => {
          this.#waiting.delete(id);
          resolve({ kind: "timeout", ms: timeout });
        }, timeout)
        : undefined;
      this.#waiting.set(id, (outcome) => {
        clearTimeout(timer);
        this.#waiting.delete(id);
        resolve(outcome);
      });
      inner.send(request).catch((error) => {
        this.#waiting.get(id)?.({ kind: "network-error", error });
      });
    });
  }

  /** After its timeout, the answer to the probe `id` goes to `late` if it comes. */
  waitLate(id: string, late: (outcome: ProbeOutcome) => void): void {
    this.#waiting.set(id, late);
  }

  /** Stops waiting for the answer to the probe `id`. */
  forget(id: string): void {
    this.#waiting.delete(id);
  }

  /** Hands the response `m` (to `id`) to the probe it answers; `false` when it answers none. */
  answer(m: Record<string, unknown>, id: string | number): boolean {
    const probe = this.#waiting.get(String(id));
    if (probe === undefined || typeof id !== "string") return false;
    probe(outcomeOf(m));
    return true;
  }

  /** The connection closed: every probe waiting is answered `closed`. */
  close(): void {
    for (const resolve of this.#waiting.values()) resolve({ kind: "closed" });
    this.#waiting.clear();
  }
}
