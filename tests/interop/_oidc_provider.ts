/**
 * oidc-provider's `Provider` for the interop tests, loaded after
 * `_oidc_quiet.ts` (module requests are evaluated in order), so the notices
 * it prints about the tests' quick-start set-up — from its first import on —
 * are kept in `oidcAttention` instead of reading as failures.
 *
 * @module
 */

import "./_oidc_quiet.ts";
export { default } from "oidc-provider";
export { oidcAttention } from "./_oidc_quiet.ts";
