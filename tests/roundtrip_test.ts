/**
 * The round-trip property (go-mcp §4, "checkable property 3"): a weft tool
 * exported with exportTools and imported back with importTools keeps its
 * schema document and answers identically. Beyond Go: integers beyond 2^53 —
 * in arguments, in structuredContent, in a schema — arrive with every digit
 * over the in-memory transport.
 */

import assert from "node:assert/strict";
import { z } from "zod";
import { Client } from "@modelcontextprotocol/sdk/client";
import { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { rawTool, tool, type ToolDef } from "../src/core/tool.ts";
import { exportTools } from "../src/bridge/export.ts";
import { importTools } from "../src/bridge/import.ts";
import { assertJsonEqual } from "./_helpers/json_equal.ts";

const lookupOrder = tool({
  name: "lookup_order",
  description: "Look up an order by ID.",
  input: z.object({
    order_id: z.string().describe("the order to look up"),
    verbose: z.boolean().optional(),
  }),
  output: z.record(z.string(), z.string()),
  run: ({ order_id }) => ({ id: order_id, status: "shipped" }),
});

const parseInvoice = rawTool({
  name: "parse_invoice",
  description: "Parse an invoice.",
  inputSchema:
    '{"type":"object","properties":{"uri":{"type":"string","pattern":"^https://"}},"required":["uri"]}',
  run: (args) => "parsed " + args,
});

const echoId = rawTool({
  name: "echo_id",
  description: "Echo the arguments.",
  inputSchema:
    '{"type":"object","properties":{"id":{"type":"integer","maximum":9007199254740993}}}',
  run: (args) => args,
});

const bigRecord = rawTool({
  name: "big_record",
  description: "A record with a large id.",
  outputSchema: { type: "object", properties: { id: { type: "integer" } } },
  run: () => '{"id":12345678901234567890,"name":"x"}',
});

async function roundTrip(
  ...tools: ToolDef[]
): Promise<{ imported: Map<string, ToolDef>; client: Client }> {
  const server = new Server({ name: "roundtrip", version: "0" });
  exportTools(server, ...tools);
  const [clientTransport, serverTransport] = InMemoryTransport
    .createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: "roundtrip-client", version: "0" });
  await client.connect(clientTransport);
  const { tools: imported, skipped } = await importTools(client);
  assert.equal(skipped, undefined, skipped?.message);
  return { imported: new Map(imported.map((t) => [t.name, t])), client };
}

/** The schema as its JSON text decoded again: what the comparison sees (P-9). */
function doc(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema));
}

Deno.test("round trip: schemas kept and answers identical (TestRoundTripIsLossless)", async () => {
  const { imported, client } = await roundTrip(lookupOrder, parseInvoice);
  try {
    const cases: [ToolDef, string, string][] = [
      [
        lookupOrder,
        '{"order_id":"1234","extra":"ignored"}',
        '{"id":"1234","status":"shipped"}',
      ],
      [
        parseInvoice,
        '{"uri":"https://x/i.pdf"}',
        'parsed {"uri":"https://x/i.pdf"}',
      ],
    ];
    for (const [original, args, expected] of cases) {
      const back = imported.get(original.name);
      assert.ok(back, `${original.name} was imported under its own name`);
      assertJsonEqual(
        doc(back.inputSchema),
        doc(original.inputSchema),
        original.name,
      );
      const [mine, theirs] = await Promise.all([
        original.invoke(args),
        back.invoke(args),
      ]);
      assert.equal(mine, expected);
      assert.equal(theirs, mine);
    }
    assertJsonEqual(
      doc(imported.get("lookup_order")!.outputSchema),
      doc(lookupOrder.outputSchema),
    );
    assert.equal(
      JSON.stringify(imported.get("parse_invoice")!.inputSchema),
      JSON.stringify(parseInvoice.inputSchema),
    );
  } finally {
    await client.close();
  }
});

Deno.test("round trip (beyond Go): integers beyond 2^53 keep every digit in arguments, structuredContent and schemas", async () => {
  const { imported, client } = await roundTrip(echoId, bigRecord);
  try {
    const args = '{"id":12345678901234567890}';
    assert.equal(await echoId.invoke(args), args);
    assert.equal(await imported.get("echo_id")!.invoke(args), args);
    assert.equal(
      await imported.get("big_record")!.invoke("{}"),
      '{"id":12345678901234567890,"name":"x"}',
    );
    assert.match(
      JSON.stringify(imported.get("echo_id")!.inputSchema),
      /"maximum":9007199254740993/,
    );
  } finally {
    await client.close();
  }
});
