/**
 * Both protocol eras on one endpoint, and a server asking for input
 * mid-call. One weft server (`exportTools` + `httpHandler` with sessions)
 * serves on 127.0.0.1; its `book` tool asks the caller which seat. Then:
 *
 * - `connectHttp(url)` finds out the era by itself (2026-07-28: a
 *   `server/discover` probe answered), and an agent calls `book`: the call
 *   parks on `result.pending` with the server's question, and the run
 *   resumes with `answer(...)`;
 * - `connectHttp(url, { protocol: "legacy" })` pins the 2025 era (the
 *   `initialize` handshake and a session), and `importTools`' `onInput`
 *   answers the same question at once.
 *
 *     deno run -A examples/eras.ts
 *
 * Prints each connection's era and each booking.
 *
 * @module
 */

import {
  Agent,
  answer,
  connectHttp,
  exportTools,
  httpHandler,
  importTools,
  Server,
  tool,
} from "../mod.ts";
import { callTools, say, script } from "../testing.ts";
import { z } from "zod";

const book = tool({
  name: "book",
  description: "Books a seat on a flight, asking the traveller which seat.",
  input: z.object({ flight: z.string() }),
  run: async ({ flight }, ctx) => {
    // Absent only where nobody can answer (a plain invoke).
    if (ctx.ask === undefined) return `${flight}: no seat chosen`;
    const seat = await ctx.ask({
      message: `Which seat on ${flight}?`,
      schema: {
        type: "object",
        properties: { seat: { type: "string", default: "12A" } },
      },
    });
    return seat.action === "accept"
      ? `${flight}: seat ${seat.content?.seat} booked`
      : `${flight}: not booked (${seat.action})`;
  },
});

function newServer(): Server {
  const server = new Server({ name: "airline", version: "1.0.0" });
  exportTools(server, book);
  return server;
}

/** What {@link run} saw: each connection's era and each booking. */
export interface ErasReport {
  /** The era `connectHttp` found out by itself. */
  readonly found: string | undefined;
  /** The era pinned with `protocol: "legacy"`. */
  readonly pinned: string | undefined;
  /** The question the parked call carried. */
  readonly question: unknown;
  /** The modern booking, from the resumed run's transcript. */
  readonly modern: string;
  /** The legacy booking, answered by `onInput`. */
  readonly legacy: string;
}

/** Serves, connects both ways, books twice; everything is closed after. */
export async function run(
  signal: AbortSignal = AbortSignal.timeout(30_000),
): Promise<ErasReport> {
  const stop = new AbortController();
  const handler = httpHandler(newServer, { sessions: true });
  const listening = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen() {} },
    handler,
  );
  const url = `http://127.0.0.1:${listening.addr.port}/mcp`;
  try {
    // 1. The era found out: 2026-07-28 here. The call parks; answer resumes.
    await using modern = await connectHttp(url, { signal });
    const imported = await importTools(modern, { signal });
    const agent = new Agent(
      script(
        callTools({ name: "book", args: { flight: "WF 18" } }),
        say("Booked."),
      ),
      { tools: imported.tools },
    );
    const parked = await agent.generate("Book WF 18.", { signal });
    const pending = parked.pending[0];
    // The server's requests, by a key of its choosing: one elicitation here.
    const [request] = Object.values(pending?.input?.requests ?? {});
    const question = request?.method === "elicitation/create"
      ? request.params.message
      : request;
    const done = await agent.generate(parked.messages, {
      signal,
      decisions: [
        answer(pending, { action: "accept", content: { seat: "3C" } }),
      ],
    });
    const booked = done.messages.flatMap((m) =>
      m.role === "tool" ? m.content.map((p) => JSON.stringify(p)) : []
    ).join(" ");

    // 2. The era pinned: 2025-11-25, answered at once by onInput.
    await using legacy = await connectHttp(url, { signal, protocol: "legacy" });
    const legacyTools = await importTools(legacy, {
      signal,
      onInput: () => ({ action: "accept", content: { seat: "7F" } }),
    });
    const legacyBooking = await legacyTools.tools[0].invoke(
      JSON.stringify({ flight: "WF 25" }),
      { signal },
    );
    return {
      found: modern.getProtocolEra()?.era,
      pinned: legacy.getProtocolEra()?.era,
      question,
      modern: /WF 18: seat \w+ booked/.exec(booked)?.[0] ?? booked,
      legacy: String(legacyBooking),
    };
  } finally {
    await handler.close();
    stop.abort();
    await listening.finished;
  }
}

if (import.meta.main) {
  const report = await run();
  console.log(`found by itself: ${report.found}`);
  console.log(`pinned:          ${report.pinned}`);
  console.log(`asked:           ${report.question}`);
  console.log(`modern booking:  ${report.modern}`);
  console.log(`legacy booking:  ${report.legacy}`);
}
