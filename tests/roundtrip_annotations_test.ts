/**
 * The other half of the round trip: a weft tool says what it is and returns
 * more than text. Annotations reach the SDK client's `tools/list`; a
 * read-only tool exported and imported back runs in parallel in the loop,
 * any other sequentially; an image result crosses export → import whole
 * (and on again, when the imported tool is exported once more); a spread
 * copy of a typed tool exports the same; `invoke` on an object and on its
 * text agree. In-memory SDK transports throughout.
 */

import assert from "node:assert/strict";
import { z } from "zod";
import { Agent } from "../src/core/agent.ts";
import { content, image } from "../src/core/content.ts";
import type { ToolResultPart } from "../src/core/messages.ts";
import {
  rawTool,
  tool,
  type ToolDef,
  type ToolResult,
} from "../src/core/tool.ts";
import { exportTools } from "../src/bridge/export.ts";
import { serveAgent } from "../src/bridge/serve.ts";
import { importTools } from "../src/bridge/import.ts";
import { callTools, say, script } from "../src/testing/script.ts";
import { callRaw, connected, type Pair } from "./_helpers/export_pair.ts";

function toolResults(
  messages: readonly { role: string; content: readonly { type: string }[] }[],
): ToolResultPart[] {
  return messages.flatMap((m) =>
    m.content.filter((p): p is ToolResultPart => p.type === "tool_result")
  );
}

/** Exports `tools` on a fresh server, connects the SDK client, imports them back. */
async function exportedAndImported(
  ...tools: ToolDef[]
): Promise<{ pair: Pair; imported: ToolDef[] }> {
  const pair = await connected((server) => exportTools(server, ...tools));
  const { tools: imported, skipped } = await importTools(pair.client);
  assert.equal(skipped, undefined, skipped?.message);
  return { pair, imported };
}

/**
 * A handler that counts how many of its calls are in flight at once. Each
 * call waits until a second one has started, or until `patience` ms have
 * passed (so a sequential run ends instead of hanging); nothing asserts on
 * time, only on the overlap seen.
 */
function overlapProbe(patience = 300) {
  let inFlight = 0;
  let most = 0;
  let release!: () => void;
  const second = new Promise<void>((resolve) => release = resolve);
  return {
    most: () => most,
    async run(): Promise<string> {
      inFlight++;
      most = Math.max(most, inFlight);
      if (inFlight >= 2) release();
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        second,
        new Promise<void>((resolve) => timer = setTimeout(resolve, patience)),
      ]);
      clearTimeout(timer);
      inFlight--;
      return "seen";
    },
  };
}

Deno.test("annotations and title arrive on the SDK client's tools/list; none when the tool says nothing", async () => {
  const annotations = {
    title: "Look up an order",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  };
  const lookup = tool({
    name: "lookup",
    description: "Look up an order.",
    input: z.object({ id: z.string() }),
    annotations,
    run: ({ id }) => `order ${id}`,
  });
  const wipe = rawTool({
    name: "wipe",
    description: "Wipe the disk.",
    annotations: { destructiveHint: true, openWorldHint: true },
    run: () => "wiped",
  });
  const plain = rawTool({ name: "plain", description: "", run: () => "" });
  assert.deepEqual(lookup.annotations, annotations);
  assert.equal(Object.isFrozen(lookup.annotations), true);
  assert.equal("annotations" in plain, false);
  await using pair = await connected((server) =>
    exportTools(server, lookup, wipe, plain)
  );
  const { tools } = await pair.client.listTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  assert.deepEqual(byName.get("lookup")!.annotations, annotations);
  assert.equal(byName.get("lookup")!.title, "Look up an order");
  assert.deepEqual(byName.get("wipe")!.annotations, {
    destructiveHint: true,
    openWorldHint: true,
  });
  assert.equal("title" in byName.get("wipe")!, false);
  assert.equal("annotations" in byName.get("plain")!, false);
  assert.equal("title" in byName.get("plain")!, false);
});

Deno.test("annotations keep only the MCP fields with their types", () => {
  const odd = rawTool({
    name: "odd",
    description: "",
    annotations: {
      readOnlyHint: "yes",
      title: 7,
      idempotentHint: false,
      extra: true,
    } as never,
    run: () => "",
  });
  assert.deepEqual(odd.annotations, { idempotentHint: false });
  const none = rawTool({
    name: "none",
    description: "",
    annotations: { readOnlyHint: "yes" } as never,
    run: () => "",
  });
  assert.equal(none.annotations, undefined);
});

Deno.test("a read-only weft tool exported and imported back runs in parallel; without the hint, one call at a time", async () => {
  const parallel = overlapProbe();
  const serial = overlapProbe();
  const { pair, imported } = await exportedAndImported(
    tool({
      name: "look",
      description: "Looks.",
      input: z.object({ q: z.string() }),
      annotations: { readOnlyHint: true },
      run: () => parallel.run(),
    }),
    tool({
      name: "touch",
      description: "Touches.",
      input: z.object({ q: z.string() }),
      run: () => serial.run(),
    }),
  );
  await using _ = pair;
  const [look, touch] = imported;
  assert.equal(look.sequential, false);
  assert.equal(look.annotations?.readOnlyHint, true);
  assert.equal(touch.sequential, true);

  const run = async (name: string) => {
    const result = await new Agent(
      script(
        callTools({ name, args: { q: "a" } }, { name, args: { q: "b" } }),
        say("done"),
      ),
      { tools: imported, parallelism: 4 },
    ).generate("go");
    assert.deepEqual(
      toolResults(result.messages).map((r) => [r.content, r.isError]),
      [["seen", false], ["seen", false]],
    );
  };
  await run("look");
  assert.equal(parallel.most(), 2, "the two read-only calls overlapped");
  await run("touch");
  assert.equal(serial.most(), 1, "the two other calls never overlapped");
});

const PNG = new Uint8Array([
  0x89,
  0x50,
  0x4e,
  0x47,
  0x0d,
  0x0a,
  0x1a,
  0x0a,
  0x00,
  0x01,
  0xfe,
  0xff,
]);
const PNG_BASE64 = "iVBORw0KGgoAAf7/";

Deno.test("an image result crosses export → import whole, and on again through a second export", async () => {
  const chart = rawTool({
    name: "chart",
    description: "Draws the chart.",
    run: () => content("the chart:", image(PNG, "image/png")),
  });
  const { pair, imported } = await exportedAndImported(chart);
  await using _ = pair;
  // What the SDK client receives: the items whole.
  const raw = await callRaw(pair.client, "chart", {});
  assert.deepEqual(raw.content, [
    { type: "text", text: "the chart:" },
    { type: "image", data: PNG_BASE64, mimeType: "image/png" },
  ]);
  const sent = raw.content[1] as { data: string };
  assert.deepEqual(
    Uint8Array.from(atob(sent.data), (c) => c.charCodeAt(0)),
    PNG,
  );

  // What the imported tool gives: the markers as text, the items whole.
  let whole: ToolResult | undefined;
  const text = await imported[0].invoke({}, {
    onResult: (result) => whole = result,
  });
  assert.equal(text, "the chart:\n[image image/png, 12 bytes]");
  assert.equal(whole?.text, text);
  assert.deepEqual(whole?.content, raw.content);

  // The imported tool exported again (a proxy) passes the image on.
  await using proxy = await connected((server) =>
    exportTools(server, imported[0])
  );
  const relayed = await callRaw(proxy.client, "chart", {});
  assert.deepEqual(relayed.content, raw.content);
  assert.equal(relayed.isError, undefined);
});

Deno.test("the loop's model reads a content result as the import's markers", async () => {
  const snap = tool({
    name: "snap",
    description: "Takes a picture.",
    input: z.object({}),
    run: () =>
      content(
        image(PNG, "image/png"),
        { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
        {
          type: "resource",
          resource: { uri: "file:///tmp/x", text: "x" },
        },
        { type: "resource_link", uri: "file:///tmp/y", name: "y" },
      ),
  });
  const result = await new Agent(
    script(callTools({ name: "snap" }), say("ok")),
    { tools: [snap] },
  ).generate("go");
  assert.equal(
    toolResults(result.messages)[0].content,
    "[image image/png, 12 bytes]\n[audio audio/wav, 4 bytes]\n[resource file:///tmp/x]\n[resource file:///tmp/y]",
  );
});

Deno.test("a wrapper that rewrites the text wins over the content it was told about", async () => {
  const chart = rawTool({
    name: "chart",
    description: "",
    run: () => content(image(PNG, "image/png")),
  });
  const wrapped: ToolDef = {
    ...chart,
    invoke: async (args, options) =>
      `wrapped: ${await chart.invoke(args, options)}`,
  };
  await using pair = await connected((server) => exportTools(server, wrapped));
  const raw = await callRaw(pair.client, "chart", {});
  assert.deepEqual(raw.content, [
    { type: "text", text: "wrapped: [image image/png, 12 bytes]" },
  ]);
});

Deno.test("a spread copy of a typed tool exports the same; invoke on an object and on its text agree", async () => {
  const order = tool({
    name: "order",
    description: "Looks up an order.",
    input: z.object({ id: z.string(), n: z.number().optional() }),
    output: z.object({ id: z.string(), status: z.string() }),
    run: ({ id }) => ({ id, status: "shipped" }),
  });
  const copy: ToolDef = { ...order };
  for (const args of [{ id: "7" }, { id: 7 }, { n: 1 }]) {
    const settle = (p: Promise<string>) =>
      p.then((t) => t, (e: Error) => `rejected: ${e.message}`);
    const viaText = await settle(order.invoke(JSON.stringify(args)));
    assert.equal(await settle(order.invoke(args)), viaText);
    assert.equal(await settle(copy.invoke(args)), viaText);
  }
  // A bigint argument reads as the JSON text stringifyExact writes for it.
  const big = tool({
    name: "big",
    description: "",
    input: z.object({ n: z.number() }),
    run: ({ n }) => `n=${n}`,
  });
  assert.equal(await big.invoke({ n: 5n }), await big.invoke('{"n":5}'));

  await using original = await connected((server) =>
    exportTools(server, order)
  );
  await using copied = await connected((server) => exportTools(server, copy));
  for (const args of [{ id: "7" }, { id: 7 }]) {
    assert.deepEqual(
      await callRaw(copied.client, "order", args),
      await callRaw(original.client, "order", args),
    );
  }
  const sent = await callRaw(copied.client, "order", { id: "7" });
  assert.deepEqual(sent.structuredContent, { id: "7", status: "shipped" });
});

Deno.test("serveAgent lists its tools' annotations and sends a content result whole, unless middleware rewrote the text", async () => {
  const chart = rawTool({
    name: "chart",
    description: "",
    annotations: { readOnlyHint: true, title: "Chart" },
    run: () => content("chart:", image(PNG, "image/png")),
  });
  const loud = rawTool({
    name: "loud",
    description: "",
    run: () => content(image(PNG, "image/png")),
  });
  const agent = new Agent(script(say("unused")), {
    name: "helper",
    tools: [chart, loud],
    wrapTools: [(next) => async (call, ctx) => {
      const text = await next(call, ctx);
      return call.name === "loud" ? text.toUpperCase() : text;
    }],
  });
  await using pair = await connected((server) =>
    serveAgent(server, agent, "Helps.")
  );
  const { tools } = await pair.client.listTools();
  const listed = tools.find((t) => t.name === "chart")!;
  assert.deepEqual(listed.annotations, { readOnlyHint: true, title: "Chart" });
  assert.equal(listed.title, "Chart");
  assert.equal("annotations" in tools.find((t) => t.name === "loud")!, false);

  assert.deepEqual((await callRaw(pair.client, "chart", {})).content, [
    { type: "text", text: "chart:" },
    { type: "image", data: PNG_BASE64, mimeType: "image/png" },
  ]);
  assert.deepEqual((await callRaw(pair.client, "loud", {})).content, [
    { type: "text", text: "[IMAGE IMAGE/PNG, 12 BYTES]" },
  ]);
});
