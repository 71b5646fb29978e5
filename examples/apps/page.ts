/**
 * The browser side of the MCP Apps test host (bundled with `deno bundle`):
 * runs the agent through `appHost`, and for each `app` event of the run
 * loads the view into the sandbox proxy (its own origin) and drives it with
 * ext-apps' `AppBridge` (no MCP client: every request of the view goes to
 * `appHost`, which applies the gates). A view's request that parks for
 * approval is put to the person with `confirm`, and decided.
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

// A request of a view that may park for approval (a gated tool, a changed
// view): while it waits, ask the person for each parked entry of the run
// and send the decision; `appHost` answers the request then.
async function decided<T>(runId: string, request: Promise<T>): Promise<T> {
  let waiting = true;
  request.then(() => waiting = false, () => waiting = false);
  const asked = new Set<string>();
  while (waiting) {
    const run = await api(`/runs/${runId}?after=${Number.MAX_SAFE_INTEGER}`);
    for (const parked of run.pending ?? []) {
      if (asked.has(parked.id)) continue;
      asked.add(parked.id);
      const what = parked.type === "view_pending"
        ? `show the changed view ${parked.uri}`
        : `call ${parked.tool} (server ${parked.server})`;
      const why = parked.approval ? `\n${parked.approval.message}` : "";
      const decision = confirm(`A view asks to ${what}.${why}\nAllow?`)
        ? { type: "approve", id: parked.id, approval: parked.approval }
        : { type: "deny", id: parked.id, reason: "the user declined" };
      await api(`/runs/${runId}/decisions`, { decisions: [decision] });
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return await request;
}

async function show(runId: string, view: View): Promise<void> {
  const doc = await decided(
    runId,
    api(`/runs/${runId}/views/read`, {
      server: view.server,
      uri: view.resourceUri,
    }),
  );
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
    decided(
      runId,
      api(`/runs/${runId}/views/call`, {
        server: view.server,
        name: params.name,
        arguments: params.arguments ?? {},
      }),
    );
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
