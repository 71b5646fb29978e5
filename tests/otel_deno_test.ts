/**
 * Zero-config tracing (issue 20): `examples/traced.ts` run with Deno's
 * built-in OpenTelemetry (`OTEL_DENO=true`) and its console exporter
 * prints one trace — the planner's run, its model calls, its two tool
 * calls, and the `tools/call` SERVER spans of the stdio child and of the
 * HTTP server, each the child of the caller's `execute_tool` span.
 *
 * @module
 */

import assert from "node:assert/strict";

const EXAMPLE = new URL("../examples/traced.ts", import.meta.url).pathname;

interface PrintedSpan {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly kind: string;
  readonly parent?: string;
  readonly links: string[];
  readonly attributes: Record<string, string>;
}

/** The spans of the console exporter's output (ANSI colours removed). */
function printedSpans(text: string): PrintedSpan[] {
  // deno-lint-ignore no-control-regex -- the exporter colours its output
  const plain = text.replace(/\x1b\[[0-9;]*m/g, "");
  const spans: PrintedSpan[] = [];
  let current:
    | { -readonly [K in keyof PrintedSpan]: PrintedSpan[K] }
    | undefined;
  for (const line of plain.split("\n")) {
    const head = /^SPAN (.+) \[([0-9a-f]{32})\/([0-9a-f]{16})\] (\w+)/.exec(
      line,
    );
    if (head !== null) {
      current = {
        name: head[1],
        traceId: head[2],
        spanId: head[3],
        kind: head[4],
        links: [],
        attributes: {},
      };
      spans.push(current);
      continue;
    }
    const link = /^ {4}- [0-9a-f]{32}\/([0-9a-f]{16})$/.exec(line);
    if (current !== undefined && link !== null) {
      current.links.push(link[1]);
      continue;
    }
    if (!line.startsWith("  ")) {
      current = undefined;
      continue;
    }
    const attribute = /^ {2}([\w.]+): (.*)$/.exec(line);
    if (current !== undefined && attribute !== null) {
      if (attribute[1] === "parent") current.parent = attribute[2];
      else current.attributes[attribute[1]] = attribute[2];
    }
  }
  return spans;
}

Deno.test("OTEL_DENO=true with the console exporter prints one trace across stdio and HTTP", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", EXAMPLE],
    env: { OTEL_DENO: "true", OTEL_EXPORTER_OTLP_PROTOCOL: "console" },
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(60_000),
  }).output();
  const text = new TextDecoder().decode(out.stdout) +
    new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, text);
  const spans = printedSpans(text);
  const named = (name: string) => spans.filter((s) => s.name === name);
  const [run] = named("invoke_agent planner");
  assert.ok(run !== undefined, `no run span in:\n${text}`);
  const trace = spans.filter((s) => s.traceId === run.traceId);
  assert.equal(
    trace.filter((s) => s.name === "chat script" && s.parent === run.spanId)
      .length,
    2,
  );
  for (
    const [tool, transport] of [["stdio_lookup", "pipe"], [
      "http_lookup",
      "tcp",
    ]]
  ) {
    const [call] = named(`execute_tool ${tool}`);
    assert.ok(call !== undefined, tool);
    assert.equal(call.parent, run.spanId);
    assert.equal(call.traceId, run.traceId);
    assert.equal(call.attributes["gen_ai.tool.name"], tool);
    assert.equal(call.attributes["mcp.method.name"], "tools/call");
    assert.equal(call.attributes["network.transport"], transport);
    const served = trace.filter((s) =>
      s.name === "tools/call lookup" && s.parent === call.spanId
    );
    assert.equal(served.length, 1, `the ${tool} server span`);
    assert.equal(served[0].kind, "Server");
    if (transport === "tcp") {
      // Deno's HTTP server span of the request is linked.
      const [http] = served[0].links.map((id) =>
        spans.find((s) => s.spanId === id)
      );
      assert.equal(http?.name, "POST");
      assert.equal(http?.kind, "Server");
    }
  }
});
