/**
 * MCP Apps in a real browser (issue 37 item 4): headless Chromium (Debian's
 * /usr/bin/chromium, driven by puppeteer-core) loads a host page that runs
 * an agent through `appHost`; the scripted model calls `get-time` of the
 * real `@modelcontextprotocol/server-basic-vanillajs` (a child process,
 * imported by `connectServers` with `apps: true`); the page loads the view
 * into the sandbox proxy on its own origin and hands it the tool's input
 * and result with ext-apps' `AppBridge`; the view shows the time. Then the
 * view's own button calls `get-time` through `appHost`, and the run records
 * the call as made by the app.
 */

import assert from "node:assert/strict";
import puppeteer, { type Frame } from "puppeteer-core";
import { Agent, connectServers } from "../../mod.ts";
import { appHost, type AppHostHandler } from "../../apps.ts";
import { callTools, say, script } from "../../testing.ts";
import { childEnv } from "../fixtures/runtime_server_helpers.ts";
import { waitFor } from "../_helpers/wait.ts";

const CHROMIUM = "/usr/bin/chromium";
const repoRoot = new URL("../..", import.meta.url).pathname;
const PAGE_SOURCE = new URL("../../examples/apps/page.ts", import.meta.url)
  .pathname;
/** The page's globals these checks read (this file has no DOM lib). */
interface PageGlobals {
  document: {
    body: { dataset: Record<string, string | undefined> };
    getElementById(id: string): { textContent: string | null } | null;
  };
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// The host page's script: ext-apps' AppBridge bundled for the browser.
async function bundle(): Promise<string> {
  const out = await Deno.makeTempFile({ suffix: ".js" });
  try {
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        "--config",
        `${repoRoot}/tests/interop/deno.json`,
        "--platform",
        "browser",
        "-o",
        out,
        PAGE_SOURCE,
      ],
      stdout: "null",
      stderr: "piped",
      signal: AbortSignal.timeout(60_000),
    }).output();
    assert.equal(code, 0, new TextDecoder().decode(stderr));
    return await Deno.readTextFile(out);
  } finally {
    await Deno.remove(out);
  }
}

function pageHtml(sandboxOrigin: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>weft apps host</title></head>
<body data-sandbox="${sandboxOrigin}"><h1>weft host</h1><p id="answer"></p><div id="views"></div>
<script type="module" src="/page.js"></script></body></html>`;
}

// The view: the frame inside the sandbox proxy's frame.
async function viewFrame(
  frames: () => Frame[],
  sandboxOrigin: string,
  signal: AbortSignal,
): Promise<Frame> {
  return await waitFor(
    () => {
      const proxy = frames().find((f) => f.url().startsWith(sandboxOrigin));
      return proxy?.childFrames()[0];
    },
    "the view's inner frame",
    { signal, everyMs: 25 },
  );
}

Deno.test({
  name:
    "apps in Chromium: get-time's view renders the result, and its button calls through appHost",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await Deno.stat(CHROMIUM); // fails fast when Chromium is missing
    const script_js = await bundle();
    await using servers = await connectServers({
      mcpServers: {
        basic: {
          command: Deno.execPath(),
          args: [
            "run",
            "--config",
            `${repoRoot}/tests/interop/deno.json`,
            "--cached-only",
            "--quiet",
            "-A",
            "npm:@modelcontextprotocol/server-basic-vanillajs@2.0.3",
            "--stdio",
          ],
          cwd: repoRoot,
          env: childEnv(),
          prefix: "",
        },
      },
    }, { apps: true, signal: AbortSignal.timeout(30_000) });
    assert.equal(servers.error, undefined, servers.error?.message);
    const model = script(
      callTools({ name: "get-time" }),
      say("Here is the time."),
    );
    const agent = new Agent(model, { toolSource: servers.toolSource });

    // Assigned once, after the listeners whose origins it needs; their
    // handlers read it later, so it cannot be a const at its declaration.
    // deno-lint-ignore prefer-const
    let handler: AppHostHandler | undefined;
    let page = "";
    const hostListener = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (request) => {
        const path = new URL(request.url).pathname;
        if (path === "/") {
          return new Response(page, {
            headers: { "content-type": "text/html" },
          });
        }
        if (path === "/page.js") {
          return new Response(script_js, {
            headers: { "content-type": "text/javascript" },
          });
        }
        return handler!(request);
      },
    );
    const sandboxListener = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (request) => handler!(request),
    );
    const hostOrigin = `http://127.0.0.1:${hostListener.addr.port}`;
    const sandboxOrigin = `http://127.0.0.1:${sandboxListener.addr.port}`;
    page = pageHtml(sandboxOrigin);
    handler = appHost(servers, { agent, hostOrigin, sandboxOrigin });

    const profile = await Deno.makeTempDir({ prefix: "weft-chromium-" });
    const shot = await Deno.makeTempFile({
      prefix: "weft-apps-",
      suffix: ".png",
    });
    const browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      userDataDir: profile,
      timeout: 20_000,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    try {
      const signal = AbortSignal.timeout(30_000);
      const tab = await browser.newPage();
      tab.setDefaultTimeout(15_000);
      await tab.goto(`${hostOrigin}/`);
      await tab.waitForFunction(
        () => {
          const { body } = (globalThis as unknown as PageGlobals).document;
          return body.dataset.delivered === "yes" || body.dataset.error;
        },
      );
      assert.equal(
        await tab.evaluate(() =>
          (globalThis as unknown as PageGlobals).document.body.dataset.error ??
            ""
        ),
        "",
      );
      const runId = await tab.evaluate(() =>
        (globalThis as unknown as PageGlobals).document.body.dataset.run!
      );
      const log = handler.log(runId)!;
      const app = log.find((e) => e.type === "app");
      assert.ok(app?.type === "app");
      assert.equal(app.view.server, "basic");
      assert.equal(app.view.tool, "get-time");
      assert.equal(app.view.resourceUri, "ui://get-time/mcp-app.html");
      const time = (app.view.result as { structuredContent: { time: string } })
        .structuredContent.time;
      assert.match(time, ISO);

      // The view (inside the sandbox proxy, on the sandbox origin) shows the result.
      const view = await viewFrame(() => tab.frames(), sandboxOrigin, signal);
      await view.waitForFunction(
        (t) =>
          (globalThis as unknown as PageGlobals).document.getElementById(
            "server-time",
          )?.textContent === t,
        {},
        time,
      );
      await tab.screenshot({ path: shot });
      assert.ok((await Deno.stat(shot)).size > 1000);

      // The view's own button: get-time again, through appHost.
      await view.click("#get-time-btn");
      await view.waitForFunction(
        (t) => {
          const text = (globalThis as unknown as PageGlobals).document
            .getElementById("server-time")?.textContent ?? "";
          return text !== t && /^\d{4}-/.test(text);
        },
        {},
        time,
      );
      const calls = handler.log(runId)!.filter((e) => e.type === "app_call");
      assert.equal(calls.length, 1);
      assert.ok(calls[0].type === "app_call");
      assert.equal(calls[0].from, "app");
      assert.equal(calls[0].server, "basic");
      assert.equal(calls[0].tool, "get-time");
      assert.equal(calls[0].isError, false);
      // The model called get-time once; the view's call is not the model's.
      assert.equal(model.requests().length, 2);
    } finally {
      await browser.close();
      handler.close();
      await hostListener.shutdown();
      await sandboxListener.shutdown();
      await Deno.remove(profile, { recursive: true });
      await Deno.remove(shot);
    }
  },
});
