// The era helpers both sides use: which versions are modern, and the
// header form of a name (as is when header-safe, else base64 in a sentinel).

import assert from "node:assert/strict";
import {
  decodeHeaderValue,
  encodeHeaderValue,
  isModernVersion,
  nameParamOf,
} from "../src/runtime/era/era.ts";

Deno.test("era: 2026-07-28 and later are modern; 2025 revisions and junk are not", () => {
  assert.equal(isModernVersion("2026-07-28"), true);
  assert.equal(isModernVersion("2027-01-01"), true);
  assert.equal(isModernVersion("2025-11-25"), false);
  assert.equal(isModernVersion("2024-11-05"), false);
  assert.equal(isModernVersion(undefined), false);
  assert.equal(isModernVersion(20260728), false);
});

Deno.test("era: a header-safe name goes as is; others go as base64 and come back", () => {
  assert.equal(encodeHeaderValue("get_weather"), "get_weather");
  assert.equal(encodeHeaderValue("a b"), "a b");
  for (
    const value of [
      "",
      " lead",
      "trail ",
      "café",
      "日本",
      "x\ny",
      "=?base64?abc?=",
    ]
  ) {
    const header = encodeHeaderValue(value);
    assert.match(header, /^=\?base64\?[A-Za-z0-9+/=]*\?=$/, value);
    assert.equal(decodeHeaderValue(header), value);
  }
  assert.equal(encodeHeaderValue("café"), "=?base64?Y2Fmw6k=?=");
  assert.equal(decodeHeaderValue("plain"), "plain");
  assert.equal(decodeHeaderValue("=?base64?%%%?="), undefined);
  assert.equal(decodeHeaderValue("=?base64?/w==?="), undefined, "not UTF-8");
});

Deno.test("era: Mcp-Name mirrors a tool's or prompt's name and a resource's uri, nothing else", () => {
  assert.equal(nameParamOf("tools/call"), "name");
  assert.equal(nameParamOf("prompts/get"), "name");
  assert.equal(nameParamOf("resources/read"), "uri");
  assert.equal(nameParamOf("tools/list"), undefined);
});
