/**
 * The browser for tests against a real oidc-provider: a function for
 * `oauthClient`'s `authorize`.
 *
 * @module
 */

/**
 * The user at the browser: follows redirects by hand with a cookie jar,
 * signs in as `alice` and consents (oidc-provider's dev interactions), and
 * returns the URL the provider sent the browser back to (one starting with
 * `redirect`).
 */
export function browser(
  redirect: string,
): { authorize: (url: URL) => Promise<URL>; visits: URL[] } {
  const visits: URL[] = [];
  const authorize = async (start: URL): Promise<URL> => {
    visits.push(start);
    const jar = new Map<string, string>();
    let url = start;
    let init: RequestInit = {};
    for (let step = 0; step < 20; step++) {
      if (url.href.startsWith(redirect)) return url;
      const headers = new Headers(init.headers);
      headers.set(
        "cookie",
        [...jar].map(([k, v]) => `${k}=${v}`).join("; "),
      );
      const response = await fetch(url, {
        ...init,
        headers,
        redirect: "manual",
        signal: AbortSignal.timeout(20_000),
      });
      for (const cookie of response.headers.getSetCookie()) {
        const [pair] = cookie.split(";");
        const at = pair.indexOf("=");
        jar.set(pair.slice(0, at), pair.slice(at + 1));
      }
      const location = response.headers.get("location");
      if (location !== null) {
        await response.body?.cancel();
        url = new URL(location, url);
        init = {};
        continue;
      }
      const html = await response.text();
      const action = html.match(/<form[^>]*action="([^"]+)"/)?.[1];
      const prompt = html.match(/name="prompt" value="([^"]+)"/)?.[1];
      if (action === undefined || prompt === undefined) {
        throw new Error(`no form at ${url} (${response.status}): ${html}`);
      }
      const form = new URLSearchParams({ prompt });
      if (prompt === "login") {
        form.set("login", "alice");
        form.set("password", "secret");
      }
      url = new URL(action, url);
      init = {
        method: "POST",
        body: form,
        headers: { "content-type": "application/x-www-form-urlencoded" },
      };
    }
    throw new Error("the authorization did not come back");
  };
  return { authorize, visits };
}
