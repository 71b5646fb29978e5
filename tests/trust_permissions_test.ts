// Least privilege for local servers: an entry's permissions become exactly
// Deno's flags in place of -A (Node's permission model for node), a real
// child that touches what it was not granted fails with a tool error naming
// the permission — never a hang — and `inspect` prints the exact command.

import assert from "node:assert/strict";
import { connectServers, type ToolDef } from "../mod.ts";
import {
  parseServersConfig,
  ServerConfigError,
  ServerPermissionError,
} from "../servers.ts";
import { runCli } from "../cli.ts";
import {
  applyPermissions,
  permissionDenial,
} from "../src/servers/_permissions.ts";
import { childEnv } from "./fixtures/runtime_server_helpers.ts";

const READER = new URL("./fixtures/reader_server.ts", import.meta.url)
  .pathname;

function byName(tools: readonly ToolDef[], name: string): ToolDef {
  const found = tools.find((t) => t.name === name);
  assert.ok(found, `no ${name} among ${tools.map((t) => t.name).join(", ")}`);
  return found;
}

Deno.test("permissions: a deno run entry's -A and every other permission flag give way to exactly the granted ones", () => {
  const launch = applyPermissions(
    "files",
    "deno",
    [
      "run",
      "--config",
      "/repo/deno.json",
      "-A",
      "--allow-net=evil.example",
      "--deny-read=/x",
      "-P",
      "--cached-only",
      "npm:@modelcontextprotocol/server-filesystem@2026.8.31",
      "-A", // the server's own argument, after the module: kept
      "/srv",
    ],
    { read: ["/srv", "/tmp/cache"], env: ["OTEL_*"], net: true },
    { env: { DENO_DIR: "/cache" } },
  );
  assert.deepEqual(launch, {
    command: "deno",
    args: [
      "run",
      "--no-prompt",
      "--allow-read=/srv,/tmp/cache",
      "--allow-net",
      "--allow-env=OTEL_*,DENO_DIR",
      "--config=/repo/deno.json",
      "--cached-only",
      "npm:@modelcontextprotocol/server-filesystem@2026.8.31",
      "-A",
      "/srv",
    ],
  });
  // Nothing granted: no --allow flag at all, and no prompt.
  assert.deepEqual(
    applyPermissions("x", "/usr/bin/deno", ["run", "-A", "jsr:@s/srv"], {})
      .args,
    ["run", "--no-prompt", "jsr:@s/srv"],
  );
});

Deno.test("permissions: a variable the entry sets grants its own name only, never a list or a prefix", () => {
  const launch = applyPermissions(
    "files",
    "deno",
    ["run", "jsr:@s/srv"],
    { env: ["OTEL_*"] },
    { env: { "X,HOME": "1", "AWS_*": "2", DENO_DIR: "/cache" } },
  );
  assert.deepEqual(launch.args, [
    "run",
    "--no-prompt",
    "--allow-env=OTEL_*,DENO_DIR",
    "jsr:@s/srv",
  ]);
});

Deno.test("permissions: a program that cannot enforce them is refused, naming the server", () => {
  const refused = (command: string, args: string[], message: RegExp) =>
    assert.throws(
      () => applyPermissions("srv", command, args, { read: ["/a"] }),
      (error: unknown) =>
        error instanceof ServerConfigError && error.server === "srv" &&
        message.test(error.message),
    );
  refused("npx", ["-y", "pkg"], /"npx" cannot enforce them/);
  refused("deno", ["serve", "main.ts"], /apply to "deno run"/);
  refused("deno", ["run", "-A"], /no module after deno run/);
});

Deno.test("permissions: node runs under its permission model for its version, and net must be granted whole", () => {
  const node = (version: [number, number], read: string[]) =>
    applyPermissions("n", "node", ["server.js"], {
      read,
      write: ["/out"],
      net: true,
      run: true,
    }, { nodeVersion: () => version }).args;
  assert.deepEqual(node([20, 20], ["/a", "/b"]), [
    "--experimental-permission",
    "--allow-fs-read=/a",
    "--allow-fs-read=/b",
    "--allow-fs-write=/out",
    "--allow-child-process",
    "server.js",
  ]);
  assert.deepEqual(node([22, 13], ["/a", "/b"]), [
    "--permission",
    "--allow-fs-read=/a",
    "--allow-fs-read=/b",
    "--allow-fs-write=/out",
    "--allow-child-process",
    "server.js",
  ]);
  assert.throws(
    () =>
      applyPermissions("n", "node", ["s.js"], { read: ["/a"] }, {
        nodeVersion: () => [22, 13],
      }),
    /cannot restrict network access/,
  );
  assert.throws(
    () =>
      applyPermissions("n", "node", ["s.js"], { net: true }, {
        nodeVersion: () => [18, 0],
      }),
    /need Node.js 20 or later/,
  );
});

Deno.test("permissions: the config checks them field by field", () => {
  const bad = (permissions: unknown, field: string) =>
    assert.throws(
      () => parseServersConfig({ s: { command: "deno", permissions } }),
      (error: unknown) =>
        error instanceof ServerConfigError && error.field === field,
    );
  bad({ reed: ["/a"] }, "permissions.reed");
  bad({ read: "/a" }, "permissions.read");
  bad({ read: ["/a,/b"] }, "permissions.read");
  bad({ env: ["A*B"] }, "permissions.env");
  assert.throws(
    () => parseServersConfig({ s: { url: "https://x", permissions: {} } }),
    ServerConfigError,
  );
  assert.throws(
    () => parseServersConfig({ s: { command: "x", inheritEnv: ["A=B"] } }),
    ServerConfigError,
  );
});

Deno.test("permissions: Deno's NotCapable and Node's ERR_ACCESS_DENIED are read for the permission", () => {
  assert.deepEqual(
    permissionDenial(
      'error: Uncaught (in promise) NotCapable: Requires read access to "/etc/passwd", run again with the --allow-read flag',
    ),
    {
      permission: "read",
      target: "/etc/passwd",
      line:
        'error: Uncaught (in promise) NotCapable: Requires read access to "/etc/passwd", run again with the --allow-read flag',
    },
  );
  assert.deepEqual(
    permissionDenial(
      "Error: Access to this API has been restricted\n    at x\n{\n  code: 'ERR_ACCESS_DENIED',\n  permission: 'FileSystemWrite',\n  resource: '/etc/x'\n}",
    ),
    {
      permission: "write",
      target: "/etc/x",
      line: "code: 'ERR_ACCESS_DENIED',",
    },
  );
  assert.equal(permissionDenial("Requires a title"), undefined);
});

async function readerServers(
  dir: string,
  extra: { inheritEnv?: string[]; allowEnv?: string[] } = {},
) {
  const lines: string[] = [];
  const servers = await connectServers({
    reader: {
      command: Deno.execPath(),
      args: ["run", "-A", "--quiet", READER],
      env: childEnv(),
      permissions: {
        read: [`${dir}/ok`],
        ...(extra.allowEnv ? { env: extra.allowEnv } : {}),
      },
      ...(extra.inheritEnv ? { inheritEnv: extra.inheritEnv } : {}),
    },
  }, {
    signal: AbortSignal.timeout(20_000),
    stderr: (_, line) => lines.push(line),
    reconnect: false,
  });
  return { servers, lines };
}

Deno.test("permissions: a real deno run server reads what it was granted; a read outside fails with the permission named, at once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "weft-perm-" });
  try {
    await Deno.mkdir(`${dir}/ok`);
    await Deno.mkdir(`${dir}/no`);
    await Deno.writeTextFile(`${dir}/ok/a.txt`, "granted");
    await Deno.writeTextFile(`${dir}/no/s.txt`, "secret");
    const { servers } = await readerServers(dir);
    await using _ = servers;
    assert.equal(servers.error, undefined);
    const status = servers.servers()[0];
    assert.equal(
      status.launch,
      `${Deno.execPath()} run --no-prompt --allow-read=${dir}/ok --allow-env=${
        Object.keys(childEnv()).join(",")
      } --quiet ${READER}`,
    );
    const read = byName(servers.tools, "reader_read");
    const signal = AbortSignal.timeout(15_000);
    assert.equal(
      await read.invoke(JSON.stringify({ path: `${dir}/ok/a.txt` }), {
        signal,
      }),
      "granted",
    );
    // The server caught Deno's NotCapable and answered isError: a tool
    // error that names the flag.
    await assert.rejects(
      read.invoke(JSON.stringify({ path: `${dir}/no/s.txt` }), { signal }),
      (error: Error) => {
        assert.equal(
          error.message,
          `Requires read access to "${dir}/no/s.txt", run again with the --allow-read flag`,
        );
        return true;
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("permissions: a server that dies of a denied read fails the call with ServerPermissionError naming it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "weft-perm-" });
  try {
    await Deno.mkdir(`${dir}/ok`);
    await Deno.writeTextFile(`${dir}/s.txt`, "secret");
    const { servers, lines } = await readerServers(dir);
    await using _ = servers;
    const crash = byName(servers.tools, "reader_crash");
    await assert.rejects(
      crash.invoke(JSON.stringify({ path: `${dir}/s.txt` }), {
        signal: AbortSignal.timeout(15_000),
      }),
      (error: Error) => {
        const cause = error.cause;
        assert.ok(cause instanceof ServerPermissionError, String(error));
        assert.equal(cause.permission, "read");
        assert.equal(cause.target, `${dir}/s.txt`);
        assert.equal(
          cause.message,
          `server "reader" was denied read access to "${dir}/s.txt": its permissions do not grant it (permissions.read in its mcpServers entry)`,
        );
        return true;
      },
    );
    assert.ok(lines.some((l) => l.includes("NotCapable")), lines.join("\n"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("inheritEnv: the server inherits only the variables it names; permissions.env is what it may read", async () => {
  const dir = await Deno.makeTempDir({ prefix: "weft-perm-" });
  Deno.env.set("WEFT_TRUST_PROBE", "passed on");
  try {
    await Deno.mkdir(`${dir}/ok`);
    const allowEnv = ["WEFT_TRUST_*", "HOME"];
    const value = async (inheritEnv: string[] | undefined, name: string) => {
      const { servers } = await readerServers(dir, { inheritEnv, allowEnv });
      await using _ = servers;
      return await byName(servers.tools, "reader_env").invoke(
        JSON.stringify({ path: name }),
        { signal: AbortSignal.timeout(15_000) },
      );
    };
    // Named by the allowlist: passed on; HOME (in the default list) is not.
    assert.equal(
      await value(["WEFT_TRUST_*"], "WEFT_TRUST_PROBE"),
      "passed on",
    );
    assert.equal(await value(["WEFT_TRUST_*"], "HOME"), "(unset)");
    // The default list passes HOME and not the probe.
    assert.equal(await value(undefined, "WEFT_TRUST_PROBE"), "(unset)");
    assert.notEqual(await value(undefined, "HOME"), "(unset)");
    // What permissions.env does not name, the server may not even read.
    await assert.rejects(
      value(["WEFT_TRUST_*"], "USER"),
      /Requires env access to "USER"/,
    );
  } finally {
    Deno.env.delete("WEFT_TRUST_PROBE");
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("inspect --config prints a server's exact command and its permissions", async () => {
  const dir = await Deno.makeTempDir({ prefix: "weft-perm-" });
  try {
    await Deno.mkdir(`${dir}/ok`);
    const path = `${dir}/mcp.json`;
    await Deno.writeTextFile(
      path,
      JSON.stringify({
        mcpServers: {
          reader: {
            command: Deno.execPath(),
            args: ["run", "-A", "--quiet", READER],
            env: { NO_COLOR: "1" },
            permissions: { read: [`${dir}/ok`], net: ["127.0.0.1:1"] },
          },
        },
      }),
    );
    const out: string[] = [];
    const code = await runCli(["inspect", "--config", path], {
      output: { stdout: (t) => out.push(t), stderr: () => {} },
    });
    const text = out.join("");
    assert.equal(code, 0, text);
    const lines = text.split("\n");
    const header = lines.findIndex((l) => l.startsWith("== reader"));
    assert.deepEqual(lines.slice(header + 1, header + 3), [
      `  command: ${Deno.execPath()} run --no-prompt --allow-read=${dir}/ok --allow-net=127.0.0.1:1 --allow-env=NO_COLOR --quiet ${READER}`,
      `  permissions: read=${dir}/ok write=none net=127.0.0.1:1 env=none run=none`,
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const NODE_READER = new URL(
  "./fixtures/node_reader_server.cjs",
  import.meta.url,
).pathname;

Deno.test("permissions: a real node server under its permission model reads what it was granted; a read outside is denied, and a death of it names the permission", async () => {
  const dir = await Deno.makeTempDir({ prefix: "weft-perm-node-" });
  try {
    await Deno.mkdir(`${dir}/ok`);
    await Deno.writeTextFile(`${dir}/ok/a.txt`, "granted");
    await Deno.writeTextFile(`${dir}/s.txt`, "secret");
    await using servers = await connectServers({
      node: {
        command: "node",
        args: [NODE_READER],
        protocol: "legacy",
        // Node reads the server's own file under the same model.
        permissions: { read: [NODE_READER, `${dir}/ok`], net: true },
      },
    }, {
      signal: AbortSignal.timeout(20_000),
      stderr: "ignore",
      reconnect: false,
    });
    assert.equal(servers.error, undefined, servers.error?.message);
    assert.match(
      servers.servers()[0].launch ?? "",
      new RegExp(
        `^node --(experimental-)?permission --allow-fs-read=${NODE_READER} --allow-fs-read=${dir}/ok ${NODE_READER}$`,
      ),
    );
    const signal = AbortSignal.timeout(15_000);
    const read = byName(servers.tools, "node_read");
    assert.equal(
      await read.invoke(JSON.stringify({ path: `${dir}/ok/a.txt` }), {
        signal,
      }),
      "granted",
    );
    await assert.rejects(
      read.invoke(JSON.stringify({ path: `${dir}/s.txt` }), { signal }),
      (error: Error) => {
        assert.equal(
          error.message,
          "ERR_ACCESS_DENIED FileSystemRead: Access to this API has been restricted",
        );
        return true;
      },
    );
    await assert.rejects(
      byName(servers.tools, "node_crash").invoke(
        JSON.stringify({ path: `${dir}/s.txt` }),
        { signal },
      ),
      (error: Error) => {
        const cause = error.cause;
        assert.ok(cause instanceof ServerPermissionError, String(error));
        assert.equal(cause.permission, "read");
        assert.equal(cause.target, `${dir}/s.txt`);
        return true;
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
