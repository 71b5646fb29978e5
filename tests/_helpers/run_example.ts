/**
 * Runs an example the way a reader runs it: a child `deno run -A` from the
 * repository root, no stdin, its output collected.
 */

const ROOT = new URL("../../", import.meta.url).pathname;

/** What a finished example left behind. */
export interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `path` with `args`. Given `env`, the child sees only that
 * environment; otherwise it inherits this one. Given `config`, the child
 * resolves with that deno.json (an example whose packages are test-only).
 */
export async function runExample(
  path: string,
  args: string[] = [],
  env?: Record<string, string>,
  config?: string,
): Promise<Ran> {
  const flags = config === undefined ? [] : ["--config", config];
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", ...flags, path, ...args],
    cwd: ROOT,
    ...(env !== undefined ? { env, clearEnv: true } : {}),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return {
    code: out.code,
    stdout: text.decode(out.stdout),
    stderr: text.decode(out.stderr),
  };
}
