/**
 * Finish reasons and usage of the AI SDK specification versions v2 (a
 * string reason, flat usage) and v3/v4 (`{ unified, raw }`, nested usage),
 * read into weft's stop reason and `Usage`.
 *
 * @module
 */

import type { StopReason, Usage } from "../core/model.ts";

/** A provider's finish reason, normalised across specification versions. */
export interface ProviderFinish {
  /** The specification's unified reason, e.g. `stop`, `content-filter`. */
  readonly unified: string;
  /** The provider's own reason, when it gave one. */
  readonly raw?: string;
}

/** Reads a v2 string or a v3/v4 `{ unified, raw }` finish reason. */
export function readFinishReason(value: unknown): ProviderFinish {
  if (typeof value === "string") return { unified: value };
  if (value !== null && typeof value === "object") {
    const { unified, raw } = value as { unified?: unknown; raw?: unknown };
    return {
      unified: typeof unified === "string" ? unified : "unknown",
      ...(typeof raw === "string" ? { raw } : {}),
    };
  }
  return { unified: "unknown" };
}

/** weft's stop reason for `finish`, or undefined when the turn did not end cleanly. */
export function stopReason(finish: ProviderFinish): StopReason | undefined {
  switch (finish.unified) {
    case "stop":
      return "stop";
    case "length":
      return "max_tokens";
    case "tool-calls":
      return "tool_calls";
    default:
      return undefined;
  }
}

/** Reads v2 flat or v3/v4 nested usage; the optional counts only where reported. */
export function readUsage(value: unknown): Usage {
  if (value === null || typeof value !== "object") {
    return { inputTokens: 0, outputTokens: 0 };
  }
  const usage = value as Record<string, unknown>;
  const input = usage.inputTokens;
  const output = usage.outputTokens;
  if (input !== null && typeof input === "object") {
    const i = input as Record<string, unknown>;
    const o = (output ?? {}) as Record<string, unknown>;
    return build(i.total, o.total, {
      cachedInputTokens: i.cacheRead,
      cacheWriteTokens: i.cacheWrite,
      reasoningTokens: o.reasoning,
    });
  }
  return build(input, output, {
    cachedInputTokens: usage.cachedInputTokens,
    cacheWriteTokens: undefined,
    reasoningTokens: usage.reasoningTokens,
  });
}

function build(
  input: unknown,
  output: unknown,
  extra: Record<
    "cachedInputTokens" | "cacheWriteTokens" | "reasoningTokens",
    unknown
  >,
): Usage {
  const usage: Record<string, number> = {
    inputTokens: count(input) ?? 0,
    outputTokens: count(output) ?? 0,
  };
  for (const [key, value] of Object.entries(extra)) {
    const n = count(value);
    if (n !== undefined) usage[key] = n;
  }
  return usage as unknown as Usage;
}

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value)
    ? value
    : undefined;
}
