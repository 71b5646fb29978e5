/**
 * The sandbox proxy page: served on its own origin, it holds the view in an
 * inner iframe and relays the JSON-RPC messages between the host page (its
 * parent) and the view, keeping the two `ui/notifications/sandbox-*`
 * messages for itself.
 *
 * @module
 */

/** The proxy's HTML; `hostOrigin` is the only parent it talks to. */
export function sandboxPage(hostOrigin: string): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>view sandbox</title>
<style>html,body{margin:0;height:100%}iframe{border:0;width:100%;height:100%}</style>
</head><body><script>
(() => {
  const host = ${JSON.stringify(hostOrigin)};
  let inner = null;
  window.addEventListener("message", (event) => {
    const data = event.data;
    if (event.source === window.parent) {
      if (event.origin !== host) return;
      if (data && data.method === "ui/notifications/sandbox-resource-ready") {
        const p = data.params || {};
        inner = document.createElement("iframe");
        inner.setAttribute("sandbox", typeof p.sandbox === "string" ? p.sandbox : "allow-scripts allow-same-origin allow-forms");
        if (typeof p.allow === "string") inner.setAttribute("allow", p.allow);
        inner.srcdoc = typeof p.html === "string" ? p.html : "";
        document.body.appendChild(inner);
        return;
      }
      if (inner && inner.contentWindow) inner.contentWindow.postMessage(data, "*");
    } else if (inner && event.source === inner.contentWindow) {
      if (data && typeof data.method === "string" && data.method.startsWith("ui/notifications/sandbox-")) return;
      window.parent.postMessage(data, host);
    }
  });
  window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} }, host);
})();
</script></body></html>`;
}
