/**
 * The browser side of the MCP Apps test host (bundled with `deno bundle`):
 * runs the agent through `appHost`, and for each `app` event of the run
 * loads the view into the sandbox proxy (its own origin) and drives it with
 * ext-apps' `AppBridge` (no MCP client: every request of the view goes to
 * `appHost`, which applies the gates).
 */

import {
  AppBridge,
  PostMessageTransport,
} from "@modelcontextprotocol/ext-apps/app-bridge";

interface View {
  server: string;
  tool: string;
  resourceUri: string;
  input: Record<string, unknown>;
  result: Record<string, unknown>;
}

const sandboxOrigin = document.body.dataset.sandbox!;

// deno-lint-ignore no-explicit-any
async function api(path: string, body?: unknown): Promise<any> {
  const response = await fetch(
    path,
    body === undefined ? {} : { method: "POST", body: JSON.stringify(body) },
  );
  const json = await response.json();
  if (!response.ok) throw new Error(json.error?.message ?? response.status);
  return json;
}

async function show(runId: string, view: View): Promise<void> {
  const doc = await api(`/runs/${runId}/views/read`, {
    server: view.server,
    uri: view.resourceUri,
  });
  const iframe = document.createElement("iframe");
  iframe.id = "view";
  iframe.style.cssText = "width:100%;height:480px;border:1px solid #ccc";
  iframe.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
  const ready = new Promise<void>((resolve) => {
    const listen = (event: MessageEvent) => {
      if (
        event.source === iframe.contentWindow &&
        event.origin === sandboxOrigin &&
        event.data?.method === "ui/notifications/sandbox-proxy-ready"
      ) {
        removeEventListener("message", listen);
        resolve();
      }
    };
    addEventListener("message", listen);
  });
  iframe.src = `${sandboxOrigin}/sandbox?csp=${
    encodeURIComponent(JSON.stringify(doc.meta.csp ?? {}))
  }`;
  document.getElementById("views")!.append(iframe);
  await ready;
  const bridge = new AppBridge(
    null,
    { name: "weft-apps-host", version: "1.0.0" },
    { serverTools: {}, logging: {} },
  );
  const from = { server: view.server, tool: view.tool };
  bridge.oncalltool = (params) =>
    api(`/runs/${runId}/views/call`, {
      server: view.server,
      name: params.name,
      arguments: params.arguments ?? {},
    });
  bridge.onmessage = async (params) => {
    await api(`/runs/${runId}/views/message`, { ...from, params });
    return {};
  };
  bridge.onupdatemodelcontext = async (params) => {
    await api(`/runs/${runId}/views/context`, { ...from, params });
    return {};
  };
  bridge.oninitialized = async () => {
    await bridge.sendToolInput({ arguments: view.input });
    await bridge.sendToolResult(view.result as never);
    document.body.dataset.delivered = "yes";
  };
  await bridge.connect(
    new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!),
  );
  await bridge.sendSandboxResourceReady({
    html: doc.html,
    csp: doc.meta.csp,
    permissions: doc.meta.permissions,
  });
}

async function main(): Promise<void> {
  const { runId } = await api("/runs", { input: "What time is it?" });
  document.body.dataset.run = runId;
  const shown = new Set<string>();
  let next = 0;
  for (;;) {
    const run = await api(`/runs/${runId}?after=${next}`);
    next = run.next;
    for (const record of run.log) {
      if (record.type === "app" && !shown.has(record.callId)) {
        shown.add(record.callId);
        await show(runId, record.view);
      }
    }
    if (run.status !== "running") {
      document.getElementById("answer")!.textContent = run.text ?? run.error;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

main().catch((error) => {
  document.body.dataset.error = String(error?.stack ?? error);
});
