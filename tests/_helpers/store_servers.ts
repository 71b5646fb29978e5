/**
 * Real Redis and Postgres servers for the store tests: each started on
 * 127.0.0.1 with a free port and a temporary data directory, stopped (and
 * the directory removed) by `stop()`. A server that cannot start throws an
 * Error whose message is one line saying which and why — the test fails;
 * nothing is skipped.
 *
 * Postgres refuses to run as root: as root, `initdb` and `pg_ctl` run as
 * the `postgres` user through `runuser`.
 */

import { waitFor } from "./wait.ts";

/** A started server. */
export interface RunningServer {
  /** Its connection string. */
  readonly url: string;
  /** The port it listens on. */
  readonly port: number;
  /** Stops it and removes its data directory. */
  stop(): Promise<void>;
}

/** A started Redis: also paused and resumed (`SIGSTOP`, `SIGCONT`), its data kept. */
export interface RunningRedis extends RunningServer {
  /** Sends `signal` to the server process. */
  signal(signal: Deno.Signal): void;
}

/** A port nothing listens on now. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

async function run(
  command: string,
  args: string[],
  what: string,
): Promise<string> {
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command(command, {
      args,
      stdout: "piped",
      stderr: "piped",
      stdin: "null",
    }).output();
  } catch (error) {
    throw new Error(
      `${what}: cannot run ${command} (${
        (error as Error).message
      }); install it: apt-get install -y redis-server postgresql`,
    );
  }
  const text = new TextDecoder().decode(output.stdout) +
    new TextDecoder().decode(output.stderr);
  if (!output.success) {
    const last = text.trim().split("\n").slice(-2).join(" | ");
    throw new Error(`${what}: ${command} failed (${last})`);
  }
  return text;
}

/** Resolves once `port` accepts a connection; throws past `ms`. */
async function reachable(port: number, ms: number, what: string) {
  await waitFor(
    async () => {
      try {
        const conn = await Deno.connect({ hostname: "127.0.0.1", port });
        conn.close();
        return true;
      } catch {
        return false; // not listening yet: tried again until the deadline
      }
    },
    `${what}: something listening on 127.0.0.1:${port} within ${ms} ms`,
    {
      signal: AbortSignal.timeout(ms),
      everyMs: 50,
    },
  );
}

/**
 * Starts `redis-server` (no persistence) on a free port.
 *
 * @example
 * ```ts ignore
 * const redis = await startRedis();
 * try { console.log(redis.url); } finally { await redis.stop(); }
 * ```
 */
export async function startRedis(): Promise<RunningRedis> {
  const what = "cannot start redis-server for the store tests";
  const dir = await Deno.makeTempDir({ prefix: "weft-redis-" });
  const port = freePort();
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("redis-server", {
      args: [
        "--bind",
        "127.0.0.1",
        "--port",
        String(port),
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        dir,
      ],
      stdout: "null",
      stderr: "null",
      stdin: "null",
    }).spawn();
  } catch (error) {
    await Deno.remove(dir, { recursive: true });
    throw new Error(
      `${what}: ${
        (error as Error).message
      } (install it: apt-get install -y redis-server)`,
    );
  }
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* gone already */ }
    await child.status;
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  try {
    await reachable(port, 10_000, what);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    signal: (signal) => child.kill(signal),
  };
}

/** The directory of Postgres's server binaries (`initdb`, `pg_ctl`). */
async function postgresBin(): Promise<string> {
  const candidates: string[] = [];
  try {
    for await (const entry of Deno.readDir("/usr/lib/postgresql")) {
      candidates.push(`/usr/lib/postgresql/${entry.name}/bin`);
    }
  } catch { /* not Debian's layout */ }
  candidates.sort((a, b) => Number(b.split("/")[3]) - Number(a.split("/")[3]));
  for (const dir of candidates) {
    try {
      await Deno.stat(`${dir}/initdb`);
      return dir;
    } catch { /* next */ }
  }
  return ""; // from PATH
}

/**
 * Starts a throwaway Postgres cluster (trust auth, user `weft`, database
 * `postgres`, fsync off) on a free port.
 *
 * @example
 * ```ts ignore
 * const pg = await startPostgres();
 * try { console.log(pg.url); } finally { await pg.stop(); }
 * ```
 */
export async function startPostgres(): Promise<RunningServer> {
  const what = "cannot start postgres for the store tests";
  const bin = await postgresBin();
  const tool = (name: string) => bin === "" ? name : `${bin}/${name}`;
  const root = Deno.uid() === 0;
  // As root: the commands run as `postgres`, which must own the directory.
  const as = (command: string, args: string[]): [string, string[]] =>
    root ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [
      command,
      args,
    ];
  const dir = await Deno.makeTempDir({ prefix: "weft-pg-" });
  const data = `${dir}/data`;
  if (root) {
    const uid = Number((await run("id", ["-u", "postgres"], what)).trim());
    const gid = Number((await run("id", ["-g", "postgres"], what)).trim());
    await Deno.chown(dir, uid, gid);
  }
  const port = freePort();
  const remove = () => Deno.remove(dir, { recursive: true }).catch(() => {});
  try {
    await run(
      ...as(tool("initdb"), [
        "-D",
        data,
        "-U",
        "weft",
        "-A",
        "trust",
        "--no-sync",
        "-E",
        "UTF8",
      ]),
      what,
    );
    await run(
      ...as(tool("pg_ctl"), [
        "start",
        "-w",
        "-t",
        "30",
        "-D",
        data,
        "-l",
        `${dir}/log`,
        "-o",
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`,
      ]),
      what,
    );
  } catch (error) {
    await remove();
    throw error;
  }
  const stop = async () => {
    await run(
      ...as(tool("pg_ctl"), ["stop", "-D", data, "-m", "immediate", "-w"]),
      "cannot stop postgres",
    ).catch(() => {});
    await remove();
  };
  try {
    await reachable(port, 10_000, what);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `postgres://weft@127.0.0.1:${port}/postgres`, port, stop };
}
