/**
 * The import side of resources and prompts over in-memory transports: the
 * list helpers follow cursors and refuse past their limit or on a looping
 * cursor; `importTools`' opt-in `read_resource` tool lists the resources in
 * its description, reads only those, is gated by the approval policy, and
 * its definition is pinned (a changed resource list waits for approval).
 */

import assert from "node:assert/strict";
import { Client, importTools, InMemoryTransport, Server } from "../mod.ts";
import {
  getPrompt,
  ListLimitError,
  listPrompts,
  listResources,
  ListResultError,
  readResource,
} from "../bridge.ts";
import { memoryStore } from "../store.ts";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

interface Docs {
  /** The resources, listed `pageSize` at a time. */
  uris: string[];
  pageSize: number;
  /** A cursor the server gives again and again (a looping server). */
  loop?: boolean;
  reads: string[];
}

/** A server with no tools of its own and `docs.uris` as text resources. */
function docServer(docs: Docs): Server {
  const server = new Server({ name: "docs", version: "1" }, {
    capabilities: { tools: {}, resources: {}, prompts: {} },
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
  server.setRequestHandler(CallToolRequestSchema, () => {
    throw new Error("no tools here");
  });
  server.setRequestHandler(ListResourcesRequestSchema, (request) => {
    const at = Number(request.params?.cursor ?? "0");
    const page = docs.uris.slice(at, at + docs.pageSize);
    const next = at + docs.pageSize;
    return {
      resources: page.map((uri) => ({
        uri,
        name: uri.split("/").pop()!,
        mimeType: "text/plain",
      })),
      ...(docs.loop === true
        ? { nextCursor: "0" }
        : next < docs.uris.length
        ? { nextCursor: String(next) }
        : {}),
    };
  });
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    docs.reads.push(request.params.uri);
    return {
      contents: [{
        uri: request.params.uri,
        mimeType: "text/plain",
        text: `text of ${request.params.uri}`,
      }],
    };
  });
  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: [{ name: "greet", arguments: [{ name: "who", required: true }] }],
  }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => ({
    messages: [{
      role: "user",
      content: { type: "text", text: `hello ${request.params.arguments?.who}` },
    }],
  }));
  return server;
}

async function connected(docs: Docs): Promise<Client & AsyncDisposable> {
  const server = docServer(docs);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "c", version: "1" });
  await client.connect(clientSide);
  return Object.assign(client, {
    [Symbol.asyncDispose]: async () => {
      await client.close();
      await server.close();
    },
  });
}

function docs(count: number, pageSize: number): Docs {
  return {
    uris: Array.from({ length: count }, (_, i) => `doc://d/${i}`),
    pageSize,
    reads: [],
  };
}

Deno.test("listResources follows nextCursor across pages, in order", async () => {
  await using client = await connected(docs(7, 3));
  const resources = await listResources(client);
  assert.deepEqual(
    resources.map((r) => r.uri),
    Array.from({ length: 7 }, (_, i) => `doc://d/${i}`),
  );
});

Deno.test("listResources refuses a listing past its limit with ListLimitError", async () => {
  await using client = await connected(docs(7, 3));
  await assert.rejects(
    () => listResources(client, { limit: 5 }),
    (err: unknown) =>
      err instanceof ListLimitError && err.limit === 5 &&
      err.message ===
        "resources/list: the server listed more than 5 items; pass a higher limit to read more",
  );
  assert.equal((await listResources(client, { limit: 7 })).length, 7);
});

Deno.test("listResources refuses a cursor given twice (a looping server)", async () => {
  await using client = await connected({ ...docs(2, 2), loop: true });
  await assert.rejects(
    () => listResources(client),
    (err: unknown) =>
      err instanceof ListResultError &&
      err.message ===
        'resources/list: page 2: cursor "0" was already given in this listing',
  );
});

Deno.test("readResource, listPrompts and getPrompt return the server's answers", async () => {
  await using client = await connected(docs(1, 1));
  const read = await readResource(client, "doc://d/0");
  assert.deepEqual(read.contents, [{
    uri: "doc://d/0",
    mimeType: "text/plain",
    text: "text of doc://d/0",
  }]);
  assert.deepEqual((await listPrompts(client)).map((p) => p.name), ["greet"]);
  const prompt = await getPrompt(client, "greet", {
    arguments: { who: "ada" },
  });
  assert.deepEqual(prompt.messages[0].content, {
    type: "text",
    text: "hello ada",
  });
});

const DESCRIPTION =
  'Reads one resource of this MCP server by its URI and returns its contents. The resources:\n- doc://d/0 "0" (text/plain)\n- doc://d/1 "1" (text/plain)';

Deno.test("read_resource: off by default; opted in, its description lists the resources and it reads only those", async () => {
  const state = docs(2, 1);
  await using client = await connected(state);
  assert.deepEqual((await importTools(client)).tools, []);
  const { tools } = await importTools(client, {
    readResource: true,
    prefix: "docs_",
  });
  assert.equal(tools.length, 1);
  const read = tools[0];
  assert.equal(read.name, "docs_read_resource");
  assert.equal(read.description, DESCRIPTION);
  assert.deepEqual(read.inputSchema.raw.required, ["uri"]);
  assert.equal(read.annotations?.readOnlyHint, true);
  assert.equal(read.sequential, false);
  assert.equal(await read.invoke({ uri: "doc://d/1" }), "text of doc://d/1");
  await assert.rejects(
    () => read.invoke({ uri: "doc://d/9" }),
    (err: unknown) =>
      err instanceof Error &&
      err.message ===
        `resource "doc://d/9" is not one this server listed; read one of the URIs in this tool's description`,
  );
  await assert.rejects(
    () => read.invoke({}),
    (err: unknown) =>
      err instanceof Error &&
      err.message ===
        `read_resource needs {"uri": "<one of the URIs in its description>"}`,
  );
  // The refused URI never reached the server.
  assert.deepEqual(state.reads, ["doc://d/1"]);
});

Deno.test("read_resource: the approval policy gates it like a listed tool", async () => {
  await using client = await connected(docs(1, 1));
  const { tools } = await importTools(client, {
    readResource: true,
    policy: { requireApproval: ["read_resource"] },
  });
  assert.equal(tools[0].requiresApproval, true);
});

Deno.test("read_resource: pinned like a listed tool; a changed resource list waits for approval", async () => {
  await using store = memoryStore();
  const pins = { store, server: "docs" };
  const state = docs(1, 1);
  await using client = await connected(state);
  const first = await importTools(client, { readResource: true, pins });
  assert.deepEqual(first.pins?.changed, []);
  assert.equal(
    await first.tools[0].invoke({ uri: "doc://d/0" }),
    "text of doc://d/0",
  );
  // The server now lists one more resource: the tool's definition changed.
  state.uris.push("doc://d/1");
  const second = await importTools(client, { readResource: true, pins });
  assert.deepEqual(second.pins?.changed, ["read_resource"]);
  // Its calls wait for approval: nothing is read.
  const reads = state.reads.length;
  await assert.rejects(() => second.tools[0].invoke({ uri: "doc://d/0" }));
  assert.equal(state.reads.length, reads);
  // The model still sees the pinned definition (one resource).
  assert.equal(
    second.tools[0].description,
    'Reads one resource of this MCP server by its URI and returns its contents. The resources:\n- doc://d/0 "0" (text/plain)',
  );
});
