// The node permission flag at its version boundaries: the model became
// stable, under `--permission`, in 22.13 and 23.5 (nodejs/node#56201);
// 20.0 to 22.12 and 23.0 to 23.4 know only `--experimental-permission`.

import assert from "node:assert/strict";
import {
  applyPermissions,
  nodePermissionFlag,
  parseNodeVersion,
} from "../src/servers/_permissions.ts";

Deno.test("node permission flag: 22.12 experimental, 22.13 stable, 23.0-23.4 experimental, 23.5 on stable", () => {
  const table: [[number, number], string][] = [
    [[20, 0], "--experimental-permission"],
    [[20, 20], "--experimental-permission"],
    [[21, 99], "--experimental-permission"],
    [[22, 0], "--experimental-permission"],
    [[22, 12], "--experimental-permission"],
    [[22, 13], "--permission"],
    [[22, 14], "--permission"],
    [[23, 0], "--experimental-permission"],
    [[23, 4], "--experimental-permission"],
    [[23, 5], "--permission"],
    [[23, 11], "--permission"],
    [[24, 0], "--permission"],
    [[25, 2], "--permission"],
  ];
  for (const [version, flag] of table) {
    assert.equal(nodePermissionFlag(version), flag, version.join("."));
  }
});

Deno.test("node permission flag: node --version read as major.minor, the launch takes the flag for it", () => {
  assert.deepEqual(parseNodeVersion("v22.12.0\n"), [22, 12]);
  assert.deepEqual(parseNodeVersion("v22.13.1\n"), [22, 13]);
  assert.deepEqual(parseNodeVersion("v23.4.0"), [23, 4]);
  assert.equal(parseNodeVersion("22.13.0"), undefined);
  assert.equal(parseNodeVersion(""), undefined);
  const first = (text: string) =>
    applyPermissions("n", "node", ["s.js"], { net: true }, {
      nodeVersion: () => parseNodeVersion(text),
    }).args[0];
  assert.equal(first("v22.12.0"), "--experimental-permission");
  assert.equal(first("v22.13.0"), "--permission");
  assert.equal(first("v23.4.0"), "--experimental-permission");
  assert.equal(first("v23.5.0"), "--permission");
});
