/**
 * `serveSkills` and `loadSkills` on their own: a file changed after the
 * load is never served under its old digest (refused until `reload()`,
 * then served under the new one), a folder read from disk, the limits and
 * frontmatter refused with errors naming the file, `skills/list` pages
 * with a cursor (a forged one refused), and the server's capabilities.
 */

import assert from "node:assert/strict";
import { z } from "zod";
import { connected } from "./_helpers/export_pair.ts";
import {
  loadSkills,
  serveSkills,
  SkillChangedError,
  SkillLoadError,
} from "../skills.ts";
import { skillFiles } from "./fixtures/skills.ts";

const Loose = z.looseObject({});
const T = () => ({ signal: AbortSignal.timeout(5_000) });
const digestOf = async (text: string) =>
  "sha256:" +
  Array.from(
    new Uint8Array(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)),
    ),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");

Deno.test("a file changed after the load is refused, then served under its new digest after reload()", async () => {
  const files = skillFiles();
  const catalog = await loadSkills(files);
  await using pair = await connected((server) => {
    void serveSkills(server, catalog);
  });
  const uri = "skill://pdf-processing/templates/invoice.md";
  const before = await pair.client.readResource({ uri }, T());
  assert.equal(
    (before.contents[0] as { text: string }).text,
    files["pdf-processing/templates/invoice.md"],
  );
  files["pdf-processing/templates/invoice.md"] = "# Invoice (tampered)\n";
  await assert.rejects(
    pair.client.readResource({ uri }, T()),
    (e: Error & { code?: number }) =>
      e.code === -32603 &&
      e.message.includes(
        `${uri} changed since the skills were loaded; its old digest is not served — call reload() on the catalog`,
      ),
  );
  await assert.rejects(catalog.read(uri), SkillChangedError);
  await catalog.reload();
  const { skill } = await pair.client.request(
    {
      method: "skills/get",
      params: { uri: "skill://pdf-processing/SKILL.md" },
    },
    z.looseObject({
      skill: z.looseObject({
        resources: z.array(
          z.looseObject({ uri: z.string(), digest: z.string() }),
        ),
      }),
    }),
    T(),
  );
  const listed = skill.resources.find((r) => r.uri === uri)!;
  assert.equal(listed.digest, await digestOf("# Invoice (tampered)\n"));
  const after = await pair.client.readResource({ uri }, T());
  assert.equal(
    (after.contents[0] as { text: string }).text,
    "# Invoice (tampered)\n",
  );
});

Deno.test("a folder is read from disk, and a file changed on disk is refused", async () => {
  const root = await Deno.makeTempDir();
  try {
    for (const [path, content] of Object.entries(skillFiles())) {
      await Deno.mkdir(`${root}/${path.slice(0, path.lastIndexOf("/"))}`, {
        recursive: true,
      });
      await Deno.writeFile(
        `${root}/${path}`,
        typeof content === "string"
          ? new TextEncoder().encode(content)
          : content,
      );
    }
    await Deno.writeTextFile(`${root}/.hidden`, "skipped");
    const fromDisk = await loadSkills(root);
    const fromMap = await loadSkills(skillFiles());
    assert.deepEqual(fromDisk.entries, fromMap.entries);
    await Deno.writeTextFile(`${root}/git-workflow/SKILL.md`, "changed");
    await assert.rejects(
      fromDisk.read("skill://git-workflow/SKILL.md"),
      SkillChangedError,
    );
    await Deno.symlink(
      `${root}/logo-kit/logo.png`,
      `${root}/logo-kit/link.png`,
    );
    await assert.rejects(
      loadSkills(root),
      (e: unknown) =>
        e instanceof SkillLoadError &&
        e.problems.some((p) =>
          p.startsWith("logo-kit/link.png: symlinks are not followed")
        ),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the limits refuse a skill over them, naming it", async () => {
  const files = skillFiles();
  await assert.rejects(
    loadSkills(files, { limits: { files: 3 } }),
    (e: unknown) =>
      e instanceof SkillLoadError &&
      e.problems.length === 1 &&
      e.problems[0] ===
        "pdf-processing: 4 files / 224 bytes is over the limit of 3 files / 16777216 bytes a skill; split the skill or raise limits",
  );
  const huge = {
    ...files,
    "logo-kit/huge.bin": new Uint8Array(16 * 1024 * 1024),
  };
  await assert.rejects(
    loadSkills(huge),
    (e: unknown) =>
      e instanceof SkillLoadError &&
      e.problems[0].startsWith(
        "logo-kit: 4 files / 16777312 bytes is over the limit of 512 files / 16777216 bytes",
      ),
  );
  // At the limit exactly: served.
  const at: Record<string, string> = {
    "many/SKILL.md": "---\nname: many\ndescription: d\n---\n",
  };
  for (let i = 1; i < 512; i++) at[`many/f${i}.txt`] = "x";
  assert.equal((await loadSkills(at)).entries[0].resources.length, 512);
});

Deno.test("frontmatter and names are read strictly, each problem naming its file", async () => {
  const cases: [Record<string, string>, string][] = [
    [
      { "a/SKILL.md": "no frontmatter" },
      'a/SKILL.md: frontmatter line 1: SKILL.md must begin with a "---" line',
    ],
    [
      { "a/SKILL.md": "---\nname: b\ndescription: d\n---\n" },
      'a/SKILL.md: name "b" must equal its folder\'s name "a"',
    ],
    [
      { "A/SKILL.md": "---\nname: A\ndescription: d\n---\n" },
      "A/SKILL.md: name must be 1-64 lowercase letters, digits and single hyphens",
    ],
    [
      { "a/SKILL.md": "---\nname: a\n---\n" },
      "a/SKILL.md: description must be 1-1024 characters",
    ],
    [
      { "a/SKILL.md": "---\nname: a\ndescription: >\n  folded\n---\n" },
      'a/SKILL.md: frontmatter line 3: ">" starts with a YAML indicator; quote it',
    ],
    [
      { "a/SKILL.md": "---\nname: a\nname: a\ndescription: d\n---\n" },
      'a/SKILL.md: frontmatter line 3: the key "name" is given twice',
    ],
    [
      { "a/SKILL.md": "---\nname: a\ndescription: a: b\n---\n" },
      'a/SKILL.md: frontmatter line 3: "a: b" is ambiguous in YAML; quote it',
    ],
    [
      { "SKILL.md": "---\nname: a\ndescription: d\n---\n" },
      "SKILL.md: a SKILL.md at the root has no skill folder; put it in a folder named as the skill",
    ],
    [
      { "a/../b/SKILL.md": "x" },
      '"a/../b/SKILL.md": a path must be relative, "/"-separated, without empty, "." or ".." segments',
    ],
  ];
  for (const [files, problem] of cases) {
    await assert.rejects(loadSkills(files), (e: unknown) => {
      assert.ok(e instanceof SkillLoadError);
      assert.deepEqual(e.problems, [problem]);
      return true;
    });
  }
  const typed = await loadSkills({
    "a/SKILL.md":
      "---\n# a comment\nname: a\ndescription: 'it''s # not a comment' # but this is\n" +
      'version: 1.0\nbeta: true\nnothing:\nlist:\n  - one\n  - "two"\n---\nbody\n',
  });
  assert.deepEqual(typed.entries[0].frontmatter, {
    name: "a",
    description: "it's # not a comment",
    version: 1,
    beta: true,
    nothing: null,
    list: ["one", "two"],
  });
});

Deno.test("skills/list pages with a cursor; a forged cursor is refused; the capability is declared", async () => {
  const catalog = await loadSkills(skillFiles());
  await using pair = await connected((server) => {
    void serveSkills(server, catalog, { pageSize: 3 });
  });
  const caps = pair.client.getServerCapabilities() as Record<string, unknown>;
  assert.deepEqual(caps.extensions, {
    "io.modelcontextprotocol/skills": { directoryRead: true },
  });
  assert.ok(caps.resources !== undefined);
  const Page = z.looseObject({
    skills: z.array(z.looseObject({ uri: z.string() })),
    nextCursor: z.string().optional(),
  });
  const first = await pair.client.request(
    { method: "skills/list", params: {} },
    Page,
    T(),
  );
  assert.equal(first.skills.length, 3);
  assert.equal(first.ttlMs, undefined); // no cache fields to a 2025 client
  const second = await pair.client.request(
    { method: "skills/list", params: { cursor: first.nextCursor } },
    Page,
    T(),
  );
  assert.deepEqual(second.skills.map((s) => s.uri), [
    "skill://pdf-processing/SKILL.md",
  ]);
  assert.equal(second.nextCursor, undefined);
  await assert.rejects(
    pair.client.request(
      { method: "skills/list", params: { cursor: "forged" } },
      Loose,
      T(),
    ),
    (e: Error & { code?: number }) =>
      e.code === -32602 && e.message.includes("invalid cursor for skills/list"),
  );
});

Deno.test("serveSkills refuses a connected server and a second catalog on one server", async () => {
  const catalog = await loadSkills(skillFiles());
  await using pair = await connected((server) => {
    void serveSkills(server, catalog);
  });
  await assert.rejects(serveSkills(pair.server, catalog), TypeError);
});

Deno.test("one skills catalog per server; directoryRead: false declares {} and serves no directory reads", async () => {
  const catalog = await loadSkills(skillFiles());
  const { Server } = await import("../mod.ts");
  const twice = new Server({ name: "s", version: "1" });
  await serveSkills(twice, catalog);
  await assert.rejects(
    serveSkills(twice, catalog),
    (e: unknown) =>
      e instanceof TypeError &&
      e.message ===
        "serveSkills: this server already serves skills; serve one catalog per server (put every skill folder under one root)",
  );
  await using pair = await connected((server) => {
    void serveSkills(server, catalog, { directoryRead: false });
  });
  const caps = pair.client.getServerCapabilities() as Record<string, unknown>;
  assert.deepEqual(caps.extensions, {
    "io.modelcontextprotocol/skills": {},
  });
  await assert.rejects(
    pair.client.request(
      {
        method: "resources/directory/read",
        params: { uri: "skill://pdf-processing" },
      },
      Loose,
      T(),
    ),
    (e: Error & { code?: number }) => e.code === -32601,
  );
});
