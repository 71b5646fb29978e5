/**
 * The memory a request holds on the server while its body has not come: N
 * raw TCP connections to a server process (`bench/_listen_memory_server.ts`,
 * default options: a server per request, no login) on 127.0.0.1, each
 * declaring a `Content-Length` of 4 MiB (the default cap) and sending 60
 * bytes of it, then waiting. The server's RSS and V8 heap (after a full GC)
 * are read before, with the N connections waiting (and per connection), and
 * after they are closed.
 *
 *     deno run -A bench/lying_body_memory.ts [--n=500] [--declared=4194304]
 *
 * @module
 */

const arg = (name: string, fallback: number): number =>
  Number(
    Deno.args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ??
      fallback,
  );
const n = arg("n", 500);
const declared = arg("declared", 4 * 1024 * 1024);

interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
}

const MiB = 1024 * 1024;
const mib = (bytes: number): string => (bytes / MiB).toFixed(1);
const kib = (bytes: number): string => (bytes / 1024).toFixed(1);

async function memory(base: string): Promise<Memory> {
  return await (await fetch(`${base}/__memory`)).json();
}

const child = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "-A",
    "--v8-flags=--expose-gc",
    new URL("./_listen_memory_server.ts", import.meta.url).pathname,
    "10",
  ],
  stdout: "piped",
  stderr: "inherit",
}).spawn();
const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
let first = "";
while (!first.includes("\n")) {
  const { value, done } = await lines.read();
  if (done) throw new Error("the server process ended before its port");
  first += value;
}
const port = Number(first.trim());
const base = `http://127.0.0.1:${port}`;

const head = (length: number): string =>
  `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n` +
  `content-type: application/json\r\n` +
  `accept: application/json, text/event-stream\r\n` +
  `content-length: ${length}\r\n\r\n`;
const sixty = '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}  ';

try {
  const before = await memory(base);
  const conns: Deno.TcpConn[] = [];
  const encoder = new TextEncoder();
  for (let i = 0; i < n; i++) {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(encoder.encode(head(declared) + sixty));
    conns.push(conn);
  }
  // Let the server take every request to its body read.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const held = await memory(base);
  for (const conn of conns) conn.close();
  await new Promise((resolve) => setTimeout(resolve, 500));
  const after = await memory(base);
  console.log(
    `${n} connections declaring ${declared} bytes, ${sixty.length} sent`,
  );
  console.log(
    `RSS  ${mib(before.rss)} -> ${mib(held.rss)} MiB (${
      kib((held.rss - before.rss) / n)
    } KiB a connection); closed: ${mib(after.rss)} MiB`,
  );
  console.log(
    `heap ${mib(before.heapUsed)} -> ${mib(held.heapUsed)} MiB (${
      kib((held.heapUsed - before.heapUsed) / n)
    } KiB a connection); external ${mib(before.external)} -> ${
      mib(held.external)
    } MiB`,
  );
} finally {
  child.kill();
  await child.status;
  await lines.cancel().catch(() => {});
}
