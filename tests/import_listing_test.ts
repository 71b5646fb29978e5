/**
 * importTools: options, listing and pagination (go-mcp §1.1, §1.2; I-1 … I-8).
 */

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ErrorCode,
  McpError,
  ResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { importTools } from "../mod.ts";
import { ListToolsError } from "../bridge.ts";
import {
  entry,
  listedServer,
  rawPeer,
  type TestServer,
  withMethod,
} from "./_helpers/mcp_servers.ts";
import { latch } from "./_helpers/wait.ts";

Deno.test("importTools takes a client and an optional options bag; an absent or empty bag changes nothing", async () => {
  await using s = await listedServer({ tools: [entry("a"), entry("b")] });
  const plain = await importTools(s.client);
  const undef = await importTools(s.client, undefined);
  const empty = await importTools(s.client, {});
  const unset = await importTools(s.client, {
    prefix: undefined,
    policy: undefined,
    signal: undefined,
  });
  for (const result of [plain, undef, empty, unset]) {
    assert.deepEqual(result.tools.map((t) => t.name), ["a", "b"]);
    assert.equal(result.skipped, undefined);
  }
});

Deno.test("one prefix and one policy apply to every imported tool", async () => {
  await using s = await listedServer({
    tools: [entry("search"), entry("fetch")],
  });
  const { tools } = await importTools(s.client, {
    prefix: "gh_",
    policy: { timeout: 100, maxResultBytes: 8, requireApproval: true },
  });
  assert.deepEqual(tools.map((t) => t.name), ["gh_search", "gh_fetch"]);
  for (const t of tools) {
    assert.equal(t.timeout, 100);
    assert.equal(t.maxResultBytes, 8);
    assert.equal(t.requiresApproval, true);
  }
});

Deno.test("importTools never closes the session; each call builds fresh tools", async () => {
  await using s = await listedServer({ tools: [entry("search")] });
  let closed = false;
  s.client.onclose = () => closed = true;
  const first = await importTools(s.client);
  const second = await importTools(s.client, {
    policy: { requireApproval: true },
  });
  assert.notEqual(first.tools[0], second.tools[0]);
  assert.equal(first.tools[0].requiresApproval, false);
  assert.equal(second.tools[0].requiresApproval, true);
  assert.equal(await first.tools[0].invoke("{}"), "called");
  assert.equal(await second.tools[0].invoke("{}"), "called");
  await s.client.ping();
  assert.equal(closed, false);
  assert.deepEqual(s.cursors, [undefined, undefined]);
});

Deno.test("importTools follows nextCursor through every page", async () => {
  await using s = await listedServer({
    tools: [entry("alpha"), entry("beta"), entry("gamma")],
    pageSize: 1,
  });
  const raw = await s.client.request({ method: "tools/list" }, ResultSchema);
  assert.equal((raw.tools as unknown[]).length, 1);
  assert.equal(typeof raw.nextCursor, "string");
  assert.notEqual(raw.nextCursor, "");
  const { tools, skipped } = await importTools(s.client);
  assert.deepEqual(tools.map((t) => t.name), ["alpha", "beta", "gamma"]);
  assert.equal(skipped, undefined);
  assert.deepEqual(s.cursors, [undefined, undefined, "1", "2"]);
});

Deno.test("an empty or null nextCursor ends the listing", async () => {
  for (const nextCursor of ["", null]) {
    await using s = await listedServer({
      tools: [],
      list: () => ({ tools: [entry("only")], nextCursor }),
    });
    const { tools } = await importTools(s.client);
    assert.deepEqual(tools.map((t) => t.name), ["only"]);
    assert.equal(s.cursors.length, 1);
  }
});

Deno.test("a server with no tools gives an empty list and no report", async () => {
  await using s = await listedServer({ tools: [] });
  const result = await importTools(s.client);
  assert.ok(Array.isArray(result.tools));
  assert.equal(result.tools.length, 0);
  assert.equal("skipped" in result, false);
});

Deno.test("a pre-aborted signal rejects with its reason, unchanged, and lists nothing", async () => {
  await using s = await listedServer({ tools: [entry("a")] });
  const reason = new Error("deadline");
  const controller = new AbortController();
  controller.abort(reason);
  await assert.rejects(
    importTools(s.client, { signal: controller.signal }),
    (err) => err === reason,
  );
  assert.equal(s.cursors.length, 0);
  const plain = new AbortController();
  plain.abort();
  await assert.rejects(
    importTools(s.client, { signal: plain.signal }),
    (err) =>
      err === plain.signal.reason && err instanceof DOMException &&
      err.name === "AbortError",
  );
});

Deno.test("a signal ending mid-list rejects with its reason unchanged, discards earlier pages, and cancels the request", async () => {
  const controller = new AbortController();
  const reason = { why: "not an Error at all" };
  let release!: () => void;
  const stuck = new Promise<void>((resolve) => release = resolve);
  await using s = await listedServer({
    tools: [],
    list: async (cursor) => {
      if (cursor === undefined) {
        return { tools: [entry("a")], nextCursor: "p2" };
      }
      controller.abort(reason);
      await stuck;
      return { tools: [entry("b")] };
    },
  });
  await assert.rejects(
    importTools(s.client, { signal: controller.signal }),
    (err) => err === reason,
  );
  release();
  const cancelled = withMethod(s.sent, "notifications/cancelled");
  assert.equal(cancelled.length, 1);
});

Deno.test("a deadline (AbortSignal.timeout) hitting mid-list rejects with the TimeoutError unchanged", async () => {
  const signal = AbortSignal.timeout(30);
  // The second page is answered only once the deadline has hit.
  const answered = latch();
  await using s = await listedServer({
    tools: [],
    list: async (cursor) => {
      if (cursor === undefined) {
        return { tools: [entry("a")], nextCursor: "p2" };
      }
      if (!signal.aborted) {
        await new Promise((resolve) =>
          signal.addEventListener("abort", resolve, { once: true })
        );
      }
      answered.open();
      return { tools: [entry("b")] };
    },
  });
  await assert.rejects(
    importTools(s.client, { signal }),
    (err) =>
      err === signal.reason && err instanceof DOMException &&
      err.name === "TimeoutError",
  );
  await answered.promise;
});

Deno.test("a protocol error on a later page rejects with the SDK's error and no tools", async () => {
  await using s = await listedServer({
    tools: [],
    list: (cursor) => {
      if (cursor === undefined) {
        return { tools: [entry("a")], nextCursor: "p2" };
      }
      throw new Error("page two exploded");
    },
  });
  await assert.rejects(importTools(s.client), (err) => {
    assert.ok(err instanceof McpError);
    assert.equal(err.code, ErrorCode.InternalError);
    assert.equal(err.message, "MCP error -32603: page two exploded");
    return true;
  });
});

Deno.test("a connection closed mid-list is a listing failure", async () => {
  // The handler closes the very session it serves: it reaches it late, through the box.
  const box: { server?: TestServer } = {};
  const s = box.server = await listedServer({
    tools: [],
    list: async (cursor) => {
      if (cursor === undefined) {
        return { tools: [entry("a")], nextCursor: "p2" };
      }
      await box.server?.close();
      return { tools: [entry("b")] };
    },
  });
  await assert.rejects(importTools(s.client), (err) => {
    assert.ok(err instanceof McpError);
    assert.equal(err.code, ErrorCode.ConnectionClosed);
    return true;
  });
});

Deno.test("a cursor that repeats is a listing failure, not a loop", async () => {
  await using s = await listedServer({
    tools: [],
    list: (cursor) => ({
      tools: [entry(`t${cursor ?? 0}`)],
      nextCursor: cursor === "a" ? "b" : "a",
    }),
  });
  await assert.rejects(importTools(s.client), (err) => {
    assert.ok(err instanceof ListToolsError);
    assert.equal(
      err.message,
      'mcp: tools/list page 2: cursor "a" was already given in this listing',
    );
    assert.equal(err.page, 2);
    return true;
  });
  assert.deepEqual(s.cursors, [undefined, "a", "b"]);
});

Deno.test("a page without a tools array, or with a non-string nextCursor, is a listing failure", async () => {
  const cases: [unknown, string][] = [
    [{}, 'mcp: tools/list page 0: the result has no "tools" array'],
    [
      { tools: { 0: entry("a") } },
      'mcp: tools/list page 0: the result has no "tools" array',
    ],
    [
      { tools: [entry("a")], nextCursor: 2 },
      'mcp: tools/list page 0: "nextCursor" is not a string',
    ],
  ];
  for (const [page, text] of cases) {
    await using s = await rawPeer(() => page);
    await assert.rejects(importTools(s.client), (err) => {
      assert.ok(err instanceof ListToolsError);
      assert.equal(err.message, text);
      return true;
    });
  }
});

Deno.test("the output keeps the server's listing order, skipped entries removed", async () => {
  await using s = await listedServer({
    tools: [
      entry("zeta"),
      entry("alpha"),
      entry("nullable_root", { inputSchema: { type: ["object", "null"] } }),
      entry("mid"),
    ],
  });
  const { tools, skipped } = await importTools(s.client);
  assert.deepEqual(tools.map((t) => t.name), ["zeta", "alpha", "mid"]);
  assert.equal(skipped?.skipped[0].index, 2);
});

Deno.test("the index counts every entry across pages, skipped ones included", async () => {
  await using s = await listedServer({
    tools: [
      entry("a"),
      entry("b"),
      null,
      entry("c"),
      entry("d", { inputSchema: { type: "string" } }),
      entry("e"),
    ],
    pageSize: 2,
  });
  const { tools, skipped } = await importTools(s.client);
  assert.deepEqual(tools.map((t) => t.name), ["a", "b", "c", "e"]);
  assert.deepEqual(skipped?.skipped.map((x) => [x.name, x.index]), [["", 2], [
    "d",
    4,
  ]]);
  assert.deepEqual(s.cursors, [undefined, "2", "4"]);
});
