/**
 * Rendering remote results to text (go-mcp §1.9, P-6; the render table).
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { importTools } from "../mod.ts";
import { renderContent } from "../bridge.ts";
import { base64DecodedLength } from "../src/core/content.ts";
import { entry, listedServer, rawPeer } from "./_helpers/mcp_servers.ts";

function base64Of(size: number): string {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + 7) & 0xff;
  return Buffer.from(bytes).toString("base64");
}

const image9 = { type: "image", mimeType: "image/png", data: base64Of(9) };
const resource = {
  type: "resource",
  resource: { uri: "file:///tmp/x", text: "x" },
};
const link = { type: "resource_link", uri: "file:///tmp/y", name: "y" };

Deno.test("render: structuredContent (non-null) is its compact JSON, whatever content holds", () => {
  assert.equal(
    renderContent({
      content: [{ type: "text", text: '{"a":1}' }],
      structuredContent: { a: 1 },
    }),
    '{"a":1}',
  );
  assert.equal(
    renderContent({
      content: [{ type: "text", text: "ignored" }],
      structuredContent: { z: [1, { b: "<&>" }], a: null },
    }),
    '{"z":[1,{"b":"<&>"}],"a":null}',
  );
  assert.equal(
    renderContent({
      content: [{ type: "text", text: "shown" }],
      structuredContent: null,
    }),
    "shown",
  );
  assert.equal(renderContent({ structuredContent: [1, 2] }), "[1,2]");
});

Deno.test("render: text items verbatim; several items one per line, no trailing newline", () => {
  assert.equal(
    renderContent({ content: [{ type: "text", text: "  spaced \n" }] }),
    "  spaced \n",
  );
  assert.equal(
    renderContent({
      content: [{ type: "text", text: "one" }, { type: "text", text: "two" }],
    }),
    "one\ntwo",
  );
});

Deno.test("render: image, audio, resource and link markers", () => {
  assert.equal(
    renderContent({ content: [image9] }),
    "[image image/png, 9 bytes]",
  );
  assert.equal(
    renderContent({
      content: [{
        type: "image",
        mimeType: "image/png",
        data: base64Of(12000),
      }],
    }),
    "[image image/png, 12000 bytes]",
  );
  assert.equal(
    renderContent({
      content: [{ type: "audio", mimeType: "audio/wav", data: base64Of(7) }],
    }),
    "[audio audio/wav, 7 bytes]",
  );
  assert.equal(
    renderContent({ content: [resource] }),
    "[resource file:///tmp/x]",
  );
  assert.equal(
    renderContent({ content: [{ type: "resource" }] }),
    "[resource ]",
  );
  assert.equal(renderContent({ content: [link] }), "[resource file:///tmp/y]");
  assert.equal(
    renderContent({ content: [image9, resource, link] }),
    "[image image/png, 9 bytes]\n[resource file:///tmp/x]\n[resource file:///tmp/y]",
  );
});

Deno.test("render: any other item, or one missing the fields its type needs, is [content]", () => {
  const odd = [
    { type: "video", data: "AAAA" },
    { type: "text", text: 5 },
    { type: "image", data: "AAAA" },
    { type: "audio", mimeType: "audio/wav" },
    { type: "resource_link" },
    null,
    "text",
    {},
  ];
  assert.equal(
    renderContent({ content: odd }),
    Array(odd.length).fill("[content]").join("\n"),
  );
  assert.equal(
    renderContent({ content: [{ type: "resource", resource: { uri: 1 } }] }),
    "[resource ]",
  );
});

Deno.test("render: no content and no structured content is the empty string", () => {
  for (
    const result of [
      {},
      { content: [] },
      { content: "text" },
      { structuredContent: undefined },
      null,
      5,
    ]
  ) {
    assert.equal(renderContent(result), "");
  }
});

Deno.test("render: N is the decoded size, padding-exact, for every padding case", () => {
  for (let size = 0; size <= 64; size++) {
    const padded = base64Of(size);
    const unpadded = padded.replace(/=+$/, "");
    const mime = padded.replace(/(.{76})/g, "$1\r\n");
    for (const data of [padded, unpadded, mime]) {
      assert.equal(base64DecodedLength(data), size, JSON.stringify(data));
    }
  }
});

Deno.test("render: the size survives the wire, both ways of the SDK's JSON text", async () => {
  const payload = base64Of(12000);
  await using s = await listedServer({
    tools: [entry("snap")],
    wire: true,
    call: () => ({
      content: [
        { type: "image", mimeType: "image/png", data: payload },
        { type: "audio", mimeType: "audio/wav", data: base64Of(7) },
      ],
    }),
  });
  const { tools } = await importTools(s.client);
  assert.equal(
    await tools[0].invoke("{}"),
    "[image image/png, 12000 bytes]\n[audio audio/wav, 7 bytes]",
  );
  assert.notEqual(payload.length, 12000);
});

Deno.test("render: shapes the SDK's own server refuses to send render too (raw peer)", async () => {
  await using raw = await rawPeer((method) =>
    method === "tools/list" ? { tools: [entry("odd")] } : {
      content: [{ type: "hologram", data: "x" }, {
        type: "text",
        text: "after",
      }, { type: "resource" }],
    }
  );
  const { tools } = await importTools(raw.client);
  assert.equal(await tools[0].invoke("{}"), "[content]\nafter\n[resource ]");
});

Deno.test("render option: structured JSON (the default), the text items, or both", async () => {
  const answers = [
    // A typical structured answer: a summary line and the data.
    {
      content: [{ type: "text", text: "2 orders" }],
      structuredContent: { orders: [1, 2] },
    },
    // A server that puts the same JSON in its text item (pretty-printed).
    {
      content: [{ type: "text", text: '{ "orders": [1, 2] }' }],
      structuredContent: { orders: [1, 2] },
    },
    // Structured content alone: every mode reads the JSON.
    { content: [], structuredContent: { orders: [] } },
    // No structured content: every mode reads the items.
    {
      content: [{ type: "text", text: "a" }, {
        type: "image",
        mimeType: "image/png",
        data: "iVBORw0KGgo=",
      }],
    },
  ];
  let next = 0;
  await using s = await listedServer({
    tools: [entry("orders")],
    call: () => answers[next++ % answers.length],
  });
  const read = async (render?: "structured" | "text" | "both") => {
    const { tools } = await importTools(s.client, { render });
    next = 0;
    const texts: string[] = [];
    for (let i = 0; i < answers.length; i++) {
      texts.push(await tools[0].invoke({}));
    }
    return texts;
  };
  const image = "a\n[image image/png, 8 bytes]";
  assert.deepEqual(await read(), [
    '{"orders":[1,2]}',
    '{"orders":[1,2]}',
    '{"orders":[]}',
    image,
  ]);
  assert.deepEqual(await read("structured"), await read());
  assert.deepEqual(await read("text"), [
    "2 orders",
    '{ "orders": [1, 2] }',
    '{"orders":[]}',
    image,
  ]);
  assert.deepEqual(await read("both"), [
    '2 orders\n{"orders":[1,2]}',
    '{ "orders": [1, 2] }',
    '{"orders":[]}',
    image,
  ]);
});

Deno.test("render option: an isError result's text follows the same choice", async () => {
  await using s = await listedServer({
    tools: [entry("fails")],
    call: () => ({
      isError: true,
      content: [{ type: "text", text: "no such order" }],
      structuredContent: { code: 404 },
    }),
  });
  const texts: string[] = [];
  for (const render of ["structured", "text", "both"] as const) {
    const { tools } = await importTools(s.client, { render });
    texts.push(await tools[0].invoke({}).catch((e: Error) => e.message));
  }
  assert.deepEqual(texts, [
    '{"code":404}',
    "no such order",
    'no such order\n{"code":404}',
  ]);
});
