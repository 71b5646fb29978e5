// An entry's own command line cannot widen its `permissions`: every bypass
// found (clustered short flags, a flag after an option that takes a value,
// NODE_OPTIONS, node's --allow-addons/-worker/-wasi) is read as the
// runtime reads it and dropped, or refused as a config error naming the
// entry and the argument. Each hostile command line is then run by the
// real runtime, which must grant nothing that was not asked.

import assert from "node:assert/strict";
import { connectServers, type ToolDef } from "../mod.ts";
import { ServerConfigError } from "../servers.ts";
import { applyPermissions } from "../src/servers/_permissions.ts";
import type { ServerPermissions } from "../src/servers/config.ts";
import { childEnv } from "./fixtures/runtime_server_helpers.ts";

const READER = new URL("./fixtures/reader_server.ts", import.meta.url)
  .pathname;

/** `--conditions x --allow-read` after an option that takes a value. */
const AFTER_VALUE = ["run", "--conditions", "x", "--allow-run", "--allow-read"];

/** Hostile `deno run` command lines (the module appended), each of which granted something. */
const DENO_ATTACKS: readonly (readonly string[])[] = [
  ["run", "-qA"],
  ["run", "-qRW"],
  ["run", "-rA"],
  ["run", "-Rq", "-NE"],
  AFTER_VALUE,
  ["run", "--conditions=x", "-A"],
  ["run", "--lock", "-A"],
  ["run", "--env-file", "-A"],
  ["run", "--log-level", "info", "-A"],
  ["run", "-Linfo", "-qS"],
  ["run", "-R/etc", "-q"],
  ["run", "--allow-all", "--permission-set", "-P=x", "--allow-scripts"],
];

/** The module: each permission's state, as one JSON line. */
const PROBE =
  `const names = ["read", "write", "net", "env", "run", "sys", "ffi", "import"];
const states = {};
for (const name of names) states[name] = (await Deno.permissions.query({ name })).state;
console.log(JSON.stringify(states));`;

async function denoGrants(
  dir: string,
  args: readonly string[],
  permissions: ServerPermissions,
): Promise<Record<string, string>> {
  const launch = applyPermissions("probe", Deno.execPath(), args, permissions);
  const out = await new Deno.Command(launch.command, {
    args: [...launch.args],
    cwd: dir,
    env: childEnv(),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(30_000),
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  assert.ok(
    out.success,
    `${launch.args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`,
  );
  return JSON.parse(text.split("\n").pop()!);
}

Deno.test("permissions args: each deno bypass is read as deno reads it, and the real deno grants nothing with permissions: {}", async () => {
  const dir = await Deno.makeTempDir({ prefix: "weft-args-" });
  try {
    const probe = `${dir}/probe.js`;
    await Deno.writeTextFile(probe, PROBE);
    // The probe can tell: a grant shows.
    const control = await denoGrants(dir, ["run", probe], { read: true });
    assert.equal(control.read, "granted");
    assert.notEqual(control.write, "granted");
    for (const attack of DENO_ATTACKS) {
      const states = await denoGrants(dir, [...attack, probe], {});
      const granted = Object.entries(states).filter(([, s]) => s === "granted");
      assert.deepEqual(granted, [], `deno ${attack.join(" ")}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("permissions args: flags come back one way each, the permission ones gone, the module's own kept", () => {
  const args = (entry: string[]) =>
    applyPermissions("s", "deno", [...entry, "srv.ts", "-A", "--x"], {}).args;
  assert.deepEqual(args(["run", "-qA"]), [
    "run",
    "--no-prompt",
    "--quiet",
    "srv.ts",
    "-A",
    "--x",
  ]);
  assert.deepEqual(args(AFTER_VALUE), [
    "run",
    "--no-prompt",
    "--conditions=x",
    "srv.ts",
    "-A",
    "--x",
  ]);
  assert.deepEqual(args(["-qLinfo", "run", "-c", "d.json", "--lock", "-A"]), [
    "--quiet",
    "--log-level=info",
    "run",
    "--no-prompt",
    "--config=d.json",
    "--lock=./deno.lock",
    "srv.ts",
    "-A",
    "--x",
  ]);
  assert.deepEqual(args(["run", "--lock", "l.json", "-cd.json", "-r=npm:"]), [
    "run",
    "--no-prompt",
    "--lock=l.json",
    "--config=d.json",
    "--reload=npm:",
    "srv.ts",
    "-A",
    "--x",
  ]);
});

Deno.test("permissions args: what cannot be read with certainty is a config error naming the entry and the argument", () => {
  const refused = (
    command: string,
    args: string[],
    arg: string,
    permissions: ServerPermissions = { net: true },
  ) =>
    assert.throws(
      () =>
        applyPermissions("files", command, args, permissions, {
          nodeVersion: () => [20, 20],
        }),
      (error: unknown) => {
        assert.ok(error instanceof ServerConfigError, String(error));
        assert.equal(error.server, "files");
        assert.equal(error.field, "args");
        assert.ok(
          error.message.includes(JSON.stringify(arg)),
          `${error.message} names ${arg}`,
        );
        return true;
      },
    );
  refused("deno", ["run", "--frobnicate", "x", "-A", "s.ts"], "--frobnicate");
  refused("deno", ["run", "-qZ", "s.ts"], "-qZ");
  refused("deno", ["run", "-rfoo", "s.ts"], "-rfoo");
  refused("deno", ["run", "--", "s.ts"], "--");
  refused("deno", ["run", "--quiet=1", "s.ts"], "--quiet=1");
  refused("deno", ["-A", "run", "s.ts"], "-A");
  refused("deno", ["--config", "run", "run", "s.ts"], "--config");
  refused("node", ["--frobnicate", "x", "s.js"], "--frobnicate");
  refused("node", ["-pe", "1"], "-pe");
  // A switch node turns on with `=1`; its internals reach past the model.
  refused("node", ["--expose-internals=1", "s.js"], "--expose-internals=1");
  refused("node", ["--expose_internals", "s.js"], "--expose_internals");
  // node reads NODE_OPTIONS from an env file: --allow-fs-read=* through it.
  refused("node", ["--env-file=x.env", "s.js"], "--env-file=x.env");
  refused(
    "node",
    ["--env-file-if-exists", "x.env", "s.js"],
    "--env-file-if-exists",
  );
  assert.throws(
    () => applyPermissions("files", "deno", ["run", "--lock", "s.ts"], {}),
    (error: unknown) =>
      error instanceof ServerConfigError && error.field === "args" &&
      /no module after deno run/.test(error.message),
  );
});

Deno.test("permissions args: node's permission flags are dropped wherever they are, values and negations included", () => {
  const node = (args: string[]) =>
    applyPermissions("n", "node", args, { read: ["/srv"], net: true }, {
      nodeVersion: () => [22, 13],
    }).args;
  assert.deepEqual(
    node([
      "--conditions",
      "x",
      "--allow-fs-read",
      "*",
      "--allow-addons",
      "--allow-worker",
      "--allow-wasi",
      "--allow-child-process",
      "--no-permission",
      "--no_experimental_permission",
      "--allow_fs_read=*",
      "--allow_worker",
      "--enable-source-maps",
      "-r",
      "./hook.js",
      "s.js",
      "--allow-worker",
    ]),
    [
      "--permission",
      "--allow-fs-read=/srv",
      "--conditions",
      "x",
      "--enable-source-maps",
      "-r",
      "./hook.js",
      "s.js",
      "--allow-worker",
    ],
  );
  assert.deepEqual(node(["--", "s.js", "--allow-fs-read=*"]), [
    "--permission",
    "--allow-fs-read=/srv",
    "--",
    "s.js",
    "--allow-fs-read=*",
  ]);
});

Deno.test("permissions args: NODE_OPTIONS, set in env or inherited, is refused for a node server with permissions", () => {
  const refused = (
    options: { env?: Record<string, string>; inheritEnv?: string[] },
    field: string,
  ) =>
    assert.throws(
      () =>
        applyPermissions("n", "node", ["s.js"], { net: true }, {
          ...options,
          nodeVersion: () => [20, 20],
        }),
      (error: unknown) =>
        error instanceof ServerConfigError && error.server === "n" &&
        error.field === field && /NODE_OPTIONS/.test(error.message),
    );
  refused({ env: { NODE_OPTIONS: "--allow-fs-read=*" } }, "env");
  refused({ inheritEnv: ["HOME", "NODE_*"] }, "inheritEnv");
  refused({ inheritEnv: ["NODE_OPTIONS"] }, "inheritEnv");
  refused({ inheritEnv: ["*"] }, "inheritEnv");
  // Another NODE_ variable is the server's own business.
  applyPermissions("n", "node", ["s.js"], { net: true }, {
    env: { NODE_ENV: "production" },
    inheritEnv: ["NODE_EXTRA_CA_CERTS"],
    nodeVersion: () => [20, 20],
  });
});

const NODE_PROBE = `let read;
try { require("fs").readFileSync("/etc/hostname"); read = "read"; } catch (e) { read = e.code; }
console.log(JSON.stringify({ read, worker: process.permission.has("worker"), child: process.permission.has("child") }));`;

Deno.test("permissions args: the real node, given the hostile flags, reads nothing and starts no worker or child", async () => {
  const dir = await Deno.makeTempDir({ prefix: "weft-args-" });
  try {
    const probe = `${dir}/probe.cjs`;
    await Deno.writeTextFile(probe, NODE_PROBE);
    const launch = applyPermissions(
      "n",
      "node",
      [
        "--conditions",
        "x",
        "--allow-fs-read",
        "*",
        "--allow-worker",
        "--allow-addons",
        "--allow-wasi",
        "--allow-child-process",
        "--allow_fs_read=*",
        "--no_experimental_permission",
        probe,
      ],
      { read: [probe], net: true },
      { nodeVersion: () => nodeVersion() },
    );
    const out = await new Deno.Command(launch.command, {
      args: [...launch.args],
      env: { NO_COLOR: "1" },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(30_000),
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    assert.deepEqual(
      JSON.parse(new TextDecoder().decode(out.stdout)),
      { read: "ERR_ACCESS_DENIED", worker: false, child: false },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

function nodeVersion(): [number, number] {
  const text = new TextDecoder().decode(
    new Deno.Command("node", { args: ["--version"] }).outputSync().stdout,
  );
  const [major, minor] = text.slice(1).split(".").map(Number);
  return [major, minor];
}

function byName(tools: readonly ToolDef[], name: string): ToolDef {
  const found = tools.find((t) => t.name === name);
  assert.ok(found, `no ${name} among ${tools.map((t) => t.name).join(", ")}`);
  return found;
}

Deno.test("permissions args: a real server run as deno run -qA with permissions: {} is denied a read, end to end", async () => {
  const dir = await Deno.makeTempDir({ prefix: "weft-args-" });
  try {
    await Deno.writeTextFile(`${dir}/secret.txt`, "secret");
    for (const args of [["run", "-qA", READER], [...AFTER_VALUE, READER]]) {
      await using servers = await connectServers({
        reader: {
          command: Deno.execPath(),
          args,
          env: childEnv(),
          permissions: {},
        },
      }, {
        signal: AbortSignal.timeout(20_000),
        stderr: () => {},
        reconnect: false,
      });
      assert.equal(servers.error, undefined);
      assert.doesNotMatch(
        servers.servers()[0].launch ?? "",
        / -qA | -A |--allow-read|--allow-run/,
      );
      await assert.rejects(
        byName(servers.tools, "reader_read").invoke(
          JSON.stringify({ path: `${dir}/secret.txt` }),
          { signal: AbortSignal.timeout(15_000) },
        ),
        (error: Error) => {
          assert.equal(
            error.message,
            `Requires read access to "${dir}/secret.txt", run again with the --allow-read flag`,
          );
          return true;
        },
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
