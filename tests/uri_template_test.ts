/**
 * RFC 6570 URI templates (levels 1 to 3) read the other way: the matcher
 * behind `resourceTemplate`, operator by operator, and the templates it
 * refuses.
 */

import assert from "node:assert/strict";
import { parseUriTemplate } from "../src/bridge/_uri_template.ts";

const match = (template: string, uri: string) =>
  parseUriTemplate(template, "test").match(uri);

Deno.test("level 1: {var} stops at / ? # , and is percent-decoded", () => {
  assert.deepEqual(match("db://{table}/{id}", "db://users/42"), {
    table: "users",
    id: "42",
  });
  assert.deepEqual(match("db://{table}", "db://caf%C3%A9%20bar"), {
    table: "café bar",
  });
  assert.equal(match("db://{table}", "db://a/b"), undefined);
  assert.equal(match("db://{table}/{id}", "db://users/42/x"), undefined);
  assert.equal(match("db://{table}", "db://%E0%A4%A"), undefined);
  assert.deepEqual(match("db://{table}", "db://"), { table: "" });
});

Deno.test("level 2: {+var} and {#var} take reserved characters", () => {
  assert.deepEqual(match("file:///{+path}", "file:///a/b/c.txt"), {
    path: "a/b/c.txt",
  });
  assert.deepEqual(match("file:///{+path}.md", "file:///a/b.c.md"), {
    path: "a/b.c",
  });
  assert.deepEqual(match("doc://x{#section}", "doc://x#intro/part"), {
    section: "intro/part",
  });
  assert.deepEqual(match("doc://x{#section}", "doc://x"), undefined);
});

Deno.test("level 3: several variables, labels, paths, parameters, queries", () => {
  assert.deepEqual(match("map://{x,y}", "map://1,2"), { x: "1", y: "2" });
  assert.deepEqual(match("host://www{.domain,tld}", "host://www.example.com"), {
    domain: "example",
    tld: "com",
  });
  assert.deepEqual(
    match("repo://{owner}{/name,branch}", "repo://me/weft/main"),
    {
      owner: "me",
      name: "weft",
      branch: "main",
    },
  );
  assert.deepEqual(match("m://x{;w,h}", "m://x;w=10;h"), { w: "10", h: "" });
  const search = "s://find{?q,lang}";
  assert.deepEqual(match(search, "s://find?q=a%20b&lang=en"), {
    q: "a b",
    lang: "en",
  });
  // Any order, any subset; an unknown name does not match.
  assert.deepEqual(match(search, "s://find?lang=en&q=x"), {
    q: "x",
    lang: "en",
  });
  assert.deepEqual(match(search, "s://find"), {});
  assert.equal(match(search, "s://find?other=1"), undefined);
  assert.deepEqual(
    match("s://find?fixed=1{&page}", "s://find?fixed=1&page=2"),
    {
      page: "2",
    },
  );
  // Regular-expression characters in literals are literal.
  assert.equal(match("a.b://{x}", "aXb://1"), undefined);
});

Deno.test("refused: level 4 modifiers, unknown operators, bad names, unbalanced braces", () => {
  const refused = (template: string, pattern: RegExp) =>
    assert.throws(() => parseUriTemplate(template, "where"), (e: unknown) => {
      assert.ok(e instanceof TypeError);
      assert.match(e.message, pattern);
      return true;
    });
  refused("x://{list*}", /^where: \{list\*\} uses a level-4 modifier/);
  refused("x://{name:3}", /level-4 modifier/);
  refused("x://{=x}", /operator "=" of \{=x\} is not an RFC 6570 operator/);
  refused("x://{a b}", /malformed variable name "a b"/);
  refused("x://{}", /malformed variable name ""/);
  refused("x://{a", /unclosed "\{" at 4/);
  refused("x://a}", /"\}" without "\{" at 5/);
  refused("x://{a}/{a}", /variable "a" appears twice/);
});
