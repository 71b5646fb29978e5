/**
 * The server every interop test serves: `examples/server.ts`'s own factory
 * (the `getting-started` agent tool and `lookup_order`, typed with an output
 * schema) plus two test-local tools — `track_shipment`, a raw tool whose
 * foreign input schema uses every keyword family a client might drop or
 * rewrite, and `cancel_order`, which always fails with a pinned text — on
 * 127.0.0.1 through Streamable HTTP.
 */

import type { Server } from "@modelcontextprotocol/sdk/server";
import {
  exportTools,
  httpHandler,
  rawTool,
  type ToolDef,
  ToolError,
} from "../../mod.ts";
import { SUBAGENT_PROMPT_DESCRIPTION } from "../../core.ts";
import {
  lookupOrder,
  newServer as exampleServer,
} from "../../examples/server.ts";

/** The foreign input schema, as a document nobody here generated. */
export const FOREIGN_SCHEMA: Readonly<Record<string, unknown>> = Object.freeze({
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  title: "Shipment query",
  description: "Which parcel to track.",
  properties: {
    carrier: {
      type: "string",
      enum: ["ups", "dhl", "fedex"],
      description: "the carrier",
    },
    tracking: {
      type: "string",
      pattern: "^[A-Z]{2}[0-9]{9}$",
      minLength: 11,
      maxLength: 11,
    },
    destination: {
      oneOf: [
        { $ref: "#/$defs/zip" },
        {
          type: "object",
          properties: {
            country: { type: "string", minLength: 2, maxLength: 2 },
          },
          required: ["country"],
        },
      ],
    },
    weight_kg: {
      type: "number",
      exclusiveMinimum: 0,
      maximum: 70,
      multipleOf: 0.5,
    },
    notify: {
      type: "array",
      items: { type: "string", format: "email" },
      uniqueItems: true,
      maxItems: 3,
    },
    priority: { type: "integer", default: 1, examples: [1, 2] },
    note: { type: ["string", "null"] },
  },
  required: ["carrier", "tracking"],
  additionalProperties: false,
  $defs: {
    zip: {
      type: "object",
      properties: { zip: { type: "string", pattern: "^[0-9]{5}$" } },
      required: ["zip"],
      additionalProperties: false,
    },
  },
  "x-vendor": { kept: true },
});

/** How many calls `track_shipment` has run (in this isolate). */
export const trackCalls = { count: 0 };

/** The raw tool: answers with the parcel it was asked about. */
export const trackShipment: ToolDef = rawTool({
  name: "track_shipment",
  description: "Track a parcel.",
  inputSchema: FOREIGN_SCHEMA as Record<string, unknown>,
  run: (args) => {
    trackCalls.count++;
    const { carrier, tracking } = JSON.parse(args) as Record<string, string>;
    return `${tracking} via ${carrier}: in transit`;
  },
});

/** The failing tool's exact error text, as the model behind any client must see it. */
export const CANCEL_ERROR = 'NOT_CANCELABLE: order "1234" has already shipped';

/** The tool that always fails. */
export const cancelOrder: ToolDef = rawTool({
  name: "cancel_order",
  description: "Cancel an order.",
  inputSchema: {
    type: "object",
    properties: { order_id: { type: "string" } },
    required: ["order_id"],
  },
  run: (args) => {
    const { order_id } = JSON.parse(args) as { order_id: string };
    throw new ToolError(
      "NOT_CANCELABLE",
      `order ${JSON.stringify(order_id)} has already shipped`,
    );
  },
});

/** Every tool the server lists, in listing order. */
export const TOOL_NAMES: readonly string[] = [
  "getting-started",
  "lookup_order",
  "track_shipment",
  "cancel_order",
];

/** The input schema of each tool, as we list it: the documents every client must see whole. */
export const OURS: Readonly<Record<string, Record<string, unknown>>> = Object
  .freeze({
    "getting-started": {
      type: "object",
      properties: {
        prompt: { type: "string", description: SUBAGENT_PROMPT_DESCRIPTION },
      },
      required: ["prompt"],
    },
    lookup_order: rawOf(lookupOrder),
    track_shipment: rawOf(trackShipment),
    cancel_order: rawOf(cancelOrder),
  });

/** `lookup_order`'s output schema as we list it. */
export const LOOKUP_ORDER_OUTPUT: Record<string, unknown> = lookupOrder
  .outputSchema!.raw as Record<
    string,
    unknown
  >;

/** The result every client must get for `lookup_order {"order_id":"5678"}`. */
export const ORDER_TEXT = '{"id":"5678","status":"shipped"}';
/** The agent tool's answer (its scripted model's final text). */
export const AGENT_TEXT = "Order 1234 shipped and is on its way.";
/** `track_shipment`'s answer for ups / AB123456789. */
export const TRACK_TEXT = "AB123456789 via ups: in transit";

function rawOf(tool: ToolDef): Record<string, unknown> {
  return tool.inputSchema!.raw as Record<string, unknown>;
}

/**
 * Runs `fn` with `console[method]` recorded instead of printed (libraries
 * that warn there), and returns what was written, one string per call.
 */
export async function capturing(
  method: "warn" | "error" | "log",
  fn: () => Promise<void>,
): Promise<string[]> {
  const lines: string[] = [];
  const original = console[method];
  console[method] = (...args: unknown[]) =>
    void lines.push(args.map(String).join(" "));
  try {
    await fn();
  } finally {
    console[method] = original;
  }
  return lines;
}

/** The example's server with the two test-local tools added. */
export function interopServer(): Server {
  const server = exampleServer();
  exportTools(server, trackShipment, cancelOrder);
  return server;
}

/** A running listener: its endpoint URL; disposing shuts it down. */
export interface Listener extends AsyncDisposable {
  readonly url: URL;
  /** Every error the handler reported (refusals and internal failures). */
  readonly errors: Error[];
}

/** Serves `interopServer` through `httpHandler` on 127.0.0.1, on a free port. */
export function listen(options: { sessions: boolean }): Listener {
  const errors: Error[] = [];
  const handler = httpHandler(interopServer, {
    sessions: options.sessions,
    onerror: (error) => void errors.push(error),
  });
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
  }, handler);
  const url = new URL(`http://127.0.0.1:${server.addr.port}/mcp`);
  return {
    url,
    errors,
    async [Symbol.asyncDispose]() {
      await handler.close();
      await server.shutdown();
    },
  };
}

/**
 * A result a 2026-07-28 client got from our server, its era stamps checked
 * and set aside: the server's name and version in `_meta`, which the
 * clients that speak that era to us (the AI SDK's, Mastra's) pass through,
 * and `resultType: "complete"`, which the AI SDK's passes through and
 * Mastra's consumes. A result without the server's info, or with another
 * `resultType`, fails.
 */
export function withoutEraStamps(
  result: unknown,
  serverName: string,
): Record<string, unknown> {
  const { resultType, _meta, ...rest } = result as Record<string, unknown>;
  if (resultType !== undefined && resultType !== "complete") {
    throw new Error(`expected resultType "complete", got ${resultType}`);
  }
  const meta = { ...(_meta as Record<string, unknown> | undefined) };
  const info = meta["io.modelcontextprotocol/serverInfo"] as
    | { name?: string }
    | undefined;
  if (info?.name !== serverName) {
    throw new Error(
      `expected the server's info in _meta (${serverName}), got ${
        JSON.stringify(_meta)
      }`,
    );
  }
  delete meta["io.modelcontextprotocol/serverInfo"];
  return Object.keys(meta).length === 0 ? rest : { ...rest, _meta: meta };
}
