/**
 * Pinning a view: the digest of its HTML and the `_meta.ui` a host applies
 * (CSP domains, permissions, domain), kept per server and URI; a view that
 * changed since parks until the page (or the host, `approveView`) approves
 * it.
 *
 * @module
 */

import type { PinStore } from "../bridge/pins.ts";
import type { ApprovalRequest } from "../core/errors.ts";
import type { ViewDocument } from "./_views.ts";

/** The view's digest: SHA-256 (hex) over its HTML, CSP, permissions and domain. */
export async function viewDigest(view: ViewDocument): Promise<string> {
  const text = JSON.stringify([
    view.html,
    view.meta.csp ?? null,
    view.meta.permissions ?? null,
    view.meta.domain ?? null,
  ]);
  const hash = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(text),
  );
  return Array.from(
    new Uint8Array(hash),
    (b) => b.toString(16).padStart(2, "0"),
  )
    .join("");
}

function keyOf(server: string, uri: string): string {
  return `weft.view/${server}/${uri}`;
}

/**
 * Checks `view` of `server` against its pin: none yet pins it (trust on
 * first use) and the same digest pass (undefined); another digest comes
 * back as the approval request a parked read carries (`view_changed`, the
 * old and new digests as its diff, the new one as `digest`).
 */
export async function changedView(
  store: PinStore,
  server: string,
  view: ViewDocument,
): Promise<(ApprovalRequest & { readonly digest: string }) | undefined> {
  const digest = await viewDigest(view);
  const key = keyOf(server, view.uri);
  const pinned = await store.get(key);
  if (pinned === undefined) {
    // A racing first read pinned it: compare with that one.
    if (await store.swap(key, undefined, { digest })) return undefined;
    return await changedView(store, server, view);
  }
  const was = String((pinned.value as { digest?: unknown } | null)?.digest);
  if (was === digest) return undefined;
  return {
    reason: "view_changed",
    message:
      `the view ${view.uri} of server "${server}" changed since it was pinned (digest ${
        was.slice(0, 12)
      }… → ${digest.slice(0, 12)}…)`,
    diff: `- digest ${was}\n+ digest ${digest}`,
    digest,
  };
}

/** Pins `view` of `server` as it is now (the host approved the change). */
export async function approveViewPin(
  store: PinStore,
  server: string,
  view: ViewDocument,
): Promise<void> {
  const digest = await viewDigest(view);
  const key = keyOf(server, view.uri);
  for (let attempt = 0; attempt < 5; attempt++) {
    const pinned = await store.get(key);
    if (await store.swap(key, pinned?.version, { digest })) return;
  }
  throw new Error(
    `appHost: could not pin the view ${view.uri} of server "${server}": the pin store kept changing under it`,
  );
}
