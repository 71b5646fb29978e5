/**
 * exportTools calls: E-6 … E-11, the unknown-tool protocol error, and the
 * non-object rule for output schemas. Over the SDK's real Client, in memory.
 */

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolResultSchema,
  ErrorCode,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { ToolError } from "../src/core/errors.ts";
import { rawTool, type ToolDef } from "../src/core/tool.ts";
import { exportTools } from "../src/bridge/export.ts";
import { callRaw, connected, onlyText } from "./_helpers/export_pair.ts";
import {
  echo,
  lookupOrder,
  mirror,
  pairWith,
} from "./_helpers/export_tools.ts";
import { quietFor } from "./_helpers/wait.ts";

Deno.test("success is one text item with the result text, not an error", async () => {
  await using pair = await pairWith(echo);
  const res = await pair.client.callTool({
    name: "echo",
    arguments: { text: "hello" },
  });
  assert.deepEqual(res.content, [{ type: "text", text: "heard: hello" }]);
  assert.notEqual(res.isError, true);
  assert.equal("structuredContent" in res, false);
});

Deno.test("with an output schema the JSON text is also structuredContent (the SDK client validates it)", async () => {
  await using pair = await pairWith(lookupOrder);
  await pair.client.listTools(); // caches the output-schema validator
  const res = await pair.client.callTool({
    name: "lookup_order",
    arguments: { order_id: "1234" },
  });
  assert.equal(onlyText(res as never), '{"id":"1234","status":"shipped"}');
  assert.deepEqual(res.structuredContent, { id: "1234", status: "shipped" });
  assert.notEqual(res.isError, true);
});

Deno.test("structuredContent keeps integers beyond 2^53 (parsed losslessly)", async () => {
  const texts = [
    '{"id":12345678901234567890}',
    '{"id":-9007199254740993,"n":[1,2.5]}',
    '{"huge":1e400,"tiny":1e-400}',
    '{"safe":1234567890123456,"s":"12345678901234567890"}',
  ];
  await using pair = await connected((server) => {
    texts.forEach((text, i) =>
      exportTools(
        server,
        rawTool({
          name: `big_${i}`,
          description: "",
          outputSchema: { type: "object" },
          run: () => text,
        }),
      )
    );
  });
  for (const [i, text] of texts.entries()) {
    const res = await callRaw(pair.client, `big_${i}`);
    assert.equal(onlyText(res), text);
    assert.equal(
      JSON.stringify(res.structuredContent),
      text.replace("1e-400", "0"),
    );
  }
  const safe = (await callRaw(pair.client, "big_3")).structuredContent;
  assert.equal(typeof safe?.safe, "number");
});

Deno.test("an output schema with non-JSON text is the pinned isError result, and no wedge", async () => {
  const liar = rawTool({
    name: "liar",
    description: "",
    outputSchema: { type: "object" },
    run: () => "not json at all",
  });
  await using pair = await pairWith(liar);
  const res = await callRaw(pair.client, "liar", {}, {
    signal: AbortSignal.timeout(30_000),
  });
  assert.equal(res.isError, true);
  assert.equal(
    onlyText(res),
    'tool "liar" advertised an output schema, so its result must be JSON; got non-JSON text',
  );
  assert.equal("structuredContent" in res, false);
});

Deno.test("JSON that is not an object cannot be structuredContent: isError naming its type", async () => {
  await using pair = await connected((server) => {
    for (
      const [name, answer] of [["num", "42"], ["arr", "[1]"], ["nul", "null"], [
        "str",
        '"x"',
      ]]
    ) {
      exportTools(
        server,
        rawTool({
          name,
          description: "",
          outputSchema: { type: "object" },
          run: () => answer,
        }),
      );
    }
  });
  for (
    const [name, kind] of [
      ["num", "number"],
      ["arr", "array"],
      ["nul", "null"],
      ["str", "string"],
    ]
  ) {
    const res = await callRaw(pair.client, name);
    assert.equal(res.isError, true);
    assert.equal(
      onlyText(res),
      `tool "${name}" advertised an output schema, so its result must be a JSON object; got ${kind}`,
    );
  }
});

Deno.test("undecodable arguments, handler errors and thrown values are isError results with weft's texts", async () => {
  const failing = rawTool({
    name: "warehouse",
    description: "",
    run: () => Promise.reject(new Error("warehouse unreachable")),
  });
  const panics = rawTool({
    name: "panic",
    description: "",
    run: () => {
      throw "bang";
    },
  });
  const coded = rawTool({
    name: "coded",
    description: "",
    run: () => Promise.reject(new ToolError("RETRY", "try later")),
  });
  const engine = rawTool({
    name: "engine",
    description: "",
    run: () => {
      throw new TypeError("x is not a function");
    },
  });
  await using pair = await pairWith(
    lookupOrder,
    failing,
    panics,
    coded,
    engine,
  );
  const cases: [string, unknown, string][] = [
    [
      "lookup_order",
      { order_id: 42 },
      'INVALID_INPUT: tool "lookup_order": field "order_id": expected string, got number',
    ],
    [
      "lookup_order",
      {},
      'INVALID_INPUT: tool "lookup_order": missing required field "order_id"',
    ],
    ["warehouse", {}, "warehouse unreachable"],
    ["panic", {}, 'tool "panic" panicked: bang'],
    ["coded", {}, "RETRY: try later"],
    ["engine", {}, 'tool "engine" panicked: TypeError: x is not a function'],
  ];
  for (const [name, args, expected] of cases) {
    const res = await callRaw(pair.client, name, args);
    assert.equal(res.isError, true, name);
    assert.deepEqual(res.content, [{ type: "text", text: expected }], name);
    assert.equal("structuredContent" in res, false);
  }
});

Deno.test("no tool failure is a JSON-RPC error and none takes the server down", async () => {
  const syncThrow = {
    ...mirror("sync"),
    invoke: () => {
      throw "thrown synchronously";
    },
  } as unknown as ToolDef;
  const badString = {
    toString: () => {
      throw new Error("no string");
    },
  };
  const weird = rawTool({
    name: "weird",
    description: "",
    run: () => Promise.reject(badString),
  });
  const notString = rawTool({
    name: "number",
    description: "",
    run: () => 7 as unknown as string,
  });
  await using pair = await pairWith(syncThrow, weird, notString, echo);
  for (const name of ["sync", "weird", "number"]) {
    const res = await callRaw(pair.client, name);
    assert.equal(res.isError, true, name);
    assert.match(onlyText(res), new RegExp(`^tool "${name}" panicked: `));
  }
  assert.equal(
    onlyText(await callRaw(pair.client, "sync")),
    'tool "sync" panicked: thrown synchronously',
  );
  assert.equal(pair.fromServer.some((m) => "error" in m), false);
  assert.equal(
    onlyText(await callRaw(pair.client, "echo", { text: "still up" })),
    "heard: still up",
  );
  assert.equal((await pair.client.listTools()).tools.length, 4);
});

Deno.test("arguments that are not an object are an isError result naming their type, never a JSON-RPC error", async () => {
  let ran = 0;
  const counted = rawTool({
    name: "counted",
    description: "",
    run: () => `ran ${++ran}`,
  });
  await using pair = await pairWith(lookupOrder, counted);
  const cases: [unknown, string][] = [
    [[1], "array"],
    ["x", "string"],
    [5, "number"],
    [true, "boolean"],
  ];
  for (const name of ["lookup_order", "counted"]) {
    for (const [args, kind] of cases) {
      const res = await callRaw(pair.client, name, args);
      assert.deepEqual(res, {
        content: [{
          type: "text",
          text:
            `INVALID_INPUT: tool "${name}": expected object at the top level, got ${kind}`,
        }],
        isError: true,
      }, `${name} ${JSON.stringify(args)}`);
    }
  }
  assert.equal(ran, 0, "the handler never ran");
  assert.equal(pair.fromServer.some((m) => "error" in m), false);
  // null arguments read as missing; the server answers on as before.
  assert.equal(onlyText(await callRaw(pair.client, "counted", null)), "ran 1");
  assert.equal(onlyText(await callRaw(pair.client, "counted", {})), "ran 2");
  assert.deepEqual(
    (await callRaw(pair.client, "lookup_order", { order_id: "A1" }))
      .structuredContent,
    { id: "A1", status: "shipped" },
  );
});

Deno.test("a tools/call without a name is still the SDK's InvalidParams, and an unknown tool with bad arguments is unknown", async () => {
  await using pair = await pairWith(echo);
  await assert.rejects(
    pair.client.request(
      { method: "tools/call", params: { arguments: {} } } as never,
      CallToolResultSchema,
    ),
    (err: unknown) =>
      err instanceof McpError && err.code === ErrorCode.InvalidParams,
  );
  await assert.rejects(
    callRaw(pair.client, "nope", [1]),
    (err: unknown) =>
      err instanceof McpError &&
      err.message === 'MCP error -32602: unknown tool "nope"',
  );
});

Deno.test("unknown tool: a protocol error, InvalidParams (-32602), as the MCP spec asks", async () => {
  await using pair = await pairWith(echo);
  await assert.rejects(
    callRaw(pair.client, "nope"),
    (err: unknown) =>
      err instanceof McpError && err.code === ErrorCode.InvalidParams &&
      err.message === 'MCP error -32602: unknown tool "nope"',
  );
  const wire = pair.fromServer.find((m) => "error" in m) as unknown as {
    error: { code: number; message: string };
  };
  assert.deepEqual(wire.error, {
    code: -32602,
    message: 'unknown tool "nope"',
  });
});

Deno.test("the client's cancellation aborts the tool's signal and the client's call fails", async () => {
  const started = Promise.withResolvers<void>();
  const observed = Promise.withResolvers<unknown>();
  const waits = rawTool({
    name: "waits",
    description: "",
    run: (_args, ctx) => {
      started.resolve();
      return new Promise((_resolve, reject) => {
        ctx.signal.addEventListener("abort", () => {
          observed.resolve(ctx.signal.reason);
          reject(ctx.signal.reason);
        });
      });
    },
  });
  await using pair = await pairWith(waits);
  const controller = new AbortController();
  const call = callRaw(pair.client, "waits", {}, { signal: controller.signal });
  await started.promise;
  controller.abort(new Error("user gave up"));
  await assert.rejects(call);
  const reason = await observed.promise;
  assert.notEqual(reason, undefined);
  // The aborted request is never answered: no response, no isError result.
  await quietFor(10, "the aborted request is never answered");
  assert.equal(
    pair.fromServer.filter((m) => "result" in m || "error" in m).length,
    1,
  ); // initialize only
});

Deno.test("the client's deadline (request timeout) cancels the handler", async () => {
  const observed = Promise.withResolvers<boolean>();
  const waits = rawTool({
    name: "waits",
    description: "",
    run: (_args, ctx) =>
      new Promise((_resolve, reject) => {
        ctx.signal.addEventListener("abort", () => {
          observed.resolve(ctx.signal.aborted);
          reject(ctx.signal.reason);
        });
      }),
  });
  await using pair = await pairWith(waits);
  await assert.rejects(
    pair.client.callTool({ name: "waits", arguments: {} }, undefined, {
      timeout: 30,
    }),
    (err: unknown) =>
      err instanceof McpError && err.code === ErrorCode.RequestTimeout,
  );
  assert.equal(await observed.promise, true);
});
