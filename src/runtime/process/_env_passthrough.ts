/**
 * Which of this process's variables a stdio server is given beyond the
 * default few: the `envPassthrough` patterns of `connectStdio`, and their
 * default (`OTEL_*` when this process runs Deno's built-in OpenTelemetry).
 *
 * @module
 */

/** The patterns in force for one connect, and whether the caller gave them. */
export interface Passthrough {
  /** Names, or prefixes ending in `*`. */
  readonly patterns: readonly string[];
  /** True when given as `envPassthrough`: then a variable that cannot be read fails the connect. */
  readonly given: boolean;
}

/** What `OTEL_DENO` reads when Deno's built-in OpenTelemetry is on. */
const OTEL_ON = new Set(["true", "1"]);

/**
 * Checks `envPassthrough` (a `TypeError` naming the bad entry) or, when
 * absent, picks the default: `["OTEL_*"]` when this process has
 * `OTEL_DENO=true`, else none.
 */
export function passthroughOf(
  value: unknown,
  field = "envPassthrough",
): Passthrough {
  if (value === undefined) {
    return { patterns: tracingOn() ? ["OTEL_*"] : [], given: false };
  }
  if (!Array.isArray(value)) {
    throw new TypeError(
      `connectStdio: ${field} must be an array of variable names or prefixes ending in "*" (e.g. ["OTEL_*"]), got ${typeof value}`,
    );
  }
  value.forEach((pattern: unknown, i) => {
    const ok = typeof pattern === "string" && pattern !== "" &&
      !pattern.includes("=") && !pattern.slice(0, -1).includes("*");
    if (!ok) {
      throw new TypeError(
        `connectStdio: ${field}[${i}] is ${
          typeof pattern === "string" ? JSON.stringify(pattern) : typeof pattern
        }: give a variable name, or a prefix ending in "*" (e.g. "OTEL_*")`,
      );
    }
  });
  return { patterns: value as string[], given: true };
}

/** Whether this process runs Deno's built-in OpenTelemetry (`OTEL_DENO=true`). */
function tracingOn(): boolean {
  try {
    return OTEL_ON.has(Deno.env.get("OTEL_DENO")?.toLowerCase() ?? "");
  } catch {
    return false; // no --allow-env: nothing is read, nothing passed on
  }
}

/**
 * This process's variables that `passthrough` names and that are set. A
 * variable this process may not read is left out under the default, and
 * fails (Deno's permission error) when the caller asked for it.
 */
export function passedThrough(
  passthrough: Passthrough,
): Record<string, string> {
  const { patterns, given } = passthrough;
  if (patterns.length === 0) return {};
  let all: Record<string, string>;
  try {
    all = patterns.some((p) => p.endsWith("*"))
      ? Deno.env.toObject()
      : Object.fromEntries(
        patterns.flatMap((name) => {
          const value = Deno.env.get(name);
          return value === undefined ? [] : [[name, value]];
        }),
      );
  } catch (error) {
    if (given) throw error;
    return {};
  }
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(all)) {
    // A value starting "()" is an exported shell function; never pass one on.
    if (value.startsWith("()")) continue;
    if (patterns.some((p) => matches(p, name))) env[name] = value;
  }
  return env;
}

function matches(pattern: string, name: string): boolean {
  return pattern.endsWith("*")
    ? name.startsWith(pattern.slice(0, -1))
    : name === pattern;
}
