/**
 * The provider tests' MCP side: the tools of `tests/fixtures/provider_tools.ts`
 * exported on a real SDK server with `exportTools` and imported back with
 * `importTools`, in memory (the SDK's `InMemoryTransport`) or over stdio
 * (`connectStdio` to `provider_tools_server.ts`, a child process). And
 * `failure`, the `RunError` a run that must fail rejects with, and
 * `abortMidStream`, the abort check every provider runs.
 */

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Agent } from "../../src/core/agent.ts";
import type { RunEvent } from "../../src/core/events.ts";
import type { Model } from "../../src/core/model.ts";
import { RunError } from "../../src/core/run.ts";
import type { ToolDef } from "../../src/core/tool.ts";
import { importTools } from "../../src/bridge/import.ts";
import { connectStdio } from "../../src/runtime/process/connect_stdio.ts";
import { newProviderToolServer } from "../fixtures/provider_tools.ts";
import type { ReplayFetch } from "./provider_replay.ts";

/** Imported tools and the connection they run over. */
export interface ImportedTools extends AsyncDisposable {
  readonly tools: ToolDef[];
}

/** The tools imported from an in-memory server. */
export async function inMemoryTools(): Promise<ImportedTools> {
  const server = newProviderToolServer();
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  const client = new Client({ name: "provider-test", version: "0" });
  await client.connect(clientEnd);
  const { tools } = await importTools(client);
  return {
    tools,
    async [Symbol.asyncDispose]() {
      await client.close();
    },
  };
}

const SERVER = new URL("../fixtures/provider_tools_server.ts", import.meta.url);

/** The tools imported from a child process over stdio. */
export async function stdioTools(): Promise<ImportedTools> {
  const client = await connectStdio(Deno.execPath(), {
    args: ["run", "-A", SERVER.pathname],
  });
  const { tools } = await importTools(client);
  return {
    tools,
    async [Symbol.asyncDispose]() {
      await client[Symbol.asyncDispose]();
    },
  };
}

/** The `RunError` `promise` rejects with; fails the test when it resolves or rejects with anything else. */
export async function failure(promise: Promise<unknown>): Promise<RunError> {
  const err = await promise.then(
    () => assert.fail("the run should have failed"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof RunError, String(err));
  return err;
}

/**
 * Runs `model` until its first response stalls (`stallAfter`), aborts the
 * run, and checks that the run fails with the signal's reason as its cause
 * and that the abort reached the provider's `fetch`.
 */
export async function abortMidStream(
  model: Model,
  replay: ReplayFetch,
  onEvent?: (event: RunEvent) => void,
): Promise<void> {
  const controller = new AbortController();
  const run = new Agent(model).generate("hi", {
    signal: controller.signal,
    onEvent,
  });
  await replay.stalled(0);
  const reason = new Error("user cancelled");
  controller.abort(reason);
  const err = await failure(run);
  assert.equal(err.cause, reason);
  assert.equal(replay.requests[0].signal?.aborted, true);
}
