/**
 * A byte-level line splitter with a length cap, for newline-delimited
 * protocols (stdio JSON-RPC) and line-by-line logs (a child's stderr).
 *
 * @module
 */

import { concatBytes } from "../bytes.ts";
import { DEFAULT_MAX_LINE_BYTES, LineTooLongError } from "../errors.ts";

/** Options of {@link LineSplitStream}. */
export interface LineSplitOptions {
  /** The longest line let through, in bytes, newline excluded. Default 16 MiB. */
  maxLineBytes?: number;
  /**
   * What happens to a longer line. `"split"` emits it in pieces of at most
   * `maxLineBytes` (for logs). A function is called with a
   * {@link LineTooLongError} and the line is dropped up to its newline; the
   * stream goes on (for protocols). Absent: the stream errors with the
   * {@link LineTooLongError}.
   */
  onTooLong?: "split" | ((error: LineTooLongError) => void);
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Splits a byte stream at `\n` into lines (without the `\n`, and without a
 * `\r` before it). A last line without a newline is emitted when the input
 * ends; empty lines are emitted as empty arrays. Memory is bounded by
 * `maxLineBytes`: an over-long line is never buffered whole.
 *
 * @example Using `LineSplitStream`
 * ```ts
 * import { LineSplitStream } from "./_line_splitter.ts";
 * import assert from "node:assert/strict";
 * const bytes = new TextEncoder().encode("a\r\nbb\nccc");
 * const lines = ReadableStream.from([bytes]).pipeThrough(new LineSplitStream());
 * const text: string[] = [];
 * for await (const line of lines) text.push(new TextDecoder().decode(line));
 * assert.equal(text.join("|"), "a|bb|ccc");
 * ```
 */
export class LineSplitStream extends TransformStream<Uint8Array, Uint8Array> {
  /** Builds a splitter with the given cap and over-long policy. */
  constructor(options: LineSplitOptions = {}) {
    const splitter = new LineSplitter(
      options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
      options.onTooLong,
    );
    super({
      transform: (chunk, controller) => splitter.push(chunk, controller),
      flush: (controller) => splitter.end(controller),
    });
  }
}

/** Where a {@link LineSplitter} puts its lines (a transform stream's controller fits). */
export interface LineSink {
  /** One line, without its newline. */
  enqueue(line: Uint8Array): void;
  /** The stream's end by an over-long line (no `onTooLong`). */
  error(error: unknown): void;
}

type Controller = LineSink;

/**
 * The splitter of {@link LineSplitStream}, driven directly: `push` hands
 * each line of a chunk to the sink at once, with no stream between (a
 * reader of many short lines, stdio JSON-RPC, saves a stream hop a line).
 * With `views`, a line that lies whole in one chunk is handed on as a view
 * of that chunk, not a copy: the sink must be done with it when `enqueue`
 * returns, or copy it.
 */
export class LineSplitter {
  readonly #max: number;
  readonly #onTooLong: LineSplitOptions["onTooLong"];
  #parts: Uint8Array[] = [];
  #size = 0;
  #skipping = false;

  readonly #views: boolean;

  /** A splitter cutting lines at `max` bytes, `onTooLong` deciding what then. */
  constructor(
    max: number,
    onTooLong: LineSplitOptions["onTooLong"],
    views = false,
  ) {
    this.#views = views;
    if (!Number.isSafeInteger(max) || max < 1) {
      throw new RangeError(
        `maxLineBytes must be a positive integer, got ${max}`,
      );
    }
    this.#max = max;
    this.#onTooLong = onTooLong;
  }

  /** Splits `chunk`, handing `controller` each line it completes. */
  push(chunk: Uint8Array, controller: Controller): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(LF, start);
      if (newline === -1) {
        this.#append(chunk.subarray(start), controller);
        return;
      }
      if (
        this.#views && this.#size === 0 && !this.#skipping &&
        newline - start <= this.#max
      ) {
        // A whole line in this chunk: handed on as it lies.
        const end = newline > start && chunk[newline - 1] === CR
          ? newline - 1
          : newline;
        controller.enqueue(chunk.subarray(start, end));
      } else {
        this.#append(chunk.subarray(start, newline), controller);
        this.#endLine(controller, true);
      }
      start = newline + 1;
    }
  }

  /** The input ended: a last line without a newline goes out. */
  end(controller: Controller): void {
    if (this.#size > 0) this.#endLine(controller, false);
  }

  #append(piece: Uint8Array, controller: Controller): void {
    while (piece.length > 0 && !this.#skipping) {
      const room = this.#max - this.#size;
      if (piece.length <= room) {
        this.#parts.push(piece.slice());
        this.#size += piece.length;
        return;
      }
      if (this.#onTooLong !== "split") {
        this.#overflow(controller);
        return;
      }
      this.#parts.push(piece.slice(0, room));
      this.#size += room;
      controller.enqueue(this.#take(false));
      piece = piece.subarray(room);
    }
  }

  #overflow(controller: Controller): void {
    this.#parts = [];
    this.#size = 0;
    this.#skipping = true;
    const error = new LineTooLongError(this.#max);
    if (typeof this.#onTooLong === "function") this.#onTooLong(error);
    else controller.error(error);
  }

  #endLine(controller: Controller, terminated: boolean): void {
    if (this.#skipping) {
      this.#skipping = !terminated;
      return;
    }
    controller.enqueue(this.#take(true));
  }

  // The buffered line as one array; a trailing CR is dropped when `strip`.
  #take(strip: boolean): Uint8Array {
    const line = concatBytes(this.#parts, this.#size);
    this.#parts = [];
    this.#size = 0;
    if (strip && line.length > 0 && line[line.length - 1] === CR) {
      return line.subarray(0, line.length - 1);
    }
    return line;
  }
}
