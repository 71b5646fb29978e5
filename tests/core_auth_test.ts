import assert from "node:assert/strict";
import { principalOf } from "../src/core/auth.ts";

Deno.test("principalOf: one key of client id and subject, the same for sessions and requestState", () => {
  assert.equal(principalOf(undefined), undefined);
  assert.equal(principalOf(null), undefined);
  assert.equal(principalOf("token"), undefined);
  assert.equal(
    principalOf({
      token: "t",
      clientId: "app",
      scopes: [],
      extra: { sub: "alice" },
    }),
    '["app","alice"]',
  );
  assert.equal(
    principalOf({ token: "t", clientId: "app", scopes: [] }),
    '["app",null]',
  );
  // Not strings: absent, never coerced (a subject 1 is not the subject "1").
  assert.equal(
    principalOf({ token: "t", clientId: 7, scopes: [], extra: { sub: 1 } }),
    "[null,null]",
  );
  // Two callers differing in subject only are two principals.
  assert.notEqual(
    principalOf({
      token: "a",
      clientId: "app",
      scopes: [],
      extra: { sub: "alice" },
    }),
    principalOf({
      token: "b",
      clientId: "app",
      scopes: [],
      extra: { sub: "bob" },
    }),
  );
});
