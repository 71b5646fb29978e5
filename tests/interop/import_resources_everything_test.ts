/**
 * A real server's resources and prompts reached from weft: the MCP
 * reference server `@modelcontextprotocol/server-everything` (pinned in
 * tests/interop/deno.json) spawned over stdio, through `connectStdio`'s
 * client (the list helpers, `readResource`, `getPrompt`, a binary
 * resource's bytes), through a `connectServers` set (items tagged with the
 * server, reads from the server named), and through `importTools`'
 * `read_resource` tool. Offline: `--cached-only`.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { connectServers, connectStdio, importTools } from "../../mod.ts";
import {
  getPrompt,
  listPrompts,
  listResources,
  listResourceTemplates,
  readResource,
} from "../../bridge.ts";

const repoRoot = new URL("../..", import.meta.url).pathname;
const config = new URL("./deno.json", import.meta.url).pathname;
const ARGS = [
  "run",
  "--config",
  config,
  "--cached-only",
  "--quiet",
  "-A",
  "npm:@modelcontextprotocol/server-everything@2026.8.31",
  "stdio",
];
/** A resource contents item's field (text items have `text`, binary ones `blob`). */
function field(item: object, key: "text" | "blob"): unknown {
  return (item as Record<string, unknown>)[key];
}

const ARCHITECTURE = "demo://resource/static/document/architecture.md";

Deno.test("server-everything over connectStdio: resources, templates, prompts and a binary resource's bytes", async () => {
  await using client = await connectStdio(Deno.execPath(), {
    args: ARGS,
    cwd: repoRoot,
    stderr: "ignore",
    signal: AbortSignal.timeout(30_000),
  });
  const signal = AbortSignal.timeout(20_000);
  const resources = await listResources(client, { signal });
  assert.ok(resources.some((r) => r.uri === ARCHITECTURE));
  // The helper's list is the server's own, page for page.
  const direct = await client.listResources();
  assert.deepEqual(resources, direct.resources);
  const { contents } = await readResource(client, ARCHITECTURE, { signal });
  assert.equal(contents.length, 1);
  assert.match(String(field(contents[0], "text")), /^# Everything Server/);
  const templates = await listResourceTemplates(client, { signal });
  assert.ok(
    templates.some((t) =>
      t.uriTemplate === "demo://resource/dynamic/blob/{resourceId}"
    ),
  );
  // The blob's text carries the server's clock to the minute: the two reads
  // agree byte for byte unless a minute turned between them, so a pair that
  // straddles one is read again (a real difference fails all three).
  const bytes = (contents: readonly object[]) =>
    Buffer.from(String(field(contents[0], "blob")), "base64");
  let pair: [Buffer, Buffer] | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const blob = await readResource(
      client,
      "demo://resource/dynamic/blob/7",
      { signal },
    );
    const direct7 = await client.readResource({
      uri: "demo://resource/dynamic/blob/7",
    });
    assert.equal(typeof field(blob.contents[0], "blob"), "string");
    pair = [bytes(blob.contents), bytes(direct7.contents)];
    if (pair[0].equals(pair[1])) break;
  }
  assert.deepEqual(pair![0], pair![1]);
  const prompts = await listPrompts(client, { signal });
  assert.ok(prompts.some((p) => p.name === "args-prompt"));
  const prompt = await getPrompt(client, "args-prompt", {
    arguments: { city: "Lisbon" },
    signal,
  });
  assert.ok(
    prompt.messages.some((m) =>
      typeof m.content === "object" && m.content.type === "text" &&
      m.content.text.includes("Lisbon")
    ),
    JSON.stringify(prompt.messages),
  );
});

Deno.test("server-everything in a connectServers set: items tagged with their server, reads from the server named", async () => {
  await using servers = await connectServers({
    mcpServers: {
      everything: { command: Deno.execPath(), args: ARGS, cwd: repoRoot },
    },
  }, { signal: AbortSignal.timeout(30_000), stderr: "ignore" });
  assert.equal(servers.error, undefined);
  const resources = await servers.listResources();
  assert.ok(resources.length > 0);
  assert.ok(resources.every((r) => r.server === "everything"));
  const architecture = resources.find((r) => r.uri === ARCHITECTURE);
  assert.equal(architecture?.mimeType, "text/markdown");
  const read = await servers.readResource("everything", ARCHITECTURE);
  assert.match(String(field(read.contents[0], "text")), /^# Everything Server/);
  const prompts = await servers.listPrompts();
  assert.ok(
    prompts.some((p) =>
      p.name === "simple-prompt" && p.server === "everything"
    ),
  );
  const templates = await servers.listResourceTemplates();
  assert.ok(templates.every((t) => t.server === "everything"));
  const simple = await servers.getPrompt("everything", "simple-prompt");
  assert.ok(simple.messages.length > 0);
  await assert.rejects(
    () => servers.readResource("nowhere", ARCHITECTURE),
    (err: unknown) =>
      err instanceof TypeError &&
      err.message ===
        'readResource: no server named "nowhere" in this set; the servers: "everything"',
  );
});

Deno.test("server-everything: importTools' read_resource reads a listed resource for the model", async () => {
  await using client = await connectStdio(Deno.execPath(), {
    args: ARGS,
    cwd: repoRoot,
    stderr: "ignore",
    signal: AbortSignal.timeout(30_000),
  });
  const { tools } = await importTools(client, {
    readResource: true,
    prefix: "ev_",
    signal: AbortSignal.timeout(20_000),
  });
  const read = tools.find((t) => t.name === "ev_read_resource");
  assert.ok(read, tools.map((t) => t.name).join(", "));
  assert.ok(read.description.includes(`- ${ARCHITECTURE} "architecture.md"`));
  const text = await read.invoke({ uri: ARCHITECTURE });
  assert.match(text, /^# Everything Server/);
});
