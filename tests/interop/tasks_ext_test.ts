/**
 * `@modelcontextprotocol/ext-tasks` 0.2.2 (the Tasks client, over
 * `@modelcontextprotocol/client` 2.4.0) calling weft's tools as tasks over
 * `httpHandler` on a real listener on 127.0.0.1: in the 2025-11-25 era
 * (`params.task`, `tasks/get`, `tasks/result`) and in the 2026-07-28 era
 * with the `io.modelcontextprotocol/tasks` extension (`resultType: "task"`,
 * `tasks/get` with the questions inline, `tasks/update` answering them,
 * `tasks/cancel`). The package dispatches 2026-07-28 task requests through
 * a raw path of the host's: here a plain `fetch` with the modern headers.
 */

import assert from "node:assert/strict";
import {
  Client,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import {
  createTaskSessionFromClient,
  resultFromTaskOutcome,
  toolDeclarationFromMcpTool,
} from "@modelcontextprotocol/ext-tasks/client";
import { exportTools, httpHandler, rawTool, Server } from "../../mod.ts";
import { serveTasks } from "../../tasks.ts";
import { memoryStore } from "../../store.ts";
import { latch } from "../_helpers/wait.ts";

const MODERN = "2026-07-28";

const deploy = rawTool({
  name: "deploy",
  description: "Deploys after asking where.",
  taskSupport: "optional",
  run: async (_args, ctx) => {
    const where = await ctx.ask!({
      message: "Which region?",
      schema: { type: "object", properties: { region: { type: "string" } } },
    });
    return `deployed to ${where.content?.region}`;
  },
});

/** Opened by the test once it holds the build's task: the build ends then. */
const buildMayEnd = latch();

const build = rawTool({
  name: "build",
  description: "Builds.",
  taskSupport: "required",
  run: async (args) => {
    await buildMayEnd.promise;
    return `built ${args}`;
  },
});

/** A tool that waits until cancelled; a fresh one per test. */
function waiter() {
  let started!: () => void;
  let aborted!: (reason: Error | undefined) => void;
  const state = {
    started: new Promise<void>((r) => started = r),
    aborted: new Promise<Error | undefined>((r) => aborted = r),
    tool: rawTool({
      name: "wait",
      description: "Waits until cancelled.",
      taskSupport: "optional",
      run: (_args, ctx) => {
        started();
        return new Promise<string>((_, reject) => {
          ctx.signal?.addEventListener("abort", () => {
            aborted(ctx.signal?.reason);
            reject(ctx.signal?.reason);
          });
        });
      },
    }),
  };
  return state;
}

function endpoint(
  wait: ReturnType<typeof waiter>,
): { url: URL } & AsyncDisposable {
  const store = memoryStore();
  const handler = httpHandler(() => {
    const server = new Server({ name: "tasks", version: "1" });
    exportTools(server, deploy, build, wait.tool);
    serveTasks(server, { store, pollIntervalMs: 20 });
    return server;
  }, { sessions: true, store });
  const listener = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    handler,
  );
  return {
    url: new URL(`http://127.0.0.1:${listener.addr.port}/mcp`),
    [Symbol.asyncDispose]: async () => {
      await handler.close();
      await listener.shutdown();
      await store.close();
    },
  };
}

type Json = null | boolean | number | string | Json[] | {
  [key: string]: Json;
};

/** The raw 2026-07-28 path: one POST with the modern headers, JSON or SSE back. */
function rawDispatch(url: URL) {
  let next = 1;
  return async (
    request: Json,
    options?: {
      signal?: AbortSignal;
      context?: { headers?: Readonly<Record<string, string>> };
    },
  ): Promise<
    | { kind: "result"; result: Json }
    | { kind: "error"; error: { code: number; message: string } }
  > => {
    const body: Record<string, Json> = {
      ...(request as Record<string, Json>),
      jsonrpc: "2.0",
      id: next++,
    };
    const method = String(body.method);
    const params = (body.params ?? {}) as Record<string, Json>;
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
      ...(options?.context?.headers ?? {}),
    };
    if (method === "tools/call") headers["mcp-name"] = String(params.name);
    const response = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      signal: options?.signal,
    });
    const text = await response.text();
    const json = response.headers.get("content-type")?.includes(
        "text/event-stream",
      )
      ? JSON.parse(
        text.split("\n").filter((l) => l.startsWith("data:")).map((l) =>
          l.slice(5)
        ).filter((l) => l.trim() !== "").at(-1)!,
      )
      : JSON.parse(text);
    return json.error !== undefined
      ? { kind: "error", error: json.error }
      : { kind: "result", result: json.result };
  };
}

for (const mode of ["legacy", "auto"] as const) {
  const era = mode === "legacy" ? "2025-11-25" : MODERN;
  Deno.test(`ext-tasks (${era}): tools run as tasks, ask through the package, and cancel`, async () => {
    const waiting = waiter();
    await using served = endpoint(waiting);
    const client = new Client({ name: "ext-tasks", version: "0.2.2" }, {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode },
    });
    await client.connect(new StreamableHTTPClientTransport(served.url));
    const modern = client.getProtocolEra() === "modern";
    assert.equal(modern, mode === "auto");
    const { tools } = await client.listTools();
    const session = createTaskSessionFromClient(
      client,
      {
        endpointId: "weft",
        ...(modern
          ? {
            rawDispatch: rawDispatch(served.url),
            v2RequestFraming: {
              protocolVersion: MODERN,
              clientInfo: { name: "ext-tasks", version: "0.2.2" },
              clientCapabilities: { elicitation: { form: {} } },
            },
          }
          : {}),
        onInputRequest: (request: { kind: string; params?: unknown }) => {
          assert.equal(request.kind, "elicitation");
          return Promise.resolve({
            action: "accept",
            content: { region: "eu" },
          });
        },
      } as Parameters<typeof createTaskSessionFromClient>[1],
    );
    try {
      const declaration = toolDeclarationFromMcpTool(
        tools.find((t) => t.name === "build")!,
      );
      const execution = await session.callTool("build", { n: 1 }, {
        declaration,
        task: { preference: "require" },
      });
      assert.equal(execution.kind, "task");
      // The task came back before its outcome: now the build ends.
      buildMayEnd.open();
      const { outcome, lastTask } = await execution.settle();
      assert.equal(lastTask?.status, "completed");
      const result = resultFromTaskOutcome(outcome) as {
        content: { text: string }[];
      };
      assert.equal(result.content[0].text, 'built {"n":1}');

      const asking = await session.callTool("deploy", {}, {
        declaration: toolDeclarationFromMcpTool(
          tools.find((t) => t.name === "deploy")!,
        ),
        task: { preference: "require" },
      });
      assert.equal(asking.kind, "task");
      const asked = await asking.settle();
      const answered = resultFromTaskOutcome(asked.outcome) as {
        content: { text: string }[];
      };
      assert.equal(answered.content[0].text, "deployed to eu");

      // Cancelled through the package: the tool's signal aborts.
      const slow = await session.callTool("wait", {}, {
        declaration: toolDeclarationFromMcpTool(
          tools.find((t) => t.name === "wait")!,
        ),
        task: { preference: "require" },
      });
      assert.equal(slow.kind, "task");
      await waiting.started;
      await slow.cancel();
      assert.equal((await waiting.aborted)?.name, "TaskCancelledError");
      const { outcome: ended } = await slow.settle();
      assert.equal(ended.status, "cancelled");
    } finally {
      await session.close();
      await client.close();
    }
  });
}
