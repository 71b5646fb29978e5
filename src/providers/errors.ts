/**
 * The errors of the AI SDK adapter: a model of a specification version it
 * does not read, and a turn the provider ended without a clean finish.
 *
 * @module
 */

/** The AI SDK specification versions `aiSdkModel` reads, as `ai` itself accepts them. */
export const SUPPORTED_SPECIFICATION_VERSIONS: readonly string[] = Object
  .freeze(["v2", "v3", "v4"]);

/**
 * `aiSdkModel` was given a model of a specification version it does not
 * read. Text: `aiSdkModel: model "<modelId>" of provider "<provider>" has
 * specificationVersion "<version>"; accepted: v2, v3, v4 (install an AI SDK
 * provider package of a matching major version)`.
 *
 * @example
 * ```ts
 * import { aiSdkModel } from "@weft/mcp";
 * import { UnsupportedSpecificationError } from "@weft/mcp/providers";
 * import assert from "node:assert/strict";
 * const old = { specificationVersion: "v1", provider: "p", modelId: "m", doStream: () => Promise.reject() };
 * assert.throws(() => aiSdkModel(old), UnsupportedSpecificationError);
 * ```
 */
export class UnsupportedSpecificationError extends Error {
  /** The version the model declared, as given. */
  readonly version: unknown;
  /** The model's provider id. */
  readonly provider: string;
  /** The model's id. */
  readonly modelId: string;

  /** Builds the error for a model declaring `version`. */
  constructor(
    version: unknown,
    model: { readonly provider: string; readonly modelId: string },
  ) {
    super(
      `aiSdkModel: model ${JSON.stringify(String(model.modelId))} of provider ${
        JSON.stringify(String(model.provider))
      } has specificationVersion ${
        JSON.stringify(String(version))
      }; accepted: ${SUPPORTED_SPECIFICATION_VERSIONS.join(", ")} ` +
        "(install an AI SDK provider package of a matching major version)",
    );
    this.name = "UnsupportedSpecificationError";
    this.version = version;
    this.provider = String(model.provider);
    this.modelId = String(model.modelId);
  }
}

/**
 * The provider ended a turn with a finish reason that is not a clean stop
 * (`content-filter`, `error`, `other`, …), so its output is not an answer.
 * The run fails with `model stream: <provider> ended the turn with finish
 * reason "<reason>"`, followed by ` (provider's reason: "<raw>")` when the
 * provider gave its own.
 *
 * @example
 * ```ts
 * import { ProviderFinishError } from "@weft/mcp/providers";
 * import assert from "node:assert/strict";
 * const err = new ProviderFinishError("anthropic.messages", { reason: "content-filter", raw: "refusal" });
 * assert.equal(
 *   err.message,
 *   'anthropic.messages ended the turn with finish reason "content-filter" (provider\'s reason: "refusal")',
 * );
 * ```
 */
export class ProviderFinishError extends Error {
  /** The provider id, e.g. `openai.chat`. */
  readonly provider: string;
  /** The specification's unified reason, e.g. `content-filter`. */
  readonly reason: string;
  /** The provider's own reason, when it gave one, e.g. `refusal`. */
  readonly raw?: string;

  /** Builds the error for `provider`'s finish. */
  constructor(
    provider: string,
    finish: { readonly reason: string; readonly raw?: string },
  ) {
    super(
      `${provider} ended the turn with finish reason ${
        JSON.stringify(finish.reason)
      }` +
        (finish.raw !== undefined
          ? ` (provider's reason: ${JSON.stringify(finish.raw)})`
          : ""),
    );
    this.name = "ProviderFinishError";
    this.provider = provider;
    this.reason = finish.reason;
    if (finish.raw !== undefined) this.raw = finish.raw;
  }
}
