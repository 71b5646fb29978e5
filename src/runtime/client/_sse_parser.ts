/**
 * An incremental Server-Sent Events parser that reads text the way the
 * SDK's HTTP client transport reads it (its `EventSourceParserStream`):
 * line ends LF, CRLF or CR (a CR at the end of the text so far waits for
 * more), data lines joined with `\n`, an event dispatched at a blank line
 * when it had a data line, its `id` and `event` reset after each event,
 * an `id` holding NUL ignored, comments and unknown fields ignored, a
 * `retry` of digits reported, and an event cut off by the end of the
 * stream never dispatched. One parser per stream; no stream objects.
 *
 * @module
 */

/** What {@link SseParser} hands on. */
export interface SseSink {
  /** One event: its `id` and `event` (`undefined` when none or empty) and data. */
  event(id: string | undefined, type: string | undefined, data: string): void;
  /** A `retry` field of digits, in ms. */
  retry(ms: number): void;
}

const LF = 10;
const SPACE = 32;
const COLON = 58;

/** See the module doc. */
export class SseParser {
  readonly #sink: SseSink;
  #pending = "";
  #first = true;
  #id: string | undefined = undefined;
  #type: string | undefined = undefined;
  #data = "";
  #lines = 0;

  /** Builds a parser handing events to `sink`. */
  constructor(sink: SseSink) {
    this.#sink = sink;
  }

  /** Takes the next text of the stream (a decoder's output, never empty). */
  feed(chunk: string): void {
    if (this.#first) {
      this.#first = false;
      // A byte order mark decoded as Latin-1, as the SDK's parser drops it.
      if (
        chunk.charCodeAt(0) === 0xef && chunk.charCodeAt(1) === 0xbb &&
        chunk.charCodeAt(2) === 0xbf
      ) chunk = chunk.slice(3);
    }
    if (
      this.#pending !== "" && chunk.indexOf("\n") === -1 &&
      chunk.indexOf("\r") === -1
    ) {
      // Still inside a line (a big event): kept, not scanned again.
      this.#pending += chunk;
      return;
    }
    const text = this.#pending === "" ? chunk : this.#pending + chunk;
    const crs = text.includes("\r");
    let start = 0;
    for (;;) {
      let end = text.indexOf("\n", start);
      let next = end + 1;
      if (crs) {
        const cr = text.indexOf("\r", start);
        if (cr !== -1 && (end === -1 || cr < end)) {
          if (cr + 1 === text.length) break; // may be a CRLF: wait
          end = cr;
          next = text.charCodeAt(cr + 1) === LF ? cr + 2 : cr + 1;
        }
      }
      if (end === -1) break; // no line end yet
      this.#line(text, start, end);
      start = next;
    }
    this.#pending = start === 0 ? text : text.slice(start);
  }

  #line(text: string, start: number, end: number): void {
    if (start === end) {
      if (this.#lines > 0) this.#sink.event(this.#id, this.#type, this.#data);
      this.#id = undefined;
      this.#type = undefined;
      this.#data = "";
      this.#lines = 0;
      return;
    }
    if (text.charCodeAt(start) === COLON) return; // a comment
    let colon = text.indexOf(":", start);
    if (colon === -1 || colon > end) colon = end;
    const name = text.slice(start, colon);
    let from = colon + 1;
    if (from < end && text.charCodeAt(from) === SPACE) from++;
    const value = colon === end ? "" : text.slice(from, end);
    switch (name) {
      case "data":
        this.#data = this.#lines === 0 ? value : `${this.#data}\n${value}`;
        this.#lines++;
        return;
      case "event":
        this.#type = value === "" ? undefined : value;
        return;
      case "id":
        if (!value.includes("\0")) this.#id = value;
        return;
      case "retry":
        if (DIGITS.test(value)) this.#sink.retry(parseInt(value, 10));
        return;
    }
  }
}

const DIGITS = /^\d+$/;
