/**
 * What oidc-provider says that the interop tests expect, kept out of the
 * test output: evaluated before oidc-provider (see `_oidc_provider.ts`), it
 * diverts from `console.warn` and `console.info` the provider's notices
 * about the quick-start set-up these tests use on purpose — an unsupported
 * runtime (Deno), the in-memory adapter, development keys and interactions,
 * default TTL and policy functions — into {@link oidcAttention}. Anything
 * else, from oidc-provider or not, is printed as before.
 *
 * @module
 */

/** The notices a test set-up of oidc-provider is expected to print. */
const EXPECTED: readonly RegExp[] = [
  /^oidc-provider WARNING: Unsupported runtime\. /,
  /^oidc-provider WARNING: a quick start development-only in-memory adapter is used, /,
  /^oidc-provider WARNING: quick start development-only signing keys are used, /,
  /^oidc-provider WARNING: a quick start development-only feature devInteractions is enabled, /,
  /^oidc-provider NOTICE: default [\w.]+ function called, you SHOULD change it /,
];

/** The expected notices oidc-provider printed, in order, kept instead of printed. */
export const oidcAttention: string[] = [];

function divert(
  print: (...data: unknown[]) => void,
): (...data: unknown[]) => void {
  return (...data: unknown[]) => {
    if (data.length === 1 && typeof data[0] === "string") {
      // oidc-provider colours them on a terminal.
      // deno-lint-ignore no-control-regex
      const plain = data[0].replace(/\x1b\[[0-9;]*m/g, "");
      if (EXPECTED.some((expected) => expected.test(plain))) {
        oidcAttention.push(plain);
        return;
      }
    }
    print(...data);
  };
}

console.warn = divert(console.warn.bind(console));
console.info = divert(console.info.bind(console));
