/**
 * The conformance client, for the suite's client scenarios `initialize`,
 * `tools_call` and `elicitation-sep1034-client-defaults`: `connectHttp` to
 * the URL the suite appends as the last argument (declaring the
 * elicitation capability), `importTools`, and for `tools_call` one call of
 * `add_numbers` through the imported tool's `invoke`; for the elicitation
 * scenario one call of `test_client_elicitation_defaults`, whose server asks
 * a form with defaults mid-call: `onInput` accepts it with no fields of its
 * own, and `importTools` fills in the form's defaults (SEP-1034). For
 * `sse-retry` and every `auth/*` scenario: list the tools and call each
 * with `{}`, the `auth/*` ones through `oauthClient` (options from the
 * suite's `MCP_CONFORMANCE_CONTEXT`; `followAuthorization` is the
 * browser). Exits 0 on
 * success, 1 on any failure (the suite counts a non-zero exit as a failed
 * scenario).
 *
 * Usage (by the suite): MCP_CONFORMANCE_SCENARIO=NAME deno run ... tests/conformance/client.ts URL
 *
 * @module
 */

import { connectHttp, importTools, type InputHandler } from "../../mod.ts";
import {
  oauthClient,
  type OAuthClientOptions,
} from "../../src/auth/client/oauth_client.ts";

/** The client id metadata document URL the suite's CIMD scenario expects. */
const CIMD_URL = "https://conformance-test.local/client-metadata.json";

/**
 * The browser, for the suite's authorization server: follows the
 * authorization URL without redirects and answers the URL it redirects to
 * (the redirect URL with `code` and `state`).
 */
async function followAuthorization(url: URL): Promise<URL> {
  const response = await fetch(url, { redirect: "manual" });
  await response.body?.cancel();
  const location = response.headers.get("location");
  if (location === null) {
    throw new Error(
      `the authorization endpoint answered ${response.status} without a redirect`,
    );
  }
  return new URL(location, url);
}

/** The OAuth client options for an `auth/*` scenario, from the suite's context. */
function authOptions(scenario: string): OAuthClientOptions {
  const context = JSON.parse(
    Deno.env.get("MCP_CONFORMANCE_CONTEXT") ?? "{}",
  ) as Record<string, string | undefined>;
  if (scenario === "auth/cross-app-access-complete-flow") {
    // SEP-990: the suite's IdP issued the user's ID token; the client
    // exchanges it there and presents the ID-JAG to the MCP server's
    // authorization server with its pre-registered credentials.
    return {
      clientId: context.client_id,
      clientSecret: context.client_secret,
      enterprise: {
        idpTokenEndpoint: context.idp_token_endpoint ?? "",
        idToken: context.idp_id_token ?? "",
        ...(context.idp_client_id === undefined
          ? {}
          : { idpClientId: context.idp_client_id }),
      },
    };
  }
  if (scenario.startsWith("auth/client-credentials")) {
    return {
      clientId: context.client_id,
      ...(context.client_secret === undefined
        ? {}
        : { clientSecret: context.client_secret }),
      ...(context.private_key_pem === undefined ? {} : {
        privateKey: context.private_key_pem,
        algorithm: context.signing_algorithm ?? "ES256",
      }),
    };
  }
  return {
    redirectUrl: "http://127.0.0.1:8976/callback",
    clientName: "weft-conformance",
    clientMetadataUrl: CIMD_URL,
    authorize: followAuthorization,
    ...(context.client_id === undefined ? {} : { clientId: context.client_id }),
    ...(context.client_secret === undefined
      ? {}
      : { clientSecret: context.client_secret }),
  };
}

/** The sum `tools_call`'s `add_numbers` answers for 5 + 3, as the suite words it. */
export const EXPECTED_SUM = "The sum of 5 and 3 is 8";

/** The scenario whose server asks a form with defaults during the call. */
const DEFAULTS = "elicitation-sep1034-client-defaults";

/** A person who accepts every form as shown: the defaults, nothing typed. */
const acceptAsShown: InputHandler = (request) =>
  request.method === "elicitation/create"
    ? { action: "accept", content: {} }
    : { action: "decline" };

async function main(
  url: string,
  scenario: string,
  signal: AbortSignal,
): Promise<void> {
  const authScenario = scenario.startsWith("auth/");
  await using client = await connectHttp(url, {
    signal,
    capabilities: { elicitation: { form: {} } },
    ...(authScenario ? { auth: oauthClient(authOptions(scenario)) } : {}),
  });
  if (authScenario || scenario === "sse-retry") {
    // List the tools, then call each one with no arguments: the calls are
    // what the scenarios guard with scopes (or, for sse-retry, answer on a
    // resumed stream).
    const { tools } = await client.listTools(undefined, { signal });
    for (const tool of tools) {
      const result = await client.callTool(
        { name: tool.name, arguments: {} },
        undefined,
        { signal },
      );
      console.log(`${tool.name}: ${JSON.stringify(result.content)}`);
    }
    return;
  }
  const { tools, skipped } = await importTools(client, {
    signal,
    onInput: acceptAsShown,
  });
  if (skipped !== undefined) throw skipped;
  console.log(`imported: ${tools.map((t) => t.name).join(", ") || "(none)"}`);
  if (scenario === "initialize") return;
  if (scenario === DEFAULTS) {
    const ask = tools.find((t) =>
      t.name === "test_client_elicitation_defaults"
    );
    if (ask === undefined) {
      throw new Error(
        "the server lists no test_client_elicitation_defaults tool",
      );
    }
    const text = await ask.invoke("{}", { signal });
    console.log(`test_client_elicitation_defaults: ${text}`);
    if (!text.startsWith("Elicitation completed: ")) {
      throw new Error(`unexpected result ${JSON.stringify(text)}`);
    }
    return;
  }
  if (scenario !== "tools_call") {
    throw new Error(`unknown scenario ${JSON.stringify(scenario)}`);
  }
  const add = tools.find((t) => t.name === "add_numbers");
  if (add === undefined) {
    throw new Error("the server lists no add_numbers tool");
  }
  const text = await add.invoke(JSON.stringify({ a: 5, b: 3 }), { signal });
  console.log(`add_numbers: ${text}`);
  if (text !== EXPECTED_SUM) {
    throw new Error(`unexpected result ${JSON.stringify(text)}`);
  }
}

if (import.meta.main) {
  const url = Deno.args.at(-1);
  const scenario = Deno.env.get("MCP_CONFORMANCE_SCENARIO") ?? "";
  if (url === undefined) {
    console.error(
      "usage: client.ts URL (MCP_CONFORMANCE_SCENARIO names the scenario)",
    );
    Deno.exit(2);
  }
  // A deadline we clear ourselves, not AbortSignal.timeout: the SDK leaves
  // its abort listener on a request's signal, and in Deno a listener on a
  // timeout signal keeps the process alive until the timeout fires.
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new Error("conformance client: 15 s deadline")),
    15_000,
  );
  try {
    await main(url, scenario, deadline.signal);
    clearTimeout(timer);
  } catch (e) {
    console.error(
      `conformance client (${scenario}): ${
        e instanceof Error ? e.stack : String(e)
      }`,
    );
    Deno.exit(1);
  }
}
