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

function send(
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

// --- the host's end reaches every child ---

/** The signals a host forwards to its children before it ends. */
const FORWARDED: readonly Deno.Signal[] = ["SIGINT", "SIGTERM"];

/** The live children and each one's kill grace. */
const live = new Map<SpawnedProcess, number>();
let installed = false;

/**
 * Ties `proc` to the host's own end until it exits: while it runs, a
 * SIGINT or SIGTERM to the host is forwarded to the child's process group
 * (SIGKILL to what is left after `grace` ms), then raised again on the host
 * with our listener gone, so the host ends as it would have without us (or
 * its own listeners run); the host's exit (`Deno.exit`, the `unload` event)
 * sends SIGTERM to every group. The listeners are installed with the first
 * child and removed with the last, and never keep the host alive.
 */
export function endWithHost(proc: SpawnedProcess, grace: number): void {
  if (Deno.build.os === "windows") return;
  live.set(proc, grace);
  install();
  const forget = (): void => {
    live.delete(proc);
    if (live.size === 0) uninstall();
  };
  proc.status.then(forget, forget);
}

function install(): void {
  if (installed) return;
  installed = true;
  try {
    for (const signal of FORWARDED) {
      Deno.addSignalListener(signal, LISTENERS[signal]);
    }
  } catch {
    // No signals here (a worker, a sandbox): close() and exit still apply.
  }
  globalThis.addEventListener("unload", onUnload);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  for (const signal of FORWARDED) {
    try {
      Deno.removeSignalListener(signal, LISTENERS[signal]);
    } catch {
      // never added
    }
  }
  globalThis.removeEventListener("unload", onUnload);
}

const LISTENERS: Record<string, () => void> = {
  SIGINT: () => void onHostSignal("SIGINT"),
  SIGTERM: () => void onHostSignal("SIGTERM"),
};

async function onHostSignal(signal: Deno.Signal): Promise<void> {
  // Our listeners go first: a second signal takes the default path at once.
  uninstall();
  const children = [...live];
  await Promise.all(
    children.map(([proc, grace]) =>
      terminateProcess(proc, grace, signal).catch(() => {})
    ),
  );
  // Raised again with our listener gone: the default action ends the host
  // with the conventional status (130 for SIGINT, 143 for SIGTERM), or the
  // host's own listeners run, as if we had never been there.
  try {
    Deno.kill(Deno.pid, signal);
  } catch {
    Deno.exit(128 + (signal === "SIGINT" ? 2 : 15));
  }
}

function onUnload(): void {
  for (const proc of live.keys()) send(proc, "SIGTERM", false);
}
