/**
 * connectServers with a server that asks for input mid-call, over real
 * HTTP on 127.0.0.1 (a weft endpoint whose tool uses `ctx.ask`, with
 * sessions), in both eras (2025: `elicitation/create` on the live
 * connection; 2026-07-28: `input_required` and a retry): `onInput` answers
 * at once; without it the call parks in the agent run and `answer` resumes
 * it.
 */

import assert from "node:assert/strict";
import {
  Agent,
  answer,
  connectServers,
  exportTools,
  httpHandler,
  rawTool,
  Server,
} from "../mod.ts";
import { callTools, say, script } from "../testing.ts";

// Built once, outside the per-request factory: its requestState key is the
// definition's, so every request's server verifies the states it issued.
const greet = rawTool({
  name: "greet",
  description: "Greets someone after asking whom.",
  run: async (_args, ctx) => {
    const who = await ctx.ask!({
      message: "Whom?",
      schema: {
        type: "object",
        properties: { name: { type: "string", default: "World" } },
      },
    });
    return who.action === "accept"
      ? `hello ${who.content?.name}`
      : `no greeting (${who.action})`;
  },
});

function asker(): Server {
  const server = new Server({ name: "asker", version: "1.0.0" });
  exportTools(server, greet);
  return server;
}

function serve(sessions = true): { url: string } & AsyncDisposable {
  const stop = new AbortController();
  const handler = httpHandler(asker, { sessions });
  const listening = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: stop.signal,
    onListen: () => {},
  }, handler);
  return {
    url: `http://127.0.0.1:${listening.addr.port}/mcp`,
    [Symbol.asyncDispose]: async () => {
      await handler.close();
      stop.abort();
      await listening.finished;
    },
  };
}

for (const protocol of ["legacy", "modern"] as const) {
  Deno.test(`connectServers: onInput answers a server's elicitation during a call (${protocol})`, async () => {
    await using endpoint = serve();
    await using servers = await connectServers({
      a: { url: endpoint.url, protocol },
    }, {
      signal: AbortSignal.timeout(10_000),
      onInput: () => ({ action: "accept", content: {} }),
    });
    assert.equal(servers.error, undefined);
    const greet = servers.tools.find((t) => t.name === "a_greet")!;
    assert.equal(
      await greet.invoke("{}", { signal: AbortSignal.timeout(10_000) }),
      "hello World",
    );
  });

  Deno.test(`connectServers: without onInput the call parks in the run and answer resumes it (${protocol})`, async () => {
    await using endpoint = serve();
    await using servers = await connectServers({
      a: { url: endpoint.url, protocol },
    }, {
      signal: AbortSignal.timeout(10_000),
    });
    const agent = new Agent(
      script(callTools({ name: "a_greet", args: {} }), say("Greeted.")),
      { toolSource: () => servers.tools },
    );
    const parked = await agent.generate("Greet.", {
      signal: AbortSignal.timeout(10_000),
    });
    const input = parked.pending[0]?.input;
    assert.equal(input?.server, "asker");
    assert.equal(input?.tool, "greet");
    // One request, under a key of the server's choosing.
    const requests = Object.values(input?.requests ?? {});
    assert.equal(requests.length, 1);
    assert.equal(
      requests[0].method === "elicitation/create" && requests[0].params.message,
      "Whom?",
    );
    const done = await agent.generate(parked.messages, {
      signal: AbortSignal.timeout(10_000),
      decisions: [
        answer(parked.pending[0], {
          action: "accept",
          content: { name: "Ada" },
        }),
      ],
    });
    assert.equal(done.text, "Greeted.");
    assert.match(JSON.stringify(done.messages), /hello Ada/);
  });
}

Deno.test("stateless httpHandler: a 2025 caller's ask fails at once, naming sessions", async () => {
  await using endpoint = serve(false);
  await using servers = await connectServers({
    a: { url: endpoint.url, protocol: "legacy" },
  }, {
    signal: AbortSignal.timeout(10_000),
    onInput: () => ({ action: "accept", content: {} }),
  });
  const greet = servers.tools.find((t) => t.name === "a_greet")!;
  await assert.rejects(
    greet.invoke("{}", { signal: AbortSignal.timeout(10_000) }),
    (err: Error) => {
      assert.equal(
        err.message,
        'tool "greet" asked for input, but no session carries the client\'s answer (a 2025 client served statelessly); serve with sessions to ask such clients',
      );
      return true;
    },
  );
});
