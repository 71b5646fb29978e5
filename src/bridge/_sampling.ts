/**
 * `ctx.sample` for an exported tool's call: how a weft tool asks its MCP
 * caller's model, in the caller's era.
 *
 * - A 2025 caller that declared `sampling` gets `sampling/createMessage`,
 *   sent in the call's context (on its response stream); `sample`
 *   resolves to the checked answer.
 * - A 2026-07-28 caller gets an `input_required` result carrying the
 *   request and retries with the answer (see `_ask.ts`, which keeps the
 *   asks and samples of one call in one order).
 *
 * Every failure is a rejection of `sample` (a tool failure unless the
 * tool catches it): `SamplingUnavailableError` when the caller cannot be
 * asked, the client's own error, or `InvalidAnswerError` for an answer
 * that is not a sampling result.
 *
 * @module
 */

import {
  type SampleFn,
  type SampleRequest,
  type SampleResult,
  SamplingUnavailableError,
} from "../core/sampling.ts";
import type { AskExtra, AskServer } from "./_ask.ts";
import { InvalidAnswerError } from "./_answer.ts";

/** A `sampling/createMessage` request as it goes out (embedded or on the wire). */
export interface SamplingMessage {
  readonly method: "sampling/createMessage";
  readonly params: Record<string, unknown>;
}

/**
 * The `sampling/createMessage` request for `request`: its fields as given
 * (a copy). A `TypeError` for a request without a `messages` array or a
 * positive integer `maxTokens`.
 */
export function samplingMessage(
  tool: string,
  request: SampleRequest,
): SamplingMessage {
  if (
    request === null || typeof request !== "object" ||
    !Array.isArray(request.messages)
  ) {
    throw new TypeError(
      `tool ${
        JSON.stringify(tool)
      }: ctx.sample(request) needs request.messages, an array of { role, content }`,
    );
  }
  if (!Number.isInteger(request.maxTokens) || request.maxTokens <= 0) {
    throw new TypeError(
      `tool ${
        JSON.stringify(tool)
      }: ctx.sample(request) needs request.maxTokens, a positive integer`,
    );
  }
  return {
    method: "sampling/createMessage",
    params: { ...request } as Record<string, unknown>,
  };
}

/**
 * `value` as a sampling result, checked: an object with `role` (`user` or
 * `assistant`), `content` (an item or an array of items, each an object
 * with a string `type`) and a string `model`. Refused with
 * `InvalidAnswerError` (-32602, `invalid <where>: …`).
 */
export function checkSampleResult(value: unknown, where: string): SampleResult {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new InvalidAnswerError(
      where,
      "expected a sampling result object ({ role, content, model })",
    );
  }
  const { role, content, model, stopReason } = value as Record<
    string,
    unknown
  >;
  if (role !== "user" && role !== "assistant") {
    throw new InvalidAnswerError(where, 'role must be "user" or "assistant"');
  }
  const items = Array.isArray(content) ? content : [content];
  if (
    items.length === 0 ||
    !items.every((item) =>
      item !== null && typeof item === "object" &&
      typeof (item as { type?: unknown }).type === "string"
    )
  ) {
    throw new InvalidAnswerError(
      where,
      "content must be a content item ({ type, … }) or an array of them",
    );
  }
  if (typeof model !== "string") {
    throw new InvalidAnswerError(where, "model must be a string");
  }
  const result: {
    role: "user" | "assistant";
    content: SampleResult["content"];
    model: string;
    stopReason?: string;
  } = { role, content: content as SampleResult["content"], model };
  if (typeof stopReason === "string") result.stopReason = stopReason;
  return result;
}

// The SDK parses a request's result with the schema it is given; the answer
// is checked here instead (`checkSampleResult`), so it is taken as it came.
const ANY_RESULT = Object.freeze({
  safeParse: (data: unknown) => ({ success: true, data }),
});

/**
 * The 2025 way: `sampling/createMessage` to the client, related to the
 * call. Fails at once without a client that initialized this server (a
 * stateless 2025 client) or without its `sampling` capability.
 */
export function legacySample(
  server: AskServer,
  tool: string,
  extra: AskExtra,
): SampleFn {
  return async (request, options) => {
    const message = samplingMessage(tool, request);
    if (typeof server.getClientCapabilities === "function") {
      const declared = server.getClientCapabilities();
      if (declared === undefined) {
        throw new SamplingUnavailableError(tool, "no-session");
      }
      if (declared.sampling === undefined) {
        throw new SamplingUnavailableError(tool, "no-capability");
      }
    }
    const signal = options?.signal === undefined
      ? extra.signal
      : AbortSignal.any([extra.signal, options.signal]);
    const result = await extra.sendRequest(
      message as unknown as { method: string; params: Record<string, unknown> },
      ANY_RESULT,
      // A person may review the request first: the call's signal bounds it, not the SDK's 60 s.
      { signal, timeout: 2_147_483_647 },
    );
    return checkSampleResult(result, "sampling result");
  };
}

/** A `sample` that always fails: the path the call runs by carries no request to the client. */
export function unavailableSample(tool: string, detail: string): SampleFn {
  return () =>
    Promise.reject(new SamplingUnavailableError(tool, "unsupported", detail));
}
