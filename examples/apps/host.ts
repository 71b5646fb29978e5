/**
 * A host page that runs an agent and shows its tools' views (MCP Apps):
 * `appHost` is the backend (runs, view reads, view calls, the sandbox
 * proxy), examples/apps/page.ts the browser side (ext-apps' `AppBridge`,
 * bundled at start with `deno bundle`). The agent imports the clock server
 * (examples/apps/clock_server.ts) with `apps: true`; its model is scripted
 * here so the example runs offline — give it a real one
 * (`@weft/mcp/providers`) to chat.
 *
 *     deno task apps    # then open http://127.0.0.1:8000/
 *
 * The page is served on 127.0.0.1:8000 and the sandbox on 127.0.0.1:8001:
 * another origin, so a view never runs with the page's.
 *
 * @module
 */

import { Agent, connectServers } from "../../mod.ts";
import { appHost } from "../../apps.ts";
import { callTools, say, script } from "../../testing.ts";

const HOST_PORT = 8000;
const SANDBOX_PORT = 8001;
const here = new URL(".", import.meta.url).pathname;
const repoRoot = new URL("../..", import.meta.url).pathname;

const bundled = await new Deno.Command(Deno.execPath(), {
  args: [
    "bundle",
    "--quiet",
    "--config",
    `${repoRoot}tests/interop/deno.json`,
    "--platform",
    "browser",
    `${here}page.ts`,
  ],
  stderr: "inherit",
}).output();
if (bundled.code !== 0) throw new Error("deno bundle of page.ts failed");
const pageScript = new TextDecoder().decode(bundled.stdout);

const servers = await connectServers({
  mcpServers: {
    clock: {
      command: Deno.execPath(),
      args: ["run", "-A", `${here}clock_server.ts`],
      prefix: "",
    },
  },
}, { apps: true });
if (servers.error) console.warn(servers.error.message);

// Offline: each run asks for the time, then answers.
const model = script(
  ...Array.from({ length: 20 }, () => [
    callTools({ name: "get_time" }),
    say("Here is the clock."),
  ]).flat(),
);
const agent = new Agent(model, { toolSource: servers.toolSource });

const hostOrigin = `http://127.0.0.1:${HOST_PORT}`;
const sandboxOrigin = `http://127.0.0.1:${SANDBOX_PORT}`;
const handler = appHost(servers, { agent, hostOrigin, sandboxOrigin });
const page =
  `<!doctype html><html><head><meta charset="utf-8"><title>weft apps</title></head>
<body data-sandbox="${sandboxOrigin}"><h1>weft apps host</h1><p id="answer"></p>
<div id="views"></div><script type="module" src="/page.js"></script></body></html>`;

Deno.serve({ hostname: "127.0.0.1", port: HOST_PORT }, (request) => {
  const path = new URL(request.url).pathname;
  if (path === "/") {
    return new Response(page, { headers: { "content-type": "text/html" } });
  }
  if (path === "/page.js") {
    return new Response(pageScript, {
      headers: { "content-type": "text/javascript" },
    });
  }
  return handler(request);
});
Deno.serve({ hostname: "127.0.0.1", port: SANDBOX_PORT }, handler);
