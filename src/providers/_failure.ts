/**
 * A provider's error as the run's failure: the text names the provider, the
 * status and whether a retry may help; the cause is the provider's error.
 *
 * @module
 */

import { errorText, ModelStreamError } from "../core/errors.ts";

/**
 * The run's failure for a provider error: a `ModelStreamError` whose cause
 * is the provider's own error and whose text names the provider, the HTTP
 * status and whether a retry may help, then the provider's message:
 * `<provider> answered HTTP <status> (retryable): <message>` for a refused
 * request, `<provider> stream error (retryable): <message>` for an error
 * inside a stream or a body that failed mid-stream (the parenthesis only
 * where the provider says), and
 * `<provider>: <message>` for anything else (a failed `fetch`).
 */
export function providerFailure(
  provider: string,
  err: unknown,
  phase: "request" | "stream",
): ModelStreamError {
  if (err instanceof ModelStreamError) return err;
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  const retryable = (err as { isRetryable?: unknown } | null)?.isRetryable;
  const message = providerMessage(err);
  let detail: string;
  const retry = retryable === true
    ? " (retryable)"
    : retryable === false
    ? " (not retryable)"
    : "";
  if (phase === "stream") {
    detail = `${provider} stream error${retry}: ${message}`;
  } else if (typeof status === "number") {
    detail = `${provider} answered HTTP ${status}${retry}: ${message}`;
  } else {
    detail = `${provider}: ${message}`;
  }
  return new ModelStreamError(err, { detail });
}

/**
 * The provider's message: an Error's message (then its cause's, when the
 * message does not already say it: the AI SDK words a body that failed
 * mid-stream as "Failed to process successful response"), else a
 * `message` field (also under `error`), else JSON.
 */
function providerMessage(err: unknown): string {
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? err.cause.message : "";
    return cause !== "" && !err.message.includes(cause)
      ? `${err.message}: ${cause}`
      : err.message;
  }
  if (err !== null && typeof err === "object") {
    const direct = (err as { message?: unknown }).message;
    if (typeof direct === "string") return direct;
    const inner = (err as { error?: { message?: unknown } }).error?.message;
    if (typeof inner === "string") return inner;
    try {
      return JSON.stringify(err);
    } catch {
      // fall through to the plain text
    }
  }
  return errorText(err);
}
