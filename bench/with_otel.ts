/**
 * Runs another bench with the OpenTelemetry SDK registered (an in-memory
 * span exporter, the W3C propagator, the AsyncLocalStorage context manager,
 * an in-memory metric reader: `tests/interop/_otel.ts`), to see what
 * recording costs:
 *
 *     deno run -A --config tests/interop/deno.json bench/with_otel.ts bench/http_bench.ts --skip-server
 *
 * @module
 */

import { installSdk } from "../tests/interop/_otel.ts";

const [bench] = Deno.args;
if (bench === undefined) {
  console.error("usage: bench/with_otel.ts <bench file> [its arguments]");
  Deno.exit(2);
}
installSdk();
await import(new URL(bench, `file://${Deno.cwd()}/`).href);
