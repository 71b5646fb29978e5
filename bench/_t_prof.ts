import { connectStdio } from "/work/wt-stdio/src/runtime/process/connect_stdio.ts";
const c = await connectStdio(Deno.execPath(), { args: ["run","-A","--quiet","--cpu-prof","--cpu-prof-dir=/tmp/stdio-prof/b","/work/wt-stdio/bench/_stdio_bench_child.ts","weft","prof"] });
console.log(await c.callTool({name:"echo",arguments:{text:"x"}}));
await c.close();
