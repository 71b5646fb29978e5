/**
 * The program inside a sandbox child: it reads one `run` message on stdin,
 * defines the namespaces whose functions call back to the host, loads the
 * program as a module of its own and writes the outcome on stdout, one JSON
 * message per line. Its source text is what the child runs (as a `data:`
 * URL), so it must stay self-contained.
 *
 * The program is loaded with a dynamic `import()` of a `blob:` URL, never
 * evaluated from the runner's own module: Deno checks read permission for
 * the file imports of a dynamically loaded module, not for those of the
 * main module's static graph (`import("file:///…", { with: { type: "json" } })`
 * written in the main module reads the file without `--allow-read`).
 *
 * @module
 */

/** The messages between host and child, one JSON object per line. */
export type RunnerMessage =
  | { t: "ready" }
  | {
    t: "run";
    code: string;
    ns: Record<string, string[]>;
    preludes: string[];
    maxLogs: number;
  }
  | { t: "call"; id: number; ns: string; fn: string; args: unknown[] }
  | { t: "ret"; id: number; ok: boolean; v?: unknown; e?: string }
  | { t: "log"; s: string }
  | { t: "done"; ok: boolean; v?: unknown; e?: string; d?: number };

/**
 * The runner; its source text is what the child (`"stdio"`: messages as
 * JSON lines on stdin/stdout) or the worker (`"worker"`: messages posted)
 * evaluates.
 */
function runner(channel: "stdio" | "worker"): void {
  const encoder = new TextEncoder();
  const scope = globalThis as unknown as {
    postMessage(message: unknown): void;
    onmessage: ((event: MessageEvent) => void) | null;
  };
  const writer = channel === "stdio"
    ? Deno.stdout.writable.getWriter()
    : undefined;
  const inspect = Deno.inspect;
  const send = (message: unknown): void => {
    const m = message as { t?: string; d?: number };
    if (m.t === "done") m.d = Math.max(0, logs - maxLogs);
    if (writer === undefined) {
      scope.postMessage(JSON.parse(JSON.stringify(message)));
      return;
    }
    writer.write(encoder.encode(JSON.stringify(message) + "\n")).catch(() => {
      // Nothing lost: the host has gone; nobody reads the message.
    });
  };
  const pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void }
  >();
  let nextId = 0;
  let logs = 0;
  let maxLogs = 0;
  const log = (...args: unknown[]): void => {
    if (logs++ >= maxLogs) return;
    send({
      t: "log",
      s: args.map((a) => typeof a === "string" ? a : inspect(a)).join(" "),
    });
  };
  for (const level of ["log", "info", "warn", "error", "debug", "trace"]) {
    (console as unknown as Record<string, unknown>)[level] = log;
  }
  // Programs get no workers of their own.
  delete (globalThis as Record<string, unknown>).Worker;
  globalThis.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    log("unhandled rejection: " + String(event.reason));
  });
  const fail = (err: unknown): void => {
    const e = err as { name?: string; message?: string } | null;
    const text = e instanceof Error
      ? `${e.name}: ${e.message}`
      : `thrown: ${String(err)}`;
    send({ t: "done", ok: false, e: text });
  };
  const load = async (source: string): Promise<Record<string, unknown>> => {
    const url = URL.createObjectURL(
      new Blob([source], { type: "application/typescript" }),
    );
    try {
      return await import(url);
    } finally {
      URL.revokeObjectURL(url);
    }
  };
  const start = async (run: {
    code: string;
    ns: Record<string, string[]>;
    preludes: string[];
    maxLogs: number;
  }): Promise<void> => {
    maxLogs = run.maxLogs;
    for (const [name, fns] of Object.entries(run.ns)) {
      const space: Record<string, unknown> = Object.create(null);
      for (const fn of fns) {
        space[fn] = (...args: unknown[]) =>
          new Promise((resolve, reject) => {
            const id = nextId++;
            pending.set(id, { resolve, reject });
            send({ t: "call", id, ns: name, fn, args });
          });
      }
      Object.defineProperty(globalThis, name, {
        value: space,
        enumerable: false,
      });
    }
    for (const prelude of run.preludes) await load(prelude);
    let code = run.code.trim();
    const fence = /^```[\w-]*\n([\s\S]*?)\n?```$/.exec(code);
    if (fence !== null) code = fence[1].trim();
    let mod: Record<string, unknown>;
    try {
      mod = await load(`export default (\n${code}\n);`);
    } catch (err) {
      if (!(err instanceof SyntaxError) && !String(err).includes("Syntax")) {
        throw err;
      }
      mod = await load(`export default async () => {\n${code}\n};`);
    }
    const entry = mod.default;
    const value = typeof entry === "function" ? await entry() : await entry;
    let text: string | undefined;
    try {
      text = JSON.stringify(value);
    } catch (err) {
      throw new TypeError(
        `the program's result is not JSON data: ${(err as Error).message}`,
      );
    }
    send(
      text === undefined ? { t: "done", ok: true } : {
        t: "done",
        ok: true,
        v: JSON.parse(text),
      },
    );
  };
  const receive = (message: {
    t: string;
    id: number;
    ok: boolean;
    v?: unknown;
    e?: string;
    code: string;
    ns: Record<string, string[]>;
    preludes: string[];
    maxLogs: number;
  }): void => {
    if (message.t === "run") start(message).catch(fail);
    else if (message.t === "ret") {
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if (message.ok) waiting?.resolve(message.v);
      else waiting?.reject(new Error(message.e));
    }
  };
  if (channel === "worker") {
    scope.onmessage = (event) => receive(event.data);
    send({ t: "ready" });
    return;
  }
  (async () => {
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of Deno.stdin.readable) {
      buffered += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        receive(JSON.parse(line));
      }
    }
  })().catch(fail);
  send({ t: "ready" });
}

/** The runner as the `data:` URL a child runs. */
export const RUNNER_URL: string = "data:text/javascript;base64," +
  btoa(`(${runner.toString()})("stdio");\n`);

/** The runner as the `data:` URL a worker runs. */
export const WORKER_RUNNER_URL: string = "data:text/javascript;base64," +
  btoa(`(${runner.toString()})("worker");\n`);
