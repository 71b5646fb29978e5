/**
 * Past one machine: three instances of one server (real processes) on one
 * Redis, and on one Postgres, behind a round-robin proxy —
 *
 * (a) a legacy session opened on one instance continues on the others;
 * (b) a call's SSE stream dropped on one instance resumes on another with
 *     `Last-Event-ID`, nothing lost or doubled;
 * (c) a tool-list change made on instance A reaches a
 *     `subscriptions/listen` stream held by instance C;
 * (d) killing an instance mid-stream loses no stored event: every event it
 *     stored replays on another, once, in order.
 *
 * Each claim is also run on three instances with stores of their own
 * (memory: nothing shared) and must fail there — the shared store is what
 * makes it hold. Latency figures are in bench/scaleout_bench.ts, not here.
 */

import assert from "node:assert/strict";
import { META, MODERN_PROTOCOL_VERSION } from "../src/runtime/era/era.ts";
import { postgresStore, redisStore, type Store } from "../store.ts";
import { type Rig, startRig } from "./_helpers/scaleout_rig.ts";
import { startPostgres, startRedis } from "./_helpers/store_servers.ts";
import { pokeUntil, waitFor } from "./_helpers/wait.ts";

const LEGACY = "2025-11-25";
const DEADLINE = 10_000;

const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

interface Event {
  readonly id?: string;
  readonly message: Record<string, unknown>;
}

/** Reads SSE events one by one (priming events, without data, skipped). */
function sse(res: Response) {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const ready: Event[] = [];
  let lastId: string | undefined;
  return {
    /** The id of the last event read, priming events included. */
    get lastId() {
      return lastId;
    },
    /** The next event with data; `undefined` at the stream's end. */
    async next(): Promise<Event | undefined> {
      while (ready.length === 0) {
        const { value, done } = await reader.read();
        if (done) return undefined;
        buffer += value;
        const blocks = buffer.split("\n\n");
        buffer = blocks.pop()!;
        for (const block of blocks) {
          const id = /^id: (.*)$/m.exec(block)?.[1];
          if (id !== undefined) lastId = id;
          const data = block.split("\n").filter((l) => l.startsWith("data:"))
            .map((l) => l.slice(5).trim()).join("\n");
          if (data !== "") ready.push({ id, message: JSON.parse(data) });
        }
      }
      return ready.shift();
    },
    cancel: () => reader.cancel().catch(() => {}),
  };
}

function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { ...HEADERS, ...headers },
    body: JSON.stringify(body),
    signal: signal ?? AbortSignal.timeout(DEADLINE),
  });
}

/** Opens a legacy session on one instance (`url`); its headers. */
async function openSession(url: string): Promise<Record<string, string>> {
  const init = await post(url, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: LEGACY,
      capabilities: {},
      clientInfo: { name: "scaleout-test", version: "1" },
    },
  });
  assert.equal(init.status, 200, "initialize");
  const sid = init.headers.get("mcp-session-id");
  assert.ok(sid !== null);
  await init.text();
  const session = { "mcp-session-id": sid, "mcp-protocol-version": LEGACY };
  const initialized = await post(url, {
    jsonrpc: "2.0",
    method: "notifications/initialized",
  }, session);
  assert.equal(initialized.status, 202, "notifications/initialized");
  return session;
}

/** (a) A session opened on instance 0 is served by all three (through the proxy). */
async function sessionContinues(rig: Rig): Promise<void> {
  const session = await openSession(rig.instances[0].url);
  const served = new Set<string>();
  for (let id = 1; id <= 4; id++) {
    const res = await post(rig.url, {
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "echo", arguments: { call: id } },
    }, session);
    served.add(res.headers.get("x-served-by")!);
    assert.equal(
      res.status,
      200,
      `call ${id} on instance ${res.headers.get("x-served-by")}`,
    );
    const stream = sse(res);
    let answer: Event | undefined;
    while ((answer = await stream.next()) !== undefined) {
      if (answer.message.id === id) break;
    }
    assert.deepEqual(
      (answer?.message.result as Record<string, unknown>).structuredContent,
      { call: id },
    );
    await stream.cancel();
  }
  assert.deepEqual([...served].sort(), ["0", "1", "2"], "all three served it");
}

/** The `data` of the log messages among `events`, and how many answers to `id`. */
function tally(events: Event[], id: number) {
  return {
    counted: events.filter((e) => e.message.method === "notifications/message")
      .map((e) => (e.message.params as { data: number }).data),
    answers: events.filter((e) => e.message.id === id),
  };
}

/** Resumes through the proxy with `Last-Event-ID`, past an instance that is gone (502). */
async function resume(
  rig: Rig,
  session: Record<string, string>,
  lastEventId: string,
  signal?: AbortSignal,
): Promise<Response> {
  for (let tries = 0;; tries++) {
    const res = await fetch(rig.url, {
      headers: {
        accept: "text/event-stream",
        ...session,
        "last-event-id": lastEventId,
      },
      signal: signal ?? AbortSignal.timeout(DEADLINE),
    });
    if (res.status !== 502 || tries === 3) return res;
    await res.body?.cancel();
  }
}

/** (b) A call's stream dropped on one instance resumes on another: nothing lost or doubled. */
async function streamResumes(rig: Rig): Promise<void> {
  // Opened and started on instance 1; resumed through the proxy on 2.
  const session = await openSession(rig.instances[1].url);
  const drop = new AbortController();
  const started = await post(
    rig.instances[1].url,
    {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "count", arguments: { n: 6, every: 60 } },
    },
    session,
    AbortSignal.any([drop.signal, AbortSignal.timeout(DEADLINE)]),
  );
  assert.equal(started.status, 200);
  await landNextOn(rig, "2");
  const live = sse(started);
  const before: Event[] = [];
  while (before.length < 2) before.push((await live.next())!);
  const lastId = live.lastId!;
  drop.abort();
  await live.cancel();
  const resumed = await resume(rig, session, lastId);
  assert.equal(resumed.headers.get("x-served-by"), "2", "elsewhere");
  assert.equal(resumed.status, 200, "resumed");
  const after: Event[] = [];
  const rest = sse(resumed);
  for (let e; (e = await rest.next()) !== undefined;) after.push(e);
  const { counted, answers } = tally([...before, ...after], 7);
  assert.deepEqual(counted, [1, 2, 3, 4, 5, 6], "every event once, in order");
  assert.equal(answers.length, 1, "the answer once");
  assert.deepEqual(answers[0].message.result, {
    content: [{ type: "text", text: "counted 6" }],
  });
}

/** Opens a listen stream on `url`; the stream after its acknowledgement. */
async function listen(url: string, signal: AbortSignal) {
  const res = await post(url, {
    jsonrpc: "2.0",
    id: "sub-c",
    method: "subscriptions/listen",
    params: {
      notifications: { toolsListChanged: true },
      _meta: {
        [META.protocolVersion]: MODERN_PROTOCOL_VERSION,
        [META.clientCapabilities]: {},
        [META.clientInfo]: { name: "scaleout-test", version: "1" },
      },
    },
  }, {
    "mcp-protocol-version": MODERN_PROTOCOL_VERSION,
    "mcp-method": "subscriptions/listen",
  }, signal);
  assert.equal(res.status, 200, "listen");
  const stream = sse(res);
  const ack = await stream.next();
  assert.equal(ack?.message.method, "notifications/subscriptions/acknowledged");
  return stream;
}

/**
 * (c) A tool-list change made on instance A (0) reaches a listen stream
 * held by instance C (2), within `within` ms. The change is made again
 * every 250 ms: the stream's subscription to the bus comes into force
 * just after its acknowledgement, and a change published before it
 * reaches nobody.
 */
async function listenHearsOtherInstance(
  rig: Rig,
  within: number,
): Promise<void> {
  const close = new AbortController();
  const stream = await listen(rig.instances[2].url, close.signal);
  try {
    const got = await pokeUntil(
      () => rig.changed(0),
      stream.next(),
      "C hears of A's change",
      { signal: AbortSignal.timeout(within), everyMs: 250 },
    ).catch(() => undefined); // a change never heard is asserted below
    assert.ok(got !== undefined, "C heard nothing of A's change");
    assert.deepEqual(got.message, {
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: { _meta: { [META.subscriptionId]: "sub-c" } },
    });
  } finally {
    close.abort();
    await stream.cancel();
  }
}

interface Logged {
  readonly seq: string;
  readonly streamId: string;
}

/**
 * (d) Instance A (0) is killed while a call's stream runs on it: every
 * event it stored after the last one the client read replays on another
 * instance, once, in order; with what the client read before, the count
 * runs without a gap. `stored` reads the session's event log from the
 * shared store.
 */
async function killMidStream(
  rig: Rig,
  stored: (sid: string) => Promise<Logged[]>,
): Promise<void> {
  const session = await openSession(rig.instances[0].url);
  const started = await post(rig.instances[0].url, {
    jsonrpc: "2.0",
    id: 9,
    method: "tools/call",
    params: { name: "count", arguments: { n: 40, every: 40 } },
  }, session);
  assert.equal(started.status, 200);
  const live = sse(started);
  const before: Event[] = [];
  while (before.length < 2) before.push((await live.next())!);
  const lastId = live.lastId!;
  // A goes on counting and storing; the client reads no more, then A dies
  // once the shared store holds events the client has not read (without a
  // shared store there is nothing to wait for: the resume fails anyway).
  const [streamId, seq] = lastId.split("/");
  const unread = async () =>
    (await stored(session["mcp-session-id"]).catch(() => undefined))
      ?.filter((e) => e.streamId === streamId && e.seq > seq).length ?? 2;
  await waitFor(
    async () => await unread() >= 2,
    "A stores two events past the client's",
    { everyMs: 10 },
  );
  await rig.instances[0].kill();
  await live.cancel();
  const res = await resume(rig, session, lastId);
  assert.equal(res.status, 200, "resumed after the kill");
  assert.notEqual(res.headers.get("x-served-by"), "0");
  const kept = (await stored(session["mcp-session-id"]))
    .filter((e) => e.streamId === streamId && e.seq > seq)
    .sort((a, b) => a.seq < b.seq ? -1 : 1);
  assert.ok(kept.length > 0, "A stored events the client had not read");
  // The call died with A: its stream never ends; read what was kept.
  const rest = sse(res);
  const after: Event[] = [];
  while (after.length < kept.length) after.push((await rest.next())!);
  await rest.cancel();
  assert.deepEqual(
    after.map((e) => e.id),
    kept.map((e) => `${e.streamId}/${e.seq}`),
    "every stored event, once, in order",
  );
  const { counted } = tally([...before, ...after], 9);
  assert.deepEqual(
    counted,
    Array.from({ length: counted.length }, (_, i) => i + 1),
    "no gap",
  );
}

/** Moves the proxy's round robin on (requests of no session) until its next request lands on `instance`. */
async function landNextOn(rig: Rig, instance: string): Promise<void> {
  for (let tries = 0; tries < 3; tries++) {
    const res = await fetch(rig.url, { method: "OPTIONS" });
    await res.body?.cancel();
    const next = (Number(res.headers.get("x-served-by")) + 1) % 3;
    if (String(next) === instance) return;
  }
  throw new Error(`the proxy never turned to instance ${instance}`);
}

/** The event log of a session as the instances store it. */
function logOf(store: Store) {
  return async (sid: string): Promise<Logged[]> =>
    (await store.readAfter<Logged>(`events/${sid}`, undefined)).map((e) =>
      e.value
    );
}

Deno.test("scale-out on Redis: three instances behind a round-robin proxy — a session continues, a stream resumes elsewhere, a change on A reaches a listen on C, a killed instance loses no stored event", async () => {
  const server = await startRedis();
  try {
    await using rig = await startRig("redis", server.url);
    await using store = redisStore(server.url, { prefix: "rig:" });
    await sessionContinues(rig);
    await streamResumes(rig);
    await listenHearsOtherInstance(rig, 5_000);
    await killMidStream(rig, logOf(store));
  } finally {
    await server.stop();
  }
});

Deno.test("scale-out on Postgres: three instances behind a round-robin proxy — the same four claims hold", async () => {
  const server = await startPostgres();
  try {
    await using rig = await startRig("postgres", server.url);
    await using store = postgresStore(server.url, { prefix: "rig" });
    await sessionContinues(rig);
    await streamResumes(rig);
    await listenHearsOtherInstance(rig, 5_000);
    await killMidStream(rig, logOf(store));
  } finally {
    await server.stop();
  }
});

Deno.test("scale-out without a shared store (a memory store per instance): each of the four claims fails", async () => {
  await using rig = await startRig("memory");
  // Each fails at its claim: another instance knows nothing of the session
  // (404), nor hears another's change.
  await assert.rejects(sessionContinues(rig), /: call \d on instance [12]\n/);
  await assert.rejects(streamResumes(rig), /: resumed\n/);
  await assert.rejects(
    listenHearsOtherInstance(rig, 2_000),
    /: C heard nothing of A's change/,
  );
  await assert.rejects(
    killMidStream(rig, () => Promise.reject(new Error("nothing shared"))),
    /: resumed after the kill\n/,
  );
});
