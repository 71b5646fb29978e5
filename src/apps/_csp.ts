/**
 * The Content-Security-Policy a view runs under, built from the domains its
 * resource declares (`_meta.ui.csp`), with the extension's restrictive
 * default when it declares none.
 *
 * @module
 */

/** The domains a view declares (`_meta.ui.csp`). */
export interface ViewCsp {
  readonly connectDomains?: readonly string[];
  readonly resourceDomains?: readonly string[];
  readonly frameDomains?: readonly string[];
  readonly baseUriDomains?: readonly string[];
}

// An origin or a host pattern, with nothing that could end a directive or
// add a keyword: scheme://host[:port], host wildcards allowed.
const SOURCE = /^(https?|wss?):\/\/(\*\.)?[a-z0-9.-]+(:[0-9]{1,5})?$/i;

/** The declared sources of one list that are well-formed origins; the rest are dropped. */
function sources(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.filter((s): s is string =>
    typeof s === "string" && SOURCE.test(s)
  );
}

/**
 * The policy for a view: no network, no frames, no plugins unless declared;
 * inline script and style (a view is one HTML document) and `data:` images.
 */
export function viewCsp(csp: unknown): string {
  const c = (typeof csp === "object" && csp !== null ? csp : {}) as Record<
    string,
    unknown
  >;
  const connect = sources(c.connectDomains);
  const resource = sources(c.resourceDomains);
  const frame = sources(c.frameDomains);
  const base = sources(c.baseUriDomains);
  const list = (first: string[], more: string[]) =>
    [...first, ...more].join(" ");
  return [
    "default-src 'none'",
    `script-src ${list(["'self'", "'unsafe-inline'"], resource)}`,
    `style-src ${list(["'self'", "'unsafe-inline'"], resource)}`,
    `img-src ${list(["'self'", "data:"], resource)}`,
    `font-src ${list(["'self'"], resource)}`,
    `media-src ${list(["'self'", "data:"], resource)}`,
    `connect-src ${connect.length === 0 ? "'none'" : connect.join(" ")}`,
    `frame-src ${frame.length === 0 ? "'none'" : frame.join(" ")}`,
    `base-uri ${list(["'self'"], base)}`,
    "object-src 'none'",
    "form-action 'none'",
  ].join("; ");
}
