/**
 * A text transform over a Server-Sent Events stream that hands each
 * event's data to a function and writes back what it returns; every other
 * field, comment and blank line passes through.
 *
 * @module
 */

/**
 * Rewrites the `data` of each SSE event. The event's data lines are joined
 * with `\n` (as an EventSource parser does), given to `rewrite`, and the
 * result is written as one `data:` line per line of it. Line ends may be
 * LF, CRLF or CR, also split across chunks. An event cut off by the end of
 * the stream is passed through unchanged (a parser discards it anyway).
 * `lastEventId` is the last `id` field seen, `""` before any.
 *
 * @example Using `SseDataRewriter`
 * ```ts
 * import { SseDataRewriter } from "./_sse_rewriter.ts";
 * import assert from "node:assert/strict";
 * const events = ReadableStream.from(["id: 1\ndata: a\ndata: b\n\n"])
 *   .pipeThrough(new SseDataRewriter((data) => data.toUpperCase()));
 * let text = "";
 * for await (const chunk of events) text += chunk;
 * assert.equal(text, "id: 1\ndata: A\ndata: B\n\n");
 * ```
 */
export class SseDataRewriter extends TransformStream<string, string> {
  readonly #state: SseRewriterState;

  /** Builds the transform around `rewrite`. */
  constructor(rewrite: (data: string) => string) {
    const state = new SseRewriterState(rewrite);
    super({
      transform: (chunk, controller) => state.push(chunk, controller),
      flush: (controller) => state.end(controller),
    });
    this.#state = state;
  }

  /** The last `id` field seen on the stream; `""` before any. */
  get lastEventId(): string {
    return this.#state.lastEventId;
  }
}

/** Where {@link SseRewriterState} writes its output. */
export interface TextSink {
  /** Takes the next piece of output text. */
  enqueue(text: string): void;
}

type Controller = TextSink;

/**
 * The rewriter's state machine without a stream around it: `push` text in,
 * output goes to the sink given; `end` flushes. {@link SseDataRewriter} is
 * this inside a `TransformStream`.
 */
export class SseRewriterState {
  readonly #rewrite: (data: string) => string;
  #buffer = "";
  #data: string[] = [];
  #raw: string[] = [];
  /** The last `id` field seen; `""` before any. */
  lastEventId = "";

  /** Builds the state around `rewrite`. */
  constructor(rewrite: (data: string) => string) {
    this.#rewrite = rewrite;
  }

  /** Takes the next text of the stream. */
  push(chunk: string, controller: Controller): void {
    this.#buffer += chunk;
    let start = 0;
    for (;;) {
      const end = lineEnd(this.#buffer, start);
      if (end === undefined) break;
      this.#line(this.#buffer.slice(start, end.at), controller);
      start = end.next;
    }
    this.#buffer = this.#buffer.slice(start);
  }

  /**
   * Whether `text` holds whole events only, so it may be read with
   * {@link SseRewriterState.watch} and handed on as it is: nothing is
   * buffered from earlier text, and `text` ends with a blank line.
   */
  wholeEvents(text: string): boolean {
    return this.#buffer === "" && this.#data.length === 0 &&
      endsWithBlankLine(text);
  }

  /**
   * Reads text {@link SseRewriterState.wholeEvents} accepted and whose data
   * needs no rewrite: notes each `id`, gives each event's data to `observe`
   * and writes nothing (the caller hands the text on unchanged).
   */
  watch(text: string, observe: (data: string) => void): void {
    if (text.includes("\r")) return this.#watchLines(text, observe);
    // LF only (the common case): each line read in place, only data and
    // ids sliced out.
    for (let start = 0; start < text.length;) {
      const end = text.indexOf("\n", start);
      if (end === -1) break; // not whole events: nothing more to note
      if (end === start) {
        if (this.#data.length > 0) {
          observe(this.#data.join("\n"));
          this.#data = [];
        }
      } else if (text.startsWith("data", start)) {
        const value = fieldValue(text, start + 4, end);
        if (value !== undefined) this.#data.push(value);
      } else if (text.startsWith("id", start)) {
        const value = fieldValue(text, start + 2, end);
        if (value !== undefined) this.lastEventId = value;
      }
      start = end + 1;
    }
  }

  #watchLines(text: string, observe: (data: string) => void): void {
    let start = 0;
    for (;;) {
      const end = lineEnd(text, start);
      if (end === undefined) break;
      const line = text.slice(start, end.at);
      start = end.next;
      if (line === "") {
        if (this.#data.length > 0) {
          observe(this.#data.join("\n"));
          this.#data = [];
        }
        continue;
      }
      const { name, value } = field(line);
      if (name === "data") this.#data.push(value);
      else if (name === "id") this.lastEventId = value;
    }
  }

  /** The stream ended: flushes what is left. */
  end(controller: Controller): void {
    if (this.#buffer.endsWith("\r")) {
      this.#buffer = this.#buffer.slice(0, -1) + "\n";
    }
    this.push("", controller);
    const rest = [...this.#raw, this.#buffer].filter((line) => line !== "");
    if (rest.length > 0) controller.enqueue(rest.join("\n"));
  }

  #line(line: string, controller: Controller): void {
    if (line === "") {
      if (this.#data.length > 0) {
        const data = this.#rewrite(this.#data.join("\n"));
        controller.enqueue(
          data.split("\n").map((part) => `data: ${part}\n`).join(""),
        );
      }
      controller.enqueue("\n");
      this.#data = [];
      this.#raw = [];
      return;
    }
    const { name, value } = field(line);
    if (name === "data") {
      this.#data.push(value);
      this.#raw.push(line);
      return;
    }
    if (name === "id") this.lastEventId = value;
    controller.enqueue(line + "\n");
  }
}

// The value of the field whose name ends at `at` on the line ending at
// `end`, or `undefined` when the name goes on (`data` is not `datum`).
function fieldValue(text: string, at: number, end: number): string | undefined {
  if (at === end) return "";
  if (text.charCodeAt(at) !== COLON) return undefined;
  const from = text.charCodeAt(at + 1) === SPACE ? at + 2 : at + 1;
  return text.slice(from, end);
}

const COLON = 58;
const SPACE = 32;

function field(line: string): { name: string; value: string } {
  const colon = line.indexOf(":");
  if (colon === -1) return { name: line, value: "" };
  const value = line.slice(colon + 1);
  return {
    name: line.slice(0, colon),
    value: value.startsWith(" ") ? value.slice(1) : value,
  };
}

// Whether the last line of `text` is complete and blank (an event ends
// there), given that `text` starts at the start of a line.
function endsWithBlankLine(text: string): boolean {
  let end = text.length - 1;
  if (end < 0 || text.charCodeAt(end) !== LF) return false;
  if (end > 0 && text.charCodeAt(end - 1) === CR) end--;
  if (end === 0) return true;
  const before = text.charCodeAt(end - 1);
  return before === LF || before === CR;
}

const LF = 10;
const CR = 13;

// The next line end at or after `from`: where the line stops and the next
// begins. A CR at the very end waits for more input (it may be a CRLF).
function lineEnd(
  text: string,
  from: number,
): { at: number; next: number } | undefined {
  const lf = text.indexOf("\n", from);
  const cr = text.indexOf("\r", from);
  if (cr === -1 || (lf !== -1 && lf < cr)) {
    return lf === -1 ? undefined : { at: lf, next: lf + 1 };
  }
  if (cr + 1 === text.length) return undefined;
  return { at: cr, next: text[cr + 1] === "\n" ? cr + 2 : cr + 1 };
}
