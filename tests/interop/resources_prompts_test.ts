/**
 * The real v2 client (`@modelcontextprotocol/client` 2.4.0) reading every
 * kind `exportResources` and `exportPrompts` serve, in both eras (version
 * negotiation `auto` and pinned to 2026-07-28, and `legacy`), against
 * `httpHandler` with sessions on a real listener on 127.0.0.1: resources
 * listed page by page, bytes read back exactly, a template read, prompts
 * with arguments, images and embedded resources, completions, and a
 * resource update — through `subscriptions/listen` in the modern era,
 * `resources/subscribe` in the legacy one.
 */

import assert from "node:assert/strict";
import {
  Client,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { httpHandler } from "../../mod.ts";
import {
  BYTES,
  counterResource,
  surfaceServer,
} from "../fixtures/surface_server.ts";
import { pokeUntil } from "../_helpers/wait.ts";

const MODERN = "2026-07-28";

type Mode = "auto" | "legacy" | { pin: string };
const MODES: { name: string; mode: Mode; era: "modern" | "legacy" }[] = [
  { name: "auto", mode: "auto", era: "modern" },
  { name: "pinned modern", mode: { pin: MODERN }, era: "modern" },
  { name: "legacy", mode: "legacy", era: "legacy" },
];

const T = () => ({ signal: AbortSignal.timeout(10_000) });

function decode(base64: string): Uint8Array {
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

async function withHttp(body: (url: URL) => Promise<void>): Promise<void> {
  const ac = new AbortController();
  const handler = httpHandler(() => surfaceServer(4), {
    sessions: true,
    signal: ac.signal,
  });
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: ac.signal,
    onListen: () => {},
  }, handler);
  try {
    await body(new URL(`http://127.0.0.1:${server.addr.port}/mcp`));
  } finally {
    ac.abort();
    await server.finished;
  }
}

async function readsEverything(client: Client): Promise<void> {
  const uris: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listResources({ cursor }, T());
    uris.push(...page.resources.map((r) => r.uri));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  assert.deepEqual(uris, [
    "test://counter",
    "test://other",
    "test://blob",
    "test://many/0",
    "test://many/1",
    "test://many/2",
    "test://many/3",
    "test://many/4",
  ]);
  const blob = await client.readResource({ uri: "test://blob" }, T());
  assert.deepEqual(decode((blob.contents[0] as { blob: string }).blob), BYTES);
  const { resourceTemplates } = await client.listResourceTemplates(
    undefined,
    T(),
  );
  assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate), [
    "files://{dir}/{name}{?rev}",
  ]);
  const file = await client.readResource(
    { uri: "files://docs/a.md?rev=2" },
    T(),
  );
  assert.deepEqual(file.contents, [{
    uri: "files://docs/a.md?rev=2",
    mimeType: "application/json",
    text: '{"dir":"docs","name":"a.md","rev":"2"}',
  }]);
  const { prompts } = await client.listPrompts(undefined, T());
  assert.deepEqual(prompts.map((p) => p.name), ["review", "picture"]);
  const review = await client.getPrompt({
    name: "review",
    arguments: { language: "go", code: "x := 1" },
  }, T());
  assert.deepEqual(review.messages[0].content, {
    type: "text",
    text: "Review this go:\nx := 1",
  });
  const picture = await client.getPrompt({ name: "picture" }, T());
  const [img, embedded] = picture.messages.map((m) => m.content);
  assert.equal(img.type, "image");
  assert.deepEqual(decode((img as { data: string }).data), BYTES);
  assert.deepEqual(embedded, {
    type: "resource",
    resource: { uri: "test://blob", mimeType: "text/plain", text: "embedded" },
  });
  const completed = await client.complete({
    ref: { type: "ref/prompt", name: "review" },
    argument: { name: "language", value: "t" },
  }, T());
  assert.deepEqual(completed.completion.values, ["ts"]);
}

for (const { name, mode, era } of MODES) {
  Deno.test(`v2 client (${name}): reads every resource and prompt kind, and hears a subscribed resource's update`, async () => {
    await withHttp(async (url) => {
      const client = new Client({ name: "v2-surface", version: "2.4.0" }, {
        versionNegotiation: { mode },
      });
      await client.connect(new StreamableHTTPClientTransport(url), T());
      try {
        const version = client.getNegotiatedProtocolVersion();
        if (era === "modern") assert.equal(version, MODERN);
        else assert.notEqual(version, MODERN);
        await readsEverything(client);

        const updated = Promise.withResolvers<string>();
        client.setNotificationHandler(
          "notifications/resources/updated",
          (n) => updated.resolve(n.params.uri),
        );
        const timer = setTimeout(
          () => updated.reject(new Error("no resources/updated in 5 s")),
          5_000,
        );
        if (era === "modern") {
          const sub = await client.listen({
            resourceSubscriptions: ["test://counter"],
          }, T());
          assert.deepEqual(sub.honoredFilter, {
            resourceSubscriptions: ["test://counter"],
          });
          counterResource.notifyUpdated();
          assert.equal(await updated.promise, "test://counter");
          await sub.close();
        } else {
          await client.subscribeResource({ uri: "test://counter" }, T());
          // The standalone GET stream opens a moment after initialize; an
          // update sent before it is not kept for it: tell again until heard.
          assert.equal(
            await pokeUntil(
              () => counterResource.notifyUpdated(),
              updated.promise,
              "resources/updated on the GET stream",
            ),
            "test://counter",
          );
        }
        clearTimeout(timer);
      } finally {
        await client.close();
      }
    });
  });
}
