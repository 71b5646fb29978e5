/**
 * One case table, every route that answers `tools/call`: the HTTP
 * handler's SDK path, its direct route (stateless, the default), its
 * session mode, `serveStdio`'s lane and the stdio `Protocol` alone — in
 * both eras each serves. Every case (refusals of `Accept`, content type,
 * protocol version, `Mcp-Method` and `Mcp-Name` headers, batches, notification-shaped calls, oversized
 * and malformed bodies; listings, calls, bad arguments, unknown tools,
 * output-schema failures, progress, scopes, input requests, tasks, list
 * changes) gets the answer the table pins (the messages in wire key
 * order) on every route it applies to; cancellation reaches the tool on
 * every route. The direct route and the lane are proved taken (no SDK
 * `Protocol` handles the request) where they answer, the SDK path where
 * it is forced.
 *
 * The pattern: one case file (`_helpers/route_cases.ts`), one rig
 * (`_helpers/route_rig.ts`), `runCases(route)` per route and era.
 */

import assert from "node:assert/strict";
import { CASES, type RouteCase } from "./_helpers/route_cases.ts";
import {
  ALL_ROUTES,
  type Answer,
  type Era,
  ERAS,
  isStdio,
  openRoute,
  type Route,
  type RouteName,
} from "./_helpers/route_rig.ts";

/** The answer `c` must give on `route` in `era`, or `undefined` when it does not apply. */
function expected(
  c: RouteCase,
  route: RouteName,
  era: Era,
): Answer | undefined {
  if (c.routes !== undefined && !c.routes.includes(route)) return undefined;
  if (c.eras !== undefined && !c.eras.includes(era)) return undefined;
  const answer = c.except?.[route]?.[era] ??
    (isStdio(route) ? c.except?.stdio?.[era] : undefined) ?? c.expect[era];
  if (answer === undefined) {
    throw new Error(`${c.label}: nothing pinned for ${era}`);
  }
  return answer;
}

async function runCases(route: Route): Promise<number> {
  let ran = 0;
  for (const c of CASES) {
    const want = expected(c, route.name, route.era);
    if (want === undefined) continue;
    const { answer, connected } = await route.send(c.request);
    const where = `${c.label} (${route.name}, ${route.era})`;
    // The messages as the wire ordered them (keys included), then the rest.
    assert.equal(
      JSON.stringify(answer.messages),
      JSON.stringify(want.messages),
      where,
    );
    if (!isStdio(route.name)) assert.deepEqual(answer, want, where);
    const answered = want.status === 200 ||
      (isStdio(route.name) && c.request.id !== null);
    if (
      (route.name === "direct" || route.name === "stdio") &&
      c.direct === true && answered
    ) {
      assert.equal(
        connected,
        false,
        `${where}: the direct route or the lane answers it`,
      );
    }
    if (
      (route.name === "sdk" && want.type === "sse") ||
      (route.name === "stdio-sdk" && answered)
    ) {
      assert.equal(connected, true, `${where}: the SDK's Protocol answers it`);
    }
    ran++;
  }
  return ran;
}

for (const era of ERAS) {
  for (const name of ALL_ROUTES) {
    Deno.test(`routes, ${name}, ${era}: every case gets the pinned answer`, async () => {
      const route = await openRoute(name, era);
      try {
        const ran = await runCases(route);
        assert.ok(ran >= (isStdio(name) ? 13 : 25), `${ran} cases ran`);
      } finally {
        await route.close();
      }
    });

    Deno.test(`routes, ${name}, ${era}: a cancelled call's tool sees why`, async () => {
      const route = await openRoute(name, era);
      try {
        const call = await route.waiting();
        assert.equal(
          await call.cancel(),
          isStdio(name) || (name === "sessions" && era === "2025-11-25")
            ? "enough"
            : "the HTTP request was dropped",
        );
      } finally {
        await route.close();
      }
    });
  }
}

Deno.test("routes: the table pins every case in each era it applies to", () => {
  for (const c of CASES) {
    for (const era of c.eras ?? ERAS) {
      assert.ok(c.expect[era] !== undefined, `${c.label}: ${era}`);
    }
  }
  // Every refusal family is in the table.
  const labels = CASES.map((c) => c.label).join("\n");
  for (
    const family of [
      "Accept",
      "Content-Type",
      "MCP-Protocol-Version",
      "Mcp-Method",
      "Mcp-Name",
      "batch",
      "notification-shaped",
      "oversized",
      "malformed",
    ]
  ) assert.ok(labels.includes(family), family);
});
