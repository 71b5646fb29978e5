/**
 * Models from AI SDK providers in full: `aiSdkModel`, its options, the
 * structural model type any copy of a provider package fits, the accepted
 * specification versions, and the errors a provider's turn can end with.
 *
 * @example Refuse a model of an unknown specification version
 * ```ts
 * import {
 *   type AiSdkLanguageModel,
 *   aiSdkModel,
 *   UnsupportedSpecificationError,
 * } from "@weft/mcp/providers";
 * import assert from "node:assert/strict";
 *
 * const future = {
 *   specificationVersion: "v9",
 *   provider: "example",
 *   modelId: "m",
 *   doStream: () => Promise.reject(new Error("never called")),
 * };
 * assert.throws(
 *   () => aiSdkModel(future as unknown as AiSdkLanguageModel),
 *   UnsupportedSpecificationError,
 * );
 * ```
 *
 * @module
 */

export { aiSdkModel } from "./src/providers/ai_sdk.ts";
export type {
  AiSdkLanguageModel,
  AiSdkModelOptions,
  ProviderOptions,
} from "./src/providers/ai_sdk.ts";
export {
  ProviderFinishError,
  SUPPORTED_SPECIFICATION_VERSIONS,
  UnsupportedSpecificationError,
} from "./src/providers/errors.ts";
