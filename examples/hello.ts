/**
 * Both directions of the bridge in one process: a weft tool exported on an
 * MCP server, imported back by an MCP client over an in-memory transport,
 * and called — printing the text a weft model would see.
 *
 *     deno run -A examples/hello.ts
 *
 * @module
 */

import { z } from "zod";
import {
  Client,
  exportTools,
  importTools,
  InMemoryTransport,
  Server,
  tool,
  type ToolDef,
} from "../mod.ts";

/** The exported tool: a greeting. */
export const greet: ToolDef = tool({
  name: "greet",
  description: "Greet someone by name.",
  input: z.object({ name: z.string().describe("who to greet") }),
  run: ({ name }) => `Hello, ${name}!`,
});

/**
 * Exports {@link greet} on a server, imports it through a connected client
 * under the prefix `hello_`, calls it with `{"name":"weft"}`, and resolves
 * to `<imported name> -> <result text>`. Closes both ends.
 */
export async function hello(): Promise<string> {
  const server = new Server({ name: "hello", version: "0" });
  exportTools(server, greet);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "hello-client", version: "0" });
  await client.connect(clientSide);
  try {
    const { tools } = await importTools(client, { prefix: "hello_" });
    const text = await tools[0].invoke('{"name":"weft"}');
    return `${tools[0].name} -> ${text}`;
  } finally {
    await client.close();
    await server.close();
  }
}

if (import.meta.main) {
  console.log(await hello());
}
