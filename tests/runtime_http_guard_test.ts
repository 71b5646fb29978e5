// httpHandler's DNS-rebinding rule, over a real listener and in-process.

import assert from "node:assert/strict";
import { HttpRefusalError } from "../src/runtime/errors.ts";
import { httpHandler } from "../src/runtime/http/handler.ts";
import { checkRebinding } from "../src/runtime/http/guard.ts";
import { buildToolServer } from "./fixtures/tool_server.ts";
import {
  INITIALIZE,
  listen,
  post,
  rawHttp,
} from "./fixtures/http_test_server.ts";

Deno.test("DNS rebinding: a local request naming another Host is refused with 403", async () => {
  const refusals: Error[] = [];
  const listening = listen({ onerror: (e) => refusals.push(e) });
  try {
    const request = (host: string, extra = "") =>
      `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n` +
      `Accept: application/json, text/event-stream\r\n${extra}Content-Length: ${INITIALIZE.length}\r\n` +
      `Connection: close\r\n\r\n${INITIALIZE}`;
    const evil = await rawHttp(listening.port, request("evil.example:80"));
    assert.ok(evil.startsWith("HTTP/1.1 403"), evil);
    assert.ok(
      evil.endsWith(
        '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Forbidden: the Host header is not localhost, 127.0.0.1 or [::1], which DNS-rebinding protection requires of a request from this machine; list the host in the allowedHosts option to accept it"},"id":null}',
      ),
      evil,
    );
    for (
      const host of [
        `localhost:${listening.port}`,
        `127.0.0.1:${listening.port}`,
        `[::1]:${listening.port}`,
      ]
    ) {
      const ok = await rawHttp(listening.port, request(host));
      assert.ok(ok.startsWith("HTTP/1.1 200"), `${host}: ${ok}`);
    }
    assert.equal(refusals.length, 1);
    assert.ok(
      refusals[0] instanceof HttpRefusalError && refusals[0].status === 403,
    );
    assert.equal(
      refusals[0].message,
      "HTTP request refused (403): Host is not a loopback name on a local request",
    );
  } finally {
    await listening.close();
  }
});

Deno.test("DNS rebinding: a foreign Origin is refused; allowedOrigins and allowedHosts widen the rule", async () => {
  // Without onerror, each handler logs its first refusal of each header:
  // kept here and asserted at the end, not printed.
  const warned: string[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => void warned.push(args.join(" "));
  try {
    await foreignOrigin();
  } finally {
    console.warn = warn;
  }
  assert.deepEqual(warned, [
    'httpHandler: HTTP request refused (403): Origin is not a loopback origin: "http://evil.example"; DNS-rebinding protection refuses it — to accept it, list it in the allowedOrigins option (logged once)',
    'httpHandler: HTTP request refused (403): Host not in allowedHosts: "other.example.com"; DNS-rebinding protection refuses it — to accept it, list it in the allowedHosts option (logged once)',
    'httpHandler: HTTP request refused (403): Host is not a loopback name on a local request: "mcp.example.com"; DNS-rebinding protection refuses it — to accept it, list it in the allowedHosts option (logged once)',
  ]);
});

async function foreignOrigin(): Promise<void> {
  const listening = listen();
  try {
    const res = await post(listening.url, INITIALIZE, {
      origin: "http://evil.example",
    });
    assert.equal(res.status, 403);
    assert.equal(
      await res.text(),
      '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Forbidden: the Origin header is not a loopback origin, which DNS-rebinding protection requires; list the origin in the allowedOrigins option to accept it"},"id":null}',
    );
    const local = await post(listening.url, INITIALIZE, {
      origin: `http://localhost:${listening.port}`,
    });
    assert.equal(local.status, 200);
    await local.body?.cancel();
  } finally {
    await listening.close();
  }
  const handler = httpHandler(() => buildToolServer(), {
    allowedHosts: ["mcp.example.com"],
    allowedOrigins: ["https://app.example.com"],
  });
  const init = { method: "POST", body: INITIALIZE };
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  const allowed = await handler(
    new Request("https://mcp.example.com/mcp", {
      ...init,
      headers: { ...headers, origin: "https://app.example.com" },
    }),
  );
  assert.equal(allowed.status, 200);
  await allowed.body?.cancel();
  const otherHost = await handler(
    new Request("https://other.example.com/mcp", { ...init, headers }),
  );
  assert.equal(otherHost.status, 403);
  const remote = httpHandler(() => buildToolServer());
  const fromPublic = await remote(
    new Request("https://mcp.example.com/mcp", { ...init, headers }),
    {
      remoteAddr: { transport: "tcp", hostname: "203.0.113.9" },
    },
  );
  assert.equal(
    fromPublic.status,
    200,
    "a public peer on a public name passes (Deploy)",
  );
  await fromPublic.body?.cancel();
  const noInfo = await remote(
    new Request("https://mcp.example.com/mcp", { ...init, headers }),
  );
  assert.equal(noInfo.status, 403, "unknown peer: treated as local");
}

Deno.test("DNS rebinding: without a Host header the request URL's host is judged", async () => {
  const refusals: Error[] = [];
  const handler = httpHandler(() => buildToolServer(), {
    onerror: (e) => refusals.push(e),
  });
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  const call = (url: string, extra: Record<string, string> = {}) =>
    handler(
      new Request(url, {
        method: "POST",
        body: INITIALIZE,
        headers: { ...headers, ...extra },
      }),
    );
  for (
    const url of [
      "http://localhost/mcp",
      "http://127.0.0.1:8000/mcp",
      "http://[::1]:9/mcp",
    ]
  ) {
    const req = new Request(url);
    assert.equal(req.headers.get("host"), null, "Request adds no Host");
    const res = await call(url);
    assert.equal(res.status, 200, url);
    assert.match(await res.text(), /"serverInfo":\{"name":"fixture"/);
  }
  const empty = await call("http://localhost/mcp", { host: "" });
  assert.equal(empty.status, 200, "an empty Host header counts as missing");
  await empty.body?.cancel();
  assert.equal(refusals.length, 0);

  const foreign = await call("http://evil.example/mcp");
  assert.equal(foreign.status, 403);
  assert.equal(
    await foreign.text(),
    '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Forbidden: the Host header is not localhost, 127.0.0.1 or [::1], which DNS-rebinding protection requires of a request from this machine; list the host in the allowedHosts option to accept it"},"id":null}',
  );
  // A Host header, when present, wins over the URL.
  const named = await call("http://localhost/mcp", { host: "evil.example" });
  assert.equal(named.status, 403);
  await named.body?.cancel();
  assert.equal(refusals.length, 2);
  assert.ok(refusals.every((e) => e instanceof HttpRefusalError));

  // Over a real listener: an HTTP/1.0 request without Host gets the URL
  // http://localhost:<port>/… from Deno.serve, and passes.
  const listening = listen();
  try {
    const reply = await rawHttp(
      listening.port,
      `POST /mcp HTTP/1.0\r\nContent-Type: application/json\r\n` +
        `Accept: application/json, text/event-stream\r\nContent-Length: ${INITIALIZE.length}\r\n\r\n${INITIALIZE}`,
    );
    assert.ok(
      reply.startsWith("HTTP/1.1 200") || reply.startsWith("HTTP/1.0 200"),
      reply,
    );
  } finally {
    await listening.close();
  }
});

Deno.test("checkRebinding names each refusal in our words", () => {
  const req = (headers: Record<string, string>) =>
    new Request("http://localhost/mcp", { method: "POST", headers });
  const cases: [Request, Parameters<typeof checkRebinding>[2], string][] = [
    [
      req({ host: "evil.example" }),
      {},
      "Host is not a loopback name on a local request",
    ],
    [
      req({ host: "other.example" }),
      { allowedHosts: ["mcp.example"] },
      "Host not in allowedHosts",
    ],
    [
      req({ origin: "https://evil.example" }),
      { allowedOrigins: ["https://app.example"] },
      "Origin not in allowedOrigins",
    ],
    [
      req({ origin: "http://evil.example" }),
      {},
      "Origin is not a loopback origin",
    ],
    [req({ origin: "null" }), {}, "Origin is not a URL"],
  ];
  for (const [request, options, reason] of cases) {
    const refusal = checkRebinding(request, undefined, options);
    assert.equal(refusal?.reason, reason);
  }
  assert.equal(
    checkRebinding(req({ host: "localhost:9" }), undefined, {}),
    undefined,
  );
});

Deno.test("DNS rebinding: a refused Host is logged once, naming the value, the rule and allowedHosts", async () => {
  const warned: string[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => void warned.push(args.join(" "));
  try {
    const handler = httpHandler(() => buildToolServer());
    for (let i = 0; i < 3; i++) {
      const res = await handler(
        new Request("http://0.0.0.0:8000/mcp", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: INITIALIZE,
        }),
      );
      assert.equal(res.status, 403);
      await res.body?.cancel();
    }
    const origin = await handler(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { origin: "https://app.example" },
        body: INITIALIZE,
      }),
    );
    assert.equal(origin.status, 403);
    await origin.body?.cancel();
    assert.deepEqual(warned, [
      'httpHandler: HTTP request refused (403): Host is not a loopback name on a local request: "0.0.0.0:8000"; DNS-rebinding protection refuses it — to accept it, list it in the allowedHosts option (logged once)',
      'httpHandler: HTTP request refused (403): Origin is not a loopback origin: "https://app.example"; DNS-rebinding protection refuses it — to accept it, list it in the allowedOrigins option (logged once)',
    ]);
  } finally {
    console.warn = warn;
  }
});
