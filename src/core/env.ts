/**
 * The core's one window on the process environment. This is the only file
 * in `src/core` that touches `Deno.*` (the architecture test pins it), so the
 * rest of the core runs on any runtime with web standards.
 *
 * @module
 */

const VARIABLE = "WEFT_MODEL_REQUESTS";

interface EnvReader {
  get(key: string): string | undefined;
}

interface DenoLike {
  env?: EnvReader;
  permissions?: {
    querySync?(
      descriptor: { name: "env"; variable: string },
    ): { state: string };
  };
}

interface ProcessLike {
  env?: Record<string, string | undefined>;
}

/**
 * The kill switch for model requests: false exactly when the environment
 * variable `WEFT_MODEL_REQUESTS` is `deny` (case-sensitive), read on every
 * call. A runtime without environment access reads as allowed: no `Deno.env`
 * (nor `process.env`), env permission not granted (checked without prompting),
 * or a read that throws. Scripted models ignore the switch, and `tools/call`
 * is not a model request.
 *
 * @example Using `modelRequestsAllowed`
 * ```ts
 * import { modelRequestsAllowed } from "@weft/mcp/core";
 * import assert from "node:assert/strict";
 * assert.equal(typeof modelRequestsAllowed(), "boolean");
 * ```
 */
export function modelRequestsAllowed(): boolean {
  return readVariable() !== "deny";
}

function readVariable(): string | undefined {
  const deno = (globalThis as { Deno?: DenoLike }).Deno;
  try {
    if (deno !== undefined) {
      if (deno.env === undefined) return undefined;
      const query = deno.permissions?.querySync;
      if (query !== undefined) {
        const status = query.call(deno.permissions, {
          name: "env",
          variable: VARIABLE,
        });
        if (status.state !== "granted") return undefined;
      }
      return deno.env.get(VARIABLE);
    }
    const process = (globalThis as { process?: ProcessLike }).process;
    return process?.env?.[VARIABLE];
  } catch {
    // No permission, or a sandbox that throws on access: no environment.
    return undefined;
  }
}
