/**
 * `parseServersConfig` checks an entry in a fixed order — its type and
 * fields, then what every server has, then what its kind has — and names
 * the first wrong field: an entry wrong twice is refused for the same
 * field every time.
 *
 * @module
 */

import assert from "node:assert/strict";
import { parseServersConfig, ServerConfigError } from "../servers.ts";

function refusal(entry: Record<string, unknown>): string {
  try {
    parseServersConfig({ mcpServers: { s: entry } });
  } catch (error) {
    assert.ok(error instanceof ServerConfigError, String(error));
    return `${error.field}: ${error.message}`;
  }
  assert.fail("the entry was accepted");
}

Deno.test("config: an entry wrong in several fields is refused for the first in check order", () => {
  // An unknown field comes before any value.
  assert.equal(
    refusal({ command: 1, arg: [], prefix: 2 }),
    'arg: mcpServers "s": "arg" is not a field of a stdio server (type, command, args, env, cwd, prefix, policy, disabled, initializeTimeout, render)',
  );
  // What every server has comes before what a stdio server has.
  assert.equal(
    refusal({ command: "", args: [1], prefix: 2 }),
    'prefix: mcpServers "s": "prefix" must be a string',
  );
  assert.equal(
    refusal({ command: "x", permissions: { read: "/" }, protocol: "new" }),
    'protocol: mcpServers "s": "protocol" must be "auto", "modern" or "legacy", got "new"',
  );
  // ... and before what an HTTP server has.
  assert.equal(
    refusal({ url: "ftp://x", auth: "basic", render: "html" }),
    'render: mcpServers "s": "render" must be "structured", "text" or "both", got "html"',
  );
  // Within a kind: a stdio server's command, then args, env, cwd, permissions.
  assert.equal(
    refusal({ command: "", args: [1], permissions: { read: "/" } }),
    'command: mcpServers "s": "command" must be a non-empty string',
  );
  assert.equal(
    refusal({ command: "x", cwd: 1, permissions: { read: "/" } }),
    'cwd: mcpServers "s": "cwd" must be a string',
  );
  // An HTTP server's url, then headers, allowedHosts, auth.
  assert.equal(
    refusal({ url: "ftp://x", auth: "basic" }),
    'url: mcpServers "s": "url" must be an http:// or https:// URL, got "ftp://x"',
  );
  assert.equal(
    refusal({ url: "https://x", headers: { a: 1 }, auth: "basic" }),
    'headers: mcpServers "s": "headers" value "a" must be a string, got number',
  );
});
