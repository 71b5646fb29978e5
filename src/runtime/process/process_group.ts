/**
 * Spawning a server process as the leader of its own process group, and
 * ending the whole group: SIGTERM, then SIGKILL after a grace period.
 *
 * @module
 */

/** The default time between SIGTERM and SIGKILL, in milliseconds. */
export const DEFAULT_KILL_GRACE = 2000;

/** How often the group is polled while it winds down, in milliseconds. */
const POLL_INTERVAL = 20;

/** What to spawn. */
export interface SpawnSpec {
  /** The program. */
  readonly command: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /** The complete environment (the child inherits nothing else). */
  readonly env: Readonly<Record<string, string>>;
  /** The working directory; the parent's when absent. */
  readonly cwd?: string;
  /** Whether the child's stderr is piped to us, inherited, or discarded. */
  readonly stderr: "piped" | "inherit" | "null";
}

/** A spawned server process. */
export interface SpawnedProcess {
  /** The child, with stdin and stdout piped. */
  readonly child: Deno.ChildProcess;
  /** True when the child leads its own process group (pgid = pid). */
  readonly grouped: boolean;
  /** The exit status, once known. */
  readonly status: Promise<Deno.CommandStatus>;
}

/**
 * Spawns the server. On Unix it runs through `setsid` (util-linux), which
 * puts it in a new session and process group whose id is its pid — Deno
 * 2.9's `Deno.Command` has no process-group option (`detached` keeps the
 * parent's group). `setsid` execs in place, so the pid is the server's.
 * Where `setsid` is not installed (macOS) or on Windows the server is
 * spawned directly and only it, not its descendants, can be ended.
 */
export function spawnProcess(spec: SpawnSpec): SpawnedProcess {
  if (Deno.build.os !== "windows") {
    try {
      return spawn("setsid", [spec.command, ...spec.args], spec, true);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  return spawn(spec.command, spec.args, spec, false);
}

function spawn(
  program: string,
  args: readonly string[],
  spec: SpawnSpec,
  grouped: boolean,
): SpawnedProcess {
  const child = new Deno.Command(program, {
    args: [...args],
    env: { ...spec.env },
    clearEnv: true,
    cwd: spec.cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: spec.stderr,
  }).spawn();
  return { child, grouped, status: child.status };
}

/**
 * Ends the process and, when it leads a group, every process left in the
 * group: SIGTERM to all at once, then SIGKILL to whatever is still there
 * after `grace` ms. Resolves when the process has exited. Safe to call after
 * the process exited on its own (its descendants are still ended).
 */
export async function terminateProcess(
  proc: SpawnedProcess,
  grace: number,
  first: Deno.Signal = "SIGTERM",
): Promise<void> {
  let exited = false;
  const status = proc.status.then(() => {
    exited = true;
  });
  const deadline = Date.now() + grace;
  send(proc, first, exited);
  await settleWithin(status, grace);
  while (proc.grouped && groupAlive(proc.child.pid) && Date.now() < deadline) {
    await settleWithin(
      status,
      Math.min(POLL_INTERVAL, Math.max(0, deadline - Date.now())),
    );
  }
  if (!exited || (proc.grouped && groupAlive(proc.child.pid))) {
    send(proc, "SIGKILL", exited);
  }
  await status;
}

/**
 * Sends `signal` to the process's group (or, not grouped, to the process
 * unless it `exited`); a group already gone is no error.
 */
export function send(
  proc: SpawnedProcess,
  signal: Deno.Signal,
  exited: boolean,
): void {
  try {
    if (proc.grouped) Deno.kill(-proc.child.pid, signal);
    else if (!exited) proc.child.kill(signal);
  } catch {
    // Already gone (ESRCH): nothing left to signal.
  }
}

function groupAlive(pgid: number): boolean {
  try {
    Deno.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits for `promise` or `ms`, whichever comes first; the timer never outlives the wait. */
export async function settleWithin(
  promise: Promise<unknown>,
  ms: number,
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([promise, elapsed]);
  } finally {
    clearTimeout(timer);
  }
}
