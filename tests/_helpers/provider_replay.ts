/**
 * Replaying provider HTTP APIs for the real AI SDK provider packages: a
 * custom `fetch` that answers each request with the next recorded response,
 * streaming its body in small pieces (so the package's SSE parser sees
 * events split anywhere), records every request, and honours the request's
 * abort signal. Plus readers for the recorded fixtures in
 * `../shared/fixtures/providers/` (read in place, never copied) and our own
 * in `tests/fixtures/providers/`.
 */

/** One canned response. */
export interface Replay {
  /** The HTTP status; 200 when absent. */
  readonly status?: number;
  /** The content type; `text/event-stream` when absent. */
  readonly contentType?: string;
  /** The body bytes. */
  readonly body: string;
  /** After how many bytes the body stops sending (and hangs until aborted); never when absent. */
  readonly stallAfter?: number;
}

/** One request as the provider package sent it. */
export interface SeenRequest {
  readonly url: string;
  readonly headers: Headers;
  /** The parsed JSON body. */
  readonly body: Record<string, unknown>;
  /** The body text as sent. */
  readonly text: string;
  /** The request's signal (the run's signal reaches it). */
  readonly signal: AbortSignal | undefined;
}

/** A replaying fetch and what it saw. */
export interface ReplayFetch {
  readonly fetch: typeof fetch;
  readonly requests: SeenRequest[];
  /** Resolves when the body of response `index` stalls (see `stallAfter`). */
  stalled(index: number): Promise<void>;
}

/** The piece size the bodies are streamed in. */
const PIECE = 7;

/** A fetch answering request n with `replays[n]`; a request beyond them fails the test. */
export function replayFetch(replays: readonly Replay[]): ReplayFetch {
  const requests: SeenRequest[] = [];
  const stalls = replays.map(() => Promise.withResolvers<void>());
  const replayingFetch = async (
    input: RequestInfo | URL,
    init?: RequestInit,
  ): Promise<Response> => {
    const request = new Request(input, init);
    const text = await request.text();
    const index = requests.length;
    const signal = init?.signal ?? undefined;
    requests.push({
      url: request.url,
      headers: request.headers,
      body: text === "" ? {} : JSON.parse(text),
      text,
      signal,
    });
    signal?.throwIfAborted();
    const replay = replays[index];
    if (replay === undefined) {
      throw new Error(`replayFetch: no response for request ${index + 1}`);
    }
    const bytes = new TextEncoder().encode(replay.body);
    const limit = replay.stallAfter ?? bytes.length;
    let offset = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        signal?.addEventListener("abort", () => {
          try {
            controller.error(signal.reason);
          } catch {
            // already closed
          }
        }, { once: true });
      },
      pull(controller) {
        if (offset >= limit) {
          if (limit < bytes.length) {
            stalls[index].resolve();
            return new Promise<void>(() => {}); // hangs until aborted
          }
          controller.close();
          return;
        }
        const end = Math.min(offset + PIECE, limit);
        controller.enqueue(bytes.slice(offset, end));
        offset = end;
      },
    });
    return new Response(body, {
      status: replay.status ?? 200,
      headers: {
        "content-type": replay.contentType ?? "text/event-stream",
      },
    });
  };
  return {
    fetch: replayingFetch as typeof fetch,
    requests,
    stalled: (index) => stalls[index].promise,
  };
}

/** The recorded fixtures, read in place from the shared folder beside the repo. */
export const SHARED_FIXTURES = new URL(
  "../../../shared/fixtures/providers/",
  import.meta.url,
);

/** Our own fixtures, written from the providers' API references. */
export const OWN_FIXTURES = new URL(
  "../fixtures/providers/",
  import.meta.url,
);

/**
 * Whether the recordings are there. They live beside the repository, not in
 * it: on a clone alone the folder is absent.
 */
export const SHARED_PRESENT: boolean = isDirectory(SHARED_FIXTURES);

function isDirectory(url: URL): boolean {
  try {
    return Deno.statSync(url).isDirectory;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/** The line that says the recorded tests did not run (the folder named relative to the repository). */
export const NOT_RUN_LINE =
  "NOT RUN: the tests over the provider recordings are ignored, because ../shared/fixtures/providers/ (beside the repository) is absent";

/**
 * Set by `deno task test` (tests/run.ts) in the suites' environment once it
 * has printed {@link NOT_RUN_LINE} itself: the test files, each in a process
 * of its own under `--parallel`, then do not print it again.
 */
export const NOT_RUN_SAID_ENV = "WEFT_TESTS_NOT_RUN_SAID";

let announced = false;

/**
 * A test over the recordings in `../shared/fixtures/providers/`: it runs when
 * the folder is present; when it is absent the test is registered as
 * ignored (deno's summary counts it) and {@link NOT_RUN_LINE} goes to
 * stderr — once per run of `deno task test` (the runner prints it), once
 * per file run directly — so a clone of the repository alone neither fails
 * nor skips silently.
 */
export function recordedTest(name: string, fn: () => Promise<void>): void {
  if (!SHARED_PRESENT && !announced) {
    announced = true;
    if (Deno.env.get(NOT_RUN_SAID_ENV) !== "1") console.warn(NOT_RUN_LINE);
  }
  Deno.test({ name, ignore: !SHARED_PRESENT, fn });
}

/** The text of a recorded fixture; only in a {@linkcode recordedTest}. */
export function shared(name: string): string {
  if (!SHARED_PRESENT) {
    throw new Error(
      `the recording ${name} was read, but ${
        decodeURIComponent(SHARED_FIXTURES.pathname)
      } is absent: register the test with recordedTest`,
    );
  }
  return Deno.readTextFileSync(new URL(name, SHARED_FIXTURES));
}

/** The text of one of our fixtures. */
export function own(name: string): string {
  return Deno.readTextFileSync(new URL(name, OWN_FIXTURES));
}

/**
 * A `*.chunks.txt` file (one event payload per line) as an SSE body: each
 * non-empty line as `data: <line>`, then `data: [DONE]`.
 */
export function chunksToSse(chunks: string): string {
  const lines = chunks.split("\n").filter((line) => line.trim() !== "");
  return lines.map((line) => `data: ${line}\n\n`).join("") +
    "data: [DONE]\n\n";
}

/**
 * Splits a chunks file holding several recorded streams at each line whose
 * JSON `type` is `marker` (the first line of every stream).
 */
export function splitChunks(chunks: string, marker: string): string[] {
  const streams: string[][] = [];
  for (const line of chunks.split("\n")) {
    if (line.trim() === "") continue;
    const type = (JSON.parse(line) as { type?: unknown }).type;
    if (type === marker || streams.length === 0) streams.push([]);
    streams[streams.length - 1].push(line);
  }
  return streams.map((lines) => lines.join("\n"));
}

/** SSE body of JSON events, each as `data: <json>` (our fixtures' shorthand in tests). */
export function sseOf(events: readonly unknown[], done = true): string {
  return events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") +
    (done ? "data: [DONE]\n\n" : "");
}
