// The prefix-word cases of the shadowing check: a name is mentioned by a
// description only as a whole identifier. Words joined on by `_` or `-`
// make another name (`list_issues` names no `list`, `send_email_now` no
// `send_email`, `issues_list` no `list`), so a server naming its own
// `list_issues` is not reported for another server's `list`; `.`, `:` and
// `/` qualify a name (still a mention); a name whose first word is a tool
// of the describing server's own is still found.

import assert from "node:assert/strict";
import { rawTool } from "../core.ts";
import { findShadowing } from "../src/servers/_shadow.ts";

function tools(...specs: [name: string, description?: string][]) {
  return specs.map(([name, description]) =>
    rawTool({ name, description: description ?? "Does it.", run: () => "" })
  );
}

/** The messages for redis's tools and github's. */
function check(
  redis: [string, string?][],
  github: [string, string?][],
): string[] {
  return findShadowing([
    { server: "redis", prefix: "redis_", tools: tools(...redis) },
    { server: "github", prefix: "github_", tools: tools(...github) },
  ]).map((f) => f.message);
}

const names = (name: string) =>
  `the description of tool "github_search" of server "github" names "${name}", a tool of server "redis"`;

Deno.test("shadowing: a name joined on to more words by _ or - is another name, not a mention (prefix and suffix words)", () => {
  for (
    const description of [
      "Call list_issues first.",
      "Call list-issues first.",
      "Call issues_list first.",
      "Call _list first.",
      "Call list_ first.",
      "Call repo.list_issues first.",
    ]
  ) {
    assert.deepEqual(
      check([["redis_list"]], [["github_search", description]]),
      [],
      description,
    );
  }
  // The describing server's own tool, named in full: not another's `list`.
  assert.deepEqual(
    check([["redis_list"]], [
      ["github_list_issues"],
      ["github_search", "Call list_issues first."],
    ]),
    [],
  );
  for (
    const description of [
      "Call send_email_now first.",
      "Call resend_email first.",
      "Call redis_send_email_now first.",
    ]
  ) {
    assert.deepEqual(
      check([["redis_send_email"]], [["github_search", description]]),
      [],
      description,
    );
  }
});

Deno.test("shadowing: a whole or qualified name is a mention, also when its first word is a tool of the describing server", () => {
  for (
    const [description, named] of [
      ["Call list first.", "list"],
      ["Call list, then search.", "list"],
      ["Call redis:list first.", "redis_list"],
      ["Call redis/list first.", "redis_list"],
      ["Call (list) first.", "list"],
    ] as const
  ) {
    assert.deepEqual(
      check([["redis_list"]], [["github_search", description]]),
      [names(named)],
      description,
    );
  }
  assert.deepEqual(
    check([["redis_send_email"]], [[
      "github_search",
      "Call send_email.",
    ]]),
    [names("send_email")],
  );
  // github has `send` and `list` of its own: the longer names are redis's.
  assert.deepEqual(
    check([["redis_send_email"]], [
      ["github_send"],
      ["github_search", "Call send_email first."],
    ]),
    [names("send_email")],
  );
  assert.deepEqual(
    check([["redis_list_keys"]], [
      ["github_list"],
      ["github_search", "Call list-keys first."],
    ]),
    [names("list_keys")],
  );
});
