/**
 * One anonymous caller of a stateless endpoint sends 300 task calls whose
 * arguments take `<KiB>` each (default 1,024), each task running until the
 * process exits, ttl 24 h; prints the server's RSS before and after (after
 * a GC) and how many calls were accepted or refused.
 *
 *   deno run -A --v8-flags=--expose-gc bench/tasks_flood.ts [KiB] [root]
 *
 * `root` is the checkout to measure (default this one), so an older tree
 * can be measured with the same script.
 */

// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";

const argKiB = Number(Deno.args[0] ?? 1024);
const root = Deno.args[1] ?? new URL("..", import.meta.url).pathname;
const { Client, exportTools, httpHandler, rawTool, Server } = await import(
  `${root}/mod.ts`
);
const { serveTasks } = await import(`${root}/tasks.ts`);
const { memoryStore } = await import(`${root}/store.ts`);

const store = memoryStore();
const never = new Promise<never>(() => {});
const hold = rawTool({
  name: "hold",
  description: "Runs until the process exits.",
  taskSupport: "optional",
  run: () => never,
});
const handler = httpHandler(() => {
  const server = new Server({ name: "flood", version: "1" });
  exportTools(server, hold);
  serveTasks(server, { store });
  return server;
}, { sessions: false });
const listener = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  handler,
);
const client = new Client({ name: "flood", version: "1" });
await client.connect(
  new StreamableHTTPClientTransport(
    new URL(`http://127.0.0.1:${listener.addr.port}/mcp`),
  ),
);
const gc = (globalThis as { gc?: () => void }).gc;
const settle = async () => {
  gc?.();
  await new Promise((resolve) => setTimeout(resolve, 300));
  gc?.();
};
await settle();
const before = Deno.memoryUsage().rss;
const big = "x".repeat(argKiB * 1024);
let accepted = 0;
const refused = new Map<string, number>();
for (let i = 0; i < 300; i++) {
  try {
    await client.request(
      {
        method: "tools/call",
        params: {
          name: "hold",
          arguments: { big, i },
          task: { ttl: 86_400_000 },
        },
      },
      CreateTaskResultSchema,
    );
    accepted++;
  } catch (error) {
    const text = (error as Error).message.slice(0, 70);
    refused.set(text, (refused.get(text) ?? 0) + 1);
  }
}
await settle();
const after = Deno.memoryUsage().rss;
const mib = (n: number) => Math.round(n / 2 ** 20);
console.log(JSON.stringify({
  argKiB,
  accepted,
  refused: Object.fromEntries(refused),
  rssBeforeMiB: mib(before),
  rssAfterMiB: mib(after),
  deltaMiB: mib(after - before),
}));
Deno.exit(0);
