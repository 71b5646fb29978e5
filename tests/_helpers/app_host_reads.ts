/**
 * For app host tests: a request that must be answered without parking.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { AppHostHandler } from "../../apps.ts";
import { waitFor } from "./wait.ts";

/**
 * Waits for `request` (a page's request of `runId`) to be answered; fails
 * fast, instead of waiting forever, when the run parks one more request.
 */
export async function atOnce(
  handler: AppHostHandler,
  request: Promise<Response>,
  { runId, host = "http://host.test" }: { runId: string; host?: string },
): Promise<Response> {
  const parkedNow = async (): Promise<unknown[]> =>
    (await (await handler(new Request(`${host}/runs/${runId}`))).json())
      .pending ?? [];
  let answered: Response | undefined;
  let failed: unknown;
  request.then((res) => answered = res, (error) => failed = error);
  const before = (await parkedNow()).length;
  return await waitFor(
    async () => {
      if (failed !== undefined) throw failed;
      if (answered !== undefined) return answered;
      const pending = await parkedNow();
      assert.equal(pending.length, before, JSON.stringify(pending));
      return undefined;
    },
    "the read is answered",
    { signal: AbortSignal.timeout(5_000), everyMs: 2 },
  );
}
