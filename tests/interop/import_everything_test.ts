/**
 * importTools against a real server process: the MCP reference server
 * `@modelcontextprotocol/server-everything` (pinned in tests/interop/deno.json), spawned
 * over stdio with the SDK's `StdioClientTransport`. It runs from what
 * `deno install` put in node_modules (`--cached-only`: no network).
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { importTools, RemoteToolError, type ToolDef } from "../../mod.ts";
import { assertJsonEqual } from "../_helpers/json_equal.ts";

const repoRoot = new URL("../..", import.meta.url).pathname;
// tests/interop's import map and lock hold the server; without `--config`
// the child would resolve it through the root deno.json and write it into
// the root lock.
const config = new URL("./deno.json", import.meta.url).pathname;
const everything = "npm:@modelcontextprotocol/server-everything@2026.8.31";

function childEnv(): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1" };
  for (const key of ["DENO_DIR", "HOME", "PATH", "XDG_CACHE_HOME"]) {
    const value = Deno.env.get(key);
    if (value !== undefined) env[key] = value;
  }
  return env;
}

async function connectEverything(): Promise<
  { client: Client; transport: StdioClientTransport }
> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [
      "run",
      "--config",
      config,
      "--cached-only",
      "--quiet",
      "-A",
      everything,
      "stdio",
    ],
    cwd: repoRoot,
    env: childEnv(),
    stderr: "ignore",
  });
  const client = new Client({ name: "weft-importer", version: "0" });
  await client.connect(transport);
  return { client, transport };
}

function byName(tools: ToolDef[], name: string): ToolDef {
  const found = tools.find((t) => t.name === name);
  assert.ok(
    found,
    `no tool ${name} among ${tools.map((t) => t.name).join(", ")}`,
  );
  return found;
}

Deno.test("server-everything: every tool imports, calls render, annotations drive sequencing", async (t) => {
  const { client, transport } = await connectEverything();
  const pid = transport.pid;
  assert.equal(typeof pid, "number");
  let exited = false;
  try {
    const { tools, skipped } = await importTools(client, {
      signal: AbortSignal.timeout(20_000),
    });
    const raw = await client.request({ method: "tools/list" }, ResultSchema);
    const listed = raw.tools as {
      name: string;
      inputSchema: unknown;
      annotations?: { readOnlyHint?: unknown };
    }[];

    await t.step(
      "every listed tool imports, its schema the server's document",
      () => {
        assert.equal(skipped, undefined, skipped?.message);
        assert.ok(listed.length >= 10, `${listed.length} tools`);
        assert.deepEqual(tools.map((x) => x.name), listed.map((x) => x.name));
        for (const entry of listed) {
          assertJsonEqual(
            JSON.parse(JSON.stringify(byName(tools, entry.name).inputSchema)),
            entry.inputSchema,
            entry.name,
          );
        }
      },
    );

    await t.step(
      "readOnlyHint true runs in parallel, every other tool is sequential",
      () => {
        for (const entry of listed) {
          assert.equal(
            byName(tools, entry.name).sequential,
            entry.annotations?.readOnlyHint !== true,
            entry.name,
          );
        }
        assert.ok(
          tools.some((x) => x.sequential) && tools.some((x) => !x.sequential),
          "both kinds present",
        );
        assert.equal(byName(tools, "echo").sequential, false);
        assert.ok(tools.every((x) => x.origin === "mcp"));
      },
    );

    await t.step("echo", async () => {
      assert.equal(
        await byName(tools, "echo").invoke('{"message":"hello"}'),
        "Echo: hello",
      );
    });

    await t.step("get-sum", async () => {
      assert.equal(
        await byName(tools, "get-sum").invoke('{"a":2,"b":3}'),
        "The sum of 2 and 3 is 5.",
      );
    });

    await t.step(
      "get-tiny-image renders a marker with the true byte count",
      async () => {
        const direct = await client.callTool({
          name: "get-tiny-image",
          arguments: {},
        });
        const image = (direct.content as { type: string; data?: string }[])
          .find((c) => c.type === "image");
        const bytes = Buffer.from(image?.data ?? "", "base64").length;
        assert.ok(bytes > 0);
        assert.equal(
          await byName(tools, "get-tiny-image").invoke("{}"),
          `Here's the image you requested:\n[image image/png, ${bytes} bytes]\nThe image above is the MCP logo.`,
        );
      },
    );

    await t.step(
      "get-structured-content renders the structured JSON",
      async () => {
        const tool = byName(tools, "get-structured-content");
        assert.ok(tool.outputSchema, "object output schema recorded");
        assert.equal(
          await tool.invoke('{"location":"Chicago"}'),
          '{"temperature":36,"conditions":"Light rain / drizzle","humidity":82}',
        );
      },
    );

    await t.step(
      "a server-side validation failure is an isError result: a RemoteToolError",
      async () => {
        await assert.rejects(
          byName(tools, "get-sum").invoke('{"a":"two"}'),
          (err) => {
            assert.ok(err instanceof RemoteToolError);
            assert.ok(
              err.message.startsWith(
                "MCP error -32602: Input validation error: Invalid arguments for tool get-sum",
              ),
              err.message,
            );
            return true;
          },
        );
      },
    );
  } finally {
    await client.close();
    exited = !isAlive(pid);
  }
  assert.equal(exited, true, "the server process exited");
});

function isAlive(pid: number | null | undefined): boolean {
  if (typeof pid !== "number") return false;
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch {
    return false;
  }
}
