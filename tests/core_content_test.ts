/**
 * The core's content results and argument forms: `content`, `image`,
 * `audio`, the brand that tells a content result from data, the markers
 * the loop reads (the same function the import's `renderContent` uses), and
 * `invoke` on an object reading as the JSON text `stringifyExact` writes.
 */

import assert from "node:assert/strict";
import { z } from "zod";
import { Agent } from "../src/core/agent.ts";
import {
  audio,
  base64DecodedLength,
  content,
  image,
  isToolContent,
  renderContentItems,
} from "../src/core/content.ts";
import { rawTool, tool, type ToolResult } from "../src/core/tool.ts";
import { exportTools } from "../src/bridge/export.ts";
import { importTools } from "../src/bridge/import.ts";
import { renderContent } from "../src/bridge/render.ts";
import { say, script } from "../src/testing/script.ts";
import { connected } from "./_helpers/export_pair.ts";

Deno.test("content: strings become text items; the result is frozen and branded", () => {
  const result = content("one", { type: "resource_link", uri: "u", name: "n" });
  assert.deepEqual(result.items, [
    { type: "text", text: "one" },
    { type: "resource_link", uri: "u", name: "n" },
  ]);
  assert.equal(Object.isFrozen(result), true);
  assert.equal(Object.isFrozen(result.items), true);
  assert.equal(isToolContent(result), true);
  // A look-alike is data, not a content result.
  assert.equal(isToolContent({ items: [] }), false);
  assert.equal(isToolContent({ ...result }), false);
  assert.throws(
    () => content(42 as never),
    (err) =>
      err instanceof TypeError &&
      err.message.startsWith(
        "weft: content: each item must be a string or a content item",
      ),
  );
});

Deno.test("image and audio base64-encode bytes (large ones too) and keep base64 text as given", () => {
  const bytes = new Uint8Array(100_000);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7) & 0xff;
  const item = image(bytes, "image/png");
  assert.equal(item.type, "image");
  assert.equal(base64DecodedLength(item.data), 100_000);
  assert.deepEqual(
    Uint8Array.from(atob(item.data), (c) => c.charCodeAt(0)),
    bytes,
  );
  assert.deepEqual(audio("UklGRg==", "audio/wav"), {
    type: "audio",
    data: "UklGRg==",
    mimeType: "audio/wav",
  });
});

Deno.test("the core's markers are the import's: one function renders both", () => {
  const items = [
    { type: "text", text: "t" },
    { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
    { type: "audio", mimeType: "audio/wav", data: "UklGRg==" },
    { type: "resource", resource: { uri: "file:///x", text: "x" } },
    { type: "resource_link", uri: "file:///y", name: "y" },
    { type: "hologram" },
  ];
  const expected =
    "t\n[image image/png, 8 bytes]\n[audio audio/wav, 4 bytes]\n[resource file:///x]\n[resource file:///y]\n[content]";
  assert.equal(renderContentItems(items), expected);
  assert.equal(renderContent({ content: items }), expected);
  assert.equal(renderContentItems([]), "");
});

Deno.test("a typed tool's data that looks like a content result stays data", async () => {
  const t = tool({
    name: "t",
    description: "",
    input: z.object({}),
    run: () => ({ items: [{ type: "text", text: "x" }] }),
  });
  let whole: ToolResult | undefined;
  assert.equal(
    await t.invoke({}, { onResult: (r) => whole = r }),
    '{"items":[{"type":"text","text":"x"}]}',
  );
  assert.equal(whole?.content, undefined);
  assert.deepEqual(whole?.structured, { items: [{ type: "text", text: "x" }] });
});

Deno.test("invoke on an object: an array or a scalar is refused as its text would be; missing means {}", async () => {
  const t = tool({
    name: "t",
    description: "",
    input: z.object({ q: z.string().optional() }),
    run: (input) => input,
  });
  await assert.rejects(
    t.invoke([1] as never),
    {
      message:
        'INVALID_INPUT: tool "t": expected object at the top level, got array',
    },
  );
  assert.equal(await t.invoke(undefined as never), "{}");
  // A Date reads as its JSON text: a string.
  const when = tool({
    name: "when",
    description: "",
    input: z.object({ at: z.string() }),
    run: ({ at }) => at,
  });
  assert.equal(
    await when.invoke({ at: new Date(0) as unknown as string }),
    "1970-01-01T00:00:00.000Z",
  );
});

Deno.test("a raw tool gets an object as its JSON text; a content result is its markers, the items through onResult", async () => {
  const seen: string[] = [];
  const raw = rawTool({
    name: "raw",
    description: "",
    run: (args) => {
      seen.push(args);
      return content("ok", image(new Uint8Array([1, 2]), "image/gif"));
    },
  });
  let whole: ToolResult | undefined;
  const text = await raw.invoke(
    { n: 12345678901234567890n, s: "<&>" },
    { onResult: (r) => whole = r },
  );
  assert.deepEqual(seen, ['{"n":12345678901234567890,"s":"<&>"}']);
  assert.equal(text, "ok\n[image image/gif, 2 bytes]");
  assert.deepEqual(whole, {
    text,
    content: [
      { type: "text", text: "ok" },
      { type: "image", data: "AQI=", mimeType: "image/gif" },
    ],
  });
});

Deno.test("an imported tool invoked with an object keeps a bigint's digits on the way to the server", async () => {
  const seen: string[] = [];
  const echo = rawTool({
    name: "echo",
    description: "",
    run: (args) => (seen.push(args), "ok"),
  });
  await using pair = await connected((server) => exportTools(server, echo));
  const { tools } = await importTools(pair.client);
  await tools[0].invoke({ id: 12345678901234567890n });
  await tools[0].invoke({ id: 1, tag: "x" });
  assert.deepEqual(seen, [
    '{"id":12345678901234567890}',
    '{"id":1,"tag":"x"}',
  ]);
});

Deno.test("Agent.callTool takes an object too: middleware sees its JSON text, the tool the same result", async () => {
  const seen: string[] = [];
  const t = tool({
    name: "t",
    description: "",
    input: z.object({ q: z.string() }),
    run: ({ q }) => `q=${q}`,
  });
  const agent = new Agent(script(say("unused")), {
    tools: [t],
    wrapTools: [
      (next) => (call, ctx) => (seen.push(call.args), next(call, ctx)),
    ],
  });
  assert.equal(await agent.callTool("t", { q: "x" }), "q=x");
  assert.equal(await agent.callTool("t", '{"q":"x"}'), "q=x");
  assert.deepEqual(seen, ['{"q":"x"}', '{"q":"x"}']);
});
