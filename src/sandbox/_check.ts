/**
 * Type-checking a program before it runs: the program and the generated
 * declarations go into one file in a temporary folder, checked by
 * `deno check` in a child with no config, lock, remote or npm code and an
 * empty environment. Positions in the diagnostics are the program's own.
 *
 * @module
 */

import type { CheckResult } from "../core/code_mode.ts";
import type { Clock } from "./clock.ts";

/** What a check needs. */
export interface CheckOptions {
  readonly deno: string;
  readonly timeout: number;
  readonly clock: Clock;
  readonly signal?: AbortSignal;
}

/** The first line of the checked file; the program starts on line 2. */
const HEAD = "void (";

/** Checks `code` as an async arrow function, then (on a syntax error) as the body of one. */
export async function checkProgram(
  code: string,
  declarations: string,
  options: CheckOptions,
): Promise<CheckResult> {
  const source = unfenced(code);
  const first = await checkOnce(
    `${HEAD}\n${source}\n);`,
    declarations,
    options,
  );
  if (first.ok || !/TS1\d{3} /.test(first.diagnostics)) return first;
  const body = await checkOnce(
    `${HEAD}async () => {\n${source}\n});`,
    declarations,
    options,
  );
  return body.ok || /TS1\d{3} /.test(body.diagnostics) ? first : body;
}

async function checkOnce(
  program: string,
  declarations: string,
  options: CheckOptions,
): Promise<CheckResult> {
  const dir = await Deno.makeTempDir({ prefix: "weft-check-" });
  const file = `${dir}/program.ts`;
  try {
    await Deno.writeTextFile(
      file,
      `${program}\n${declarations}\nexport {};\n`,
    );
    const controller = new AbortController();
    const timer = options.clock.setTimeout(
      () => controller.abort(),
      options.timeout,
    );
    const stop = () => controller.abort();
    options.signal?.addEventListener("abort", stop, { once: true });
    try {
      const out = await new Deno.Command(options.deno, {
        args: [
          "check",
          "--no-remote",
          "--no-npm",
          "--no-config",
          "--no-lock",
          "--quiet",
          "program.ts",
        ],
        cwd: dir,
        clearEnv: true,
        env: {},
        stdout: "piped",
        stderr: "piped",
        signal: controller.signal,
      }).output();
      if (controller.signal.aborted) {
        return {
          ok: false,
          diagnostics: options.signal?.aborted
            ? "type checking was stopped"
            : `type checking timed out after ${options.timeout} ms`,
        };
      }
      if (out.success) return { ok: true, diagnostics: "" };
      const text = new TextDecoder().decode(out.stderr) +
        new TextDecoder().decode(out.stdout);
      return { ok: false, diagnostics: tidy(text, dir) };
    } finally {
      options.clock.clearTimeout(timer);
      options.signal?.removeEventListener("abort", stop);
    }
  } catch (err) {
    return { ok: false, diagnostics: `type checking failed: ${String(err)}` };
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {
      // A temporary folder left behind holds only the program text.
    });
  }
}

/** Diagnostics without colours, with `program.ts:<line>:<col>` relative to the program. */
function tidy(text: string, dir: string): string {
  // deno-lint-ignore no-control-regex
  const plain = text.replace(/\x1b\[[0-9;]*m/g, "");
  return plain
    .replaceAll(`file://${dir}/`, "")
    .replaceAll(`${dir}/`, "")
    .replace(
      /program\.ts:(\d+):(\d+)/g,
      (_, line, col) => `program.ts:${Math.max(1, Number(line) - 1)}:${col}`,
    )
    .replace(/\n*error: Type checking failed\.[\s\S]*$/, "")
    .trim();
}

function unfenced(code: string): string {
  const trimmed = code.trim();
  const fence = /^```[\w-]*\n([\s\S]*?)\n?```$/.exec(trimmed);
  return fence === null ? trimmed : fence[1].trim();
}
