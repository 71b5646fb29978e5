/**
 * What the Postgres store calls an outage: an error the server sent while
 * going away (shutting down, crashed, starting up, out of connections, a
 * fatal or connection error) is a `StoreUnavailableError` — the handler
 * answers its pinned 503 — while a refusal of the statement itself (a
 * value too long, say) stays a plain error. Before, any error carrying a
 * severity read as "the server answered", so a server stopped mid-request
 * could surface as a 500 (seen as a flake of store_unavailable_test under
 * load).
 */

import assert from "node:assert/strict";
import {
  type PostgresClientLike,
  postgresStore,
  StoreUnavailableError,
} from "../store.ts";

/** A client whose every data statement fails with `error` (the set-up passes). */
function failing(error: Record<string, unknown>): PostgresClientLike {
  return {
    unsafe(query: string) {
      if (query.startsWith("CREATE")) return Promise.resolve([]);
      return Promise.reject(
        Object.assign(new Error(String(error.message)), error),
      );
    },
    listen: () => Promise.resolve({ unlisten: () => Promise.resolve() }),
    end: () => Promise.resolve(),
  };
}

const OUTAGES = [
  {
    severity: "FATAL",
    code: "57P01",
    message: "terminating connection due to administrator command",
  },
  {
    severity: "FATAL",
    code: "57P03",
    message: "the database system is shutting down",
  },
  {
    severity: "ERROR",
    code: "57P02",
    message:
      "terminating connection because of crash of another server process",
  },
  {
    severity: "FATAL",
    code: "53300",
    message: "sorry, too many clients already",
  },
  { severity: "ERROR", code: "08006", message: "connection failure" },
  { severity: "PANIC", code: "XX000", message: "could not write to file" },
];

for (const outage of OUTAGES) {
  Deno.test(`postgres store: ${outage.severity} ${outage.code} from the server is an outage (StoreUnavailableError)`, async () => {
    await using store = postgresStore(failing(outage));
    const error = await store.get("k").then(
      () => assert.fail("get resolved"),
      (error: unknown) => error,
    );
    assert.ok(error instanceof StoreUnavailableError, String(error));
    assert.equal(error.store, "postgres");
    assert.equal((error.cause as { code?: string }).code, outage.code);
  });
}

Deno.test("postgres store: a statement the server refuses (22001, value too long) is a plain error, not an outage", async () => {
  await using store = postgresStore(
    failing({
      severity: "ERROR",
      code: "22001",
      message: "value too long for type character varying(10)",
    }),
  );
  const error = await store.get("k").then(
    () => assert.fail("get resolved"),
    (error: unknown) => error,
  );
  assert.ok(error instanceof Error);
  assert.ok(!(error instanceof StoreUnavailableError));
  assert.match(error.message, /^postgres store: get failed: value too long/);
});
