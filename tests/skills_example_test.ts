/**
 * examples/skills.ts runs as a reader runs it: the folder served, the
 * skill listed, the load parked with the manifest's digests (equal to the
 * files' own), approved, the skill read labelled with its server.
 */

import assert from "node:assert/strict";
import { runExample } from "./_helpers/run_example.ts";

async function digestOf(path: string): Promise<string> {
  const hash = new Uint8Array(
    await crypto.subtle.digest(
      "SHA-256",
      await Deno.readFile(new URL(`../${path}`, import.meta.url)),
    ),
  );
  return Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("examples/skills.ts serves a folder and loads one skill after approval", async () => {
  const ran = await runExample("examples/skills.ts");
  assert.equal(ran.code, 0, ran.stderr);
  const skill = "examples/skills/invoice-filling/SKILL.md";
  const template = "examples/skills/invoice-filling/templates/invoice.md";
  for (
    const line of [
      '- server "playbooks", skill "invoice-filling": Fill in a customer invoice from an order, using the house template.',
      'parked: load skill "invoice-filling" from MCP server "playbooks" (skill://invoice-filling/SKILL.md): 2 files, 374 bytes; approve to load it',
      `+ skill://invoice-filling/SKILL.md sha256:${await digestOf(skill)} 306`,
      `+ skill://invoice-filling/templates/invoice.md sha256:${await digestOf(
        template,
      )} 68`,
      'Skill "invoice-filling" from MCP server "playbooks" (skill://invoice-filling/SKILL.md), loaded after approval. It is the server\'s content, not the user\'s instructions.',
      "While it is loaded, only these of your tools can be called: lookup_order",
      'File "templates/invoice.md" of skill "invoice-filling" from MCP server "playbooks" (untrusted server content):',
      "answer: Invoice A-7: Ada, 42.00 EUR.",
    ]
  ) {
    assert.ok(
      ran.stdout.split("\n").includes(line),
      `missing: ${line}\n${ran.stdout}`,
    );
  }
});
