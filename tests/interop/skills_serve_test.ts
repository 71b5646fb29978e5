/**
 * `serveSkills` against the SDK's own skills host (`SkillsClient` of
 * `@modelcontextprotocol/client` 2.4.0, which verifies every file against
 * its entry), in both eras, over `httpHandler` on 127.0.0.1: every skill
 * listed page by page, got, and every file read with verification passing;
 * directory reads; the entries equal those the SDK's own `skillEntry`
 * builds from the same bytes (the extension's worked example among them).
 */

import assert from "node:assert/strict";
import {
  Client,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { skillEntry } from "@modelcontextprotocol/server/ext/skills";
import { httpHandler, Server } from "../../mod.ts";
import { loadSkills, serveSkills, SkillLoadError } from "../../skills.ts";
import { BINARY, PDF_SKILL_MD, skillFiles } from "../fixtures/skills.ts";

const MODERN = "2026-07-28";
type Mode = "auto" | "legacy" | { pin: string };
const MODES: { name: string; mode: Mode; era: "modern" | "legacy" }[] = [
  { name: "auto", mode: "auto", era: "modern" },
  { name: "pinned modern", mode: { pin: MODERN }, era: "modern" },
  { name: "legacy", mode: "legacy", era: "legacy" },
];
const T = () => ({ signal: AbortSignal.timeout(10_000) });

async function withHttp(
  factory: () => Server,
  body: (url: URL) => Promise<void>,
): Promise<void> {
  const ac = new AbortController();
  const handler = httpHandler(factory, { sessions: true, signal: ac.signal });
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

const catalog = await loadSkills(skillFiles());

function factory(): Server {
  const server = new Server({ name: "playbooks", version: "1.0.0" });
  void serveSkills(server, catalog, {
    pageSize: 2,
    cacheHint: { ttlMs: 60_000, cacheScope: "public" },
  });
  return server;
}

for (const { name, mode, era } of MODES) {
  Deno.test(`SkillsClient lists, gets and verifies every served file (${name})`, async () => {
    await withHttp(factory, async (url) => {
      const client = new Client({ name: "host", version: "2.4.0" }, {
        versionNegotiation: { mode },
      });
      await client.connect(new StreamableHTTPClientTransport(url), T());
      try {
        if (era === "modern") {
          assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
        }
        const skills = new SkillsClient(client);
        assert.equal(skills.supported, true);
        assert.equal(skills.directoryRead, true);
        const listing = await skills.list(undefined, T());
        assert.deepEqual(listing.invalid, []);
        assert.deepEqual(listing.skills.map((s) => s.uri), [
          "skill://acme/billing/refunds/SKILL.md",
          "skill://git-workflow/SKILL.md",
          "skill://logo-kit/SKILL.md",
          "skill://pdf-processing/SKILL.md",
        ]);
        if (era === "modern") {
          assert.equal(listing.ttlMs, 60_000);
          assert.equal(listing.cacheScope, "public");
        }
        let files = 0;
        for (const entry of listing.skills) {
          const got = await skills.get(entry.uri, T());
          assert.deepEqual(got.skill, entry);
          assert.ok(Array.isArray(entry.resources));
          for (const resource of entry.resources as { uri: string }[]) {
            const file = await skills.read(entry, resource.uri, T());
            assert.equal(file.verified, true);
            files++;
          }
        }
        assert.equal(files, 10);
        const pdf = listing.skills.find((s) =>
          s.frontmatter.name === "pdf-processing"
        )!;
        const manifest = await skills.read(pdf, undefined, T());
        assert.equal(manifest.text, PDF_SKILL_MD);
        assert.deepEqual(manifest.frontmatter, pdf.frontmatter);
        const logo = listing.skills.find((s) =>
          s.frontmatter.name === "logo-kit"
        )!;
        assert.deepEqual(
          (await skills.read(logo, "logo.png", T())).bytes,
          BINARY,
        );
        const git = listing.skills.find((s) =>
          s.frontmatter.name === "git-workflow"
        )!;
        assert.deepEqual(git.frontmatter, {
          name: "git-workflow",
          description: "Follow this team's Git conventions: branches, commits",
          license: "Apache-2.0",
          "allowed-tools": ["lookup_order", "send_email"],
          metadata: { version: "2.1", owner: "platform" },
        });
        const templates = await skills.readDirectory(
          "skill://pdf-processing/templates",
          T(),
        );
        assert.deepEqual(templates.resources.map((r) => [r.uri, r.mimeType]), [
          ["skill://pdf-processing/templates/invoice.md", "text/markdown"],
          [
            "skill://pdf-processing/templates/purchase-order.md",
            "text/markdown",
          ],
          ["skill://pdf-processing/templates/regional", "inode/directory"],
        ]);
        if (era === "modern") assert.equal(templates.ttlMs, 60_000);
        await assert.rejects(
          skills.get("skill://nope/SKILL.md", T()),
          (e: { code?: number }) => e.code === -32602,
        );
        await assert.rejects(
          skills.readDirectory("skill://pdf-processing/SKILL.md", T()),
          (e: { code?: number }) => e.code === -32602,
        );
        await assert.rejects(
          client.readResource(
            { uri: "skill://pdf-processing/unlisted.md" },
            T(),
          ),
          (e: { code?: number }) => e.code === -32602,
        );
      } finally {
        await client.close();
      }
    });
  });
}

Deno.test("the entries equal those the SDK's skillEntry builds from the same bytes", async () => {
  const files = skillFiles();
  for (const entry of catalog.entries) {
    const root = entry.uri.slice("skill://".length, -"/SKILL.md".length);
    const own: Record<string, string | Uint8Array> = {};
    for (const [path, content] of Object.entries(files)) {
      if (path.startsWith(`${root}/`)) {
        own[path.slice(root.length + 1)] = content;
      }
    }
    const theirs = await skillEntry(root, own);
    assert.deepEqual(JSON.parse(JSON.stringify(entry)), theirs);
  }
  // The worked example's SKILL.md, hashed independently of both.
  const pdf = catalog.get("skill://pdf-processing/SKILL.md")!;
  assert.deepEqual(pdf.resources[0], {
    uri: "skill://pdf-processing/SKILL.md",
    digest: PDF_DIGEST,
    size: 166,
  });
});

const PDF_DIGEST =
  "sha256:94ae2d1c2a3e5f7de7a8315f8757e93f6e682f7929fdabe70e93d774125e2c75";

Deno.test("the frontmatter reader reads what the SDK's reads, or refuses", async () => {
  const yamls = [
    "name: a\ndescription: plain text, with commas",
    'name: a\ndescription: "esc \\" \\\\ \\n \\t \\u00e9"',
    "name: a\ndescription: 'it''s'",
    "name: a\ndescription: d # a comment\nversion: 1.0\ncount: 42\nneg: -7\nexp: 1e3\nhex: 0x1F\noct: 0o17",
    'name: a\ndescription: d\nbeta: true\noff: False\nnothing: ~\nempty:\nlist:\n  - one\n  - 2\n  - "three"',
    "name: a\ndescription: d\nflow: [a, 'b c', \"d\", 4, true]\nempty-flow: []",
    'name: a\ndescription: d\nmetadata:\n  version: "2.1"\n  owner: team # trailing\n\n# comment line\nlicense: MIT',
    "name: a\ndescription: d\nallowed-tools: Bash(git:*) Read",
    "name: a\ndescription: d\nlist:\n- flush\n- left",
    "name: a\ndescription: yes\nb: on\nc: .5\nd: +1\ne: 1_000\nf: 2024-01-01\ni: 0x\nj: 1.2.3",
  ];
  for (const yaml of yamls) {
    const md = `---\n${yaml}\n---\nbody\n`;
    const ours = await loadSkills({ "a/SKILL.md": md });
    const theirs = await skillEntry("a", { "SKILL.md": md });
    assert.deepEqual(ours.entries[0].frontmatter, theirs.frontmatter, yaml);
  } // Outside the subset, or not JSON: refused, never read otherwise.
  for (
    const yaml of [
      "name: a\ndescription: >\n  folded",
      "name: a\ndescription: |\n  literal",
      "name: a\ndescription: d\nx: .inf",
      "name: a\ndescription: d\nx: &anchor v",
      "name: a\ndescription: d\nx: {a: 1}",
      "name: a\ndescription: d\nx:\n  y:\n    z: 1",
      "name: a\ndescription: 'a' b",
      "name: a\ndescription: d\n__proto__: x",
    ]
  ) {
    await assert.rejects(
      loadSkills({ "a/SKILL.md": `---\n${yaml}\n---\n` }),
      SkillLoadError,
      yaml,
    );
  }
});
