/**
 * What a provider says about a call beside its answer, read across the AI
 * SDK specification versions v2 to v4: its warnings (`stream-start`) and
 * its response metadata (`response-metadata`), as the core's
 * `ModelWarning` and `ModelResponseInfo`.
 *
 * @module
 */

import type { ModelResponseInfo, ModelWarning } from "../core/model.ts";

/**
 * One AI SDK warning as a `ModelWarning`. v3/v4 `unsupported` and
 * `compatibility` (`feature`, `details`), v4 `deprecated` (`setting`,
 * `message`) and `other` (`message`) keep their type; v2's
 * `unsupported-setting` (`setting`) and `unsupported-tool` (`tool`) read as
 * `unsupported`, the tool as `tool "<name>"`. Any other shape keeps its
 * string `type` (else `other`) and whichever of those fields are strings.
 */
export function readWarning(value: unknown): ModelWarning {
  const w = isRecord(value) ? value : {};
  const given = typeof w.type === "string" && w.type !== "" ? w.type : "other";
  const type = given === "unsupported-setting" || given === "unsupported-tool"
    ? "unsupported"
    : given;
  const feature = text(w.feature) ?? text(w.setting) ?? toolName(w.tool);
  const message = text(w.details) ?? text(w.message);
  return {
    type,
    ...(feature !== undefined ? { feature } : {}),
    ...(message !== undefined ? { message } : {}),
  };
}

/**
 * A `response-metadata` part's `id`, `modelId` and `timestamp` (a `Date`,
 * as ISO 8601 text), each only when given; undefined when none is.
 */
export function readResponse(
  value: Record<string, unknown>,
): ModelResponseInfo | undefined {
  const info: { id?: string; modelId?: string; timestamp?: string } = {};
  const id = text(value.id);
  if (id !== undefined) info.id = id;
  const modelId = text(value.modelId);
  if (modelId !== undefined) info.modelId = modelId;
  const timestamp = isoTime(value.timestamp);
  if (timestamp !== undefined) info.timestamp = timestamp;
  return Object.keys(info).length > 0 ? info : undefined;
}

function isoTime(value: unknown): string | undefined {
  if (value instanceof Date) {
    return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  }
  return text(value);
}

function toolName(tool: unknown): string | undefined {
  if (!isRecord(tool)) return undefined;
  const name = text(tool.name) ?? text(tool.id);
  return name === undefined ? undefined : `tool ${JSON.stringify(name)}`;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
