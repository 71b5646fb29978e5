/**
 * One sandbox child: a `deno run` process with no permissions running the
 * runner, its stdout read as JSON lines (each line bounded), its stderr
 * kept (the tail), and its end observed.
 *
 * @module
 */

import { RUNNER_URL, type RunnerMessage } from "./_runner.ts";

/** How a child is started. */
export interface ChildOptions {
  /** The Deno executable. */
  readonly deno: string;
  /** The V8 old-space cap in MiB. */
  readonly memoryMb: number;
  /** The longest stdout line accepted, in bytes. */
  readonly maxMessageBytes: number;
}

/** The flags that take every permission away (none is granted), and remote code. */
export function sandboxFlags(memoryMb: number): string[] {
  return [
    "--no-prompt",
    "--no-remote",
    "--no-npm",
    "--no-config",
    "--no-lock",
    "--quiet",
    `--v8-flags=--max-old-space-size=${memoryMb}`,
  ];
}

/** A running child. */
export class Child {
  readonly #process: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #encoder = new TextEncoder();
  #stderr = "";
  #onMessage: (message: RunnerMessage) => void = () => {};
  #overflow = false;
  /** Resolves when the child has sent `ready`. */
  readonly ready: Promise<boolean>;
  /** Resolves when the process has ended and its output is read. */
  readonly ended: Promise<Deno.CommandStatus>;

  constructor(options: ChildOptions) {
    this.#process = new Deno.Command(options.deno, {
      args: ["run", ...sandboxFlags(options.memoryMb), RUNNER_URL],
      clearEnv: true,
      env: {},
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.#process.stdin.getWriter();
    let ready!: (ok: boolean) => void;
    this.ready = new Promise((resolve) => ready = resolve);
    const out = this.#readLines(options.maxMessageBytes, (m) => {
      if (m.t === "ready") ready(true);
      else this.#onMessage(m);
    });
    const err = this.#readStderr();
    this.ended = Promise.all([out, err]).then(() => this.#process.status)
      .finally(() => ready(false));
  }

  /** Routes the child's messages (after `ready`) to `handler`. */
  listen(handler: (message: RunnerMessage) => void): void {
    this.#onMessage = handler;
  }

  /** Sends one message; false when the child is gone. */
  async send(message: RunnerMessage): Promise<boolean> {
    try {
      await this.#writer.write(
        this.#encoder.encode(JSON.stringify(message) + "\n"),
      );
      return true;
    } catch {
      // The child has ended: its end is reported through `ended`.
      return false;
    }
  }

  /** Whether a stdout line went over the bound (the child was killed). */
  get overflowed(): boolean {
    return this.#overflow;
  }

  /** The last 2 KiB the child wrote to stderr, colours removed. */
  get stderr(): string {
    // deno-lint-ignore no-control-regex
    return this.#stderr.replace(/\x1b\[[0-9;]*m/g, "").trim();
  }

  /** Ends the child now (SIGKILL); safe to call twice. */
  kill(): void {
    try {
      this.#process.kill("SIGKILL");
    } catch {
      // Already ended: nothing to kill.
    }
    this.#writer.close().catch(() => {
      // Nothing lost: the child was killed; its stdin has no reader.
    });
  }

  async #readLines(
    max: number,
    deliver: (message: RunnerMessage) => void,
  ): Promise<void> {
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of this.#process.stdout) {
      buffered += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        let message: RunnerMessage;
        try {
          message = JSON.parse(line);
        } catch {
          // A line the runner did not write (the program wrote to stdout): skipped.
          continue;
        }
        deliver(message);
      }
      if (buffered.length > max && !this.#overflow) {
        this.#overflow = true;
        this.kill();
      }
    }
  }

  async #readStderr(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.#process.stderr) {
      this.#stderr = (this.#stderr + decoder.decode(chunk, { stream: true }))
        .slice(-2048);
    }
  }
}
