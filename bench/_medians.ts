/**
 * The `--medians` harness the benches share: two sides of one operation
 * timed one call at a time, interleaved one for one and alternating which
 * goes first (so load from other processes, and each side's garbage, hits
 * both alike). `deno bench` prints means and percentiles; on a shared
 * machine the median of side-by-side pairs is the steadier ratio.
 *
 * @module
 */

/** One comparison: a label, the SDK's side, weft's side, and how many pairs to time. */
export interface MedianPair {
  /** Printed with the result. */
  readonly label: string;
  /** The SDK's own path: the baseline. */
  readonly sdk: () => Promise<unknown>;
  /** The bridge's path. */
  readonly weft: () => Promise<unknown>;
  /** Timed pairs; a tenth as many untimed pairs warm up first. */
  readonly n: number;
}

/** The median time of each side, in milliseconds. */
export interface MedianResult {
  /** The pair's label. */
  readonly label: string;
  /** The SDK side's median, ms. */
  readonly sdk: number;
  /** The weft side's median, ms. */
  readonly weft: number;
}

/** Times every pair in turn and resolves to each side's median. */
export async function interleavedMedians(
  pairs: readonly MedianPair[],
): Promise<MedianResult[]> {
  const results: MedianResult[] = [];
  for (const { label, sdk, weft, n } of pairs) {
    const sdkTimes: number[] = [];
    const weftTimes: number[] = [];
    for (let i = 0; i < n / 10; i++) { // warm-up
      await sdk();
      await weft();
    }
    for (let i = 0; i < n; i++) {
      const order = i % 2 === 0 ? [sdk, weft] : [weft, sdk];
      for (const op of order) {
        const started = performance.now();
        await op();
        (op === sdk ? sdkTimes : weftTimes).push(performance.now() - started);
      }
    }
    results.push({ label, sdk: median(sdkTimes), weft: median(weftTimes) });
  }
  return results;
}

/** The median of `samples` (the mean of the middle two when even). */
export function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? sorted[mid]
    : (sorted[mid - 1] + sorted[mid]) / 2;
}
