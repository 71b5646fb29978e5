/**
 * The task host: one per store in a process (every server of the process
 * sharing that store shares it), it starts tasks, keeps their records,
 * leases and heartbeats, answers `tasks/*`, and takes over a task whose
 * lease expired (the instance running it stopped).
 *
 * @module
 */

import type { Store } from "../store/contract.ts";
import {
  type CallExtra,
  checkAnswer,
  InvalidAnswerError,
  type TaskCall,
  type TaskRunner,
  type TaskRunOptions,
  type TaskTool,
  taskToolOf,
} from "../bridge/task_hook.ts";
import {
  askElicitation,
  askKey,
  type AskRequest,
  type InputResponse,
} from "../core/input.ts";
import type { ToolProgress } from "../core/tool.ts";
import {
  indexKey,
  isTaskId,
  isTerminal,
  leaseKey,
  recordKey,
  type TaskRecord,
  type WireTask,
  wireTask,
} from "./_record.ts";
import {
  TaskAccessError,
  TaskCancelledError,
  TaskStoreUnavailableError,
} from "./errors.ts";
import { RecordBook } from "./_book.ts";
import { Lease, leaseHeld } from "./_lease.ts";
import { Questions } from "./_questions.ts";
import { askerOf, connectionOf, detached, ownerOf } from "./_caller.ts";
import {
  CANCELLED_TEXT,
  firstText,
  notResumableText,
  progressText,
  resultOf,
  RESUMED_TEXT,
  taskV2,
} from "./_views.ts";

export {
  CANCELLED_TEXT,
  notResumableText,
  RESUMED_TEXT,
  taskV2,
} from "./_views.ts";
export { RELATED_TASK } from "./_caller.ts";
import { holdAnswer } from "../store/request_hold.ts";
import {
  checkArgumentSize,
  reserve,
  RunningCount,
  type TaskLimits,
} from "./_limits.ts";
import {
  isStoreOutage,
  recordOutcome,
  type TaskClock,
  taskClockOf,
} from "./_outcome.ts";

/** The settings of a host, resolved. */
export interface HostSettings extends TaskLimits {
  /** Default record TTL, ms. */
  readonly ttlMs: number;
  /** The longest TTL a caller may ask for, ms. */
  readonly maxTtlMs: number;
  /** The poll interval advised to callers, ms. */
  readonly pollIntervalMs: number;
  /** The lease: a task whose runner has not renewed it for this long is taken over, ms. */
  readonly leaseMs: number;
}

export class TaskHost implements TaskRunner {
  readonly instance: string = crypto.randomUUID();
  readonly store: Store;
  readonly settings: HostSettings;
  /** Tasks running in this process, by id. */
  readonly #running = new Map<string, AbortController>();
  /** The lease of each task running here, by id (its heartbeat renews it). */
  readonly #leases = new Map<string, Lease>();
  /**
   * The connection of each anonymous caller without a session that made a
   * task here (an SDK transport: a stdio or in-memory connection, one
   * stateless HTTP request), by a random id its records carry.
   */
  readonly #connections = new WeakMap<object, string>();
  /** The tasks of each caller running here. */
  readonly #counts = new RunningCount();
  /** Aborts when the host closes: outcomes still being recorded give up. */
  readonly #closing = new AbortController();
  readonly #clock: TaskClock;
  /** The records: compare-and-set updates, and waiting for a change. */
  readonly #book: RecordBook;
  /** The 2025-11-25 questions tasks wait on: asked, pushed, answered. */
  readonly #questions: Questions;
  #closed = false;

  constructor(store: Store, settings: HostSettings) {
    this.store = store;
    this.settings = settings;
    this.#clock = taskClockOf(store);
    this.#book = new RecordBook(store);
    this.#questions = new Questions(store, this.#book);
  }

  /** Starts `call` as a task; its record and lease are stored before the handle is returned. */
  async start(call: TaskCall): Promise<Record<string, unknown>> {
    // Held until the store answered: an outage is answered as one (503
    // over httpHandler), never as a 200 naming the store.
    const hold = holdAnswer(call.extra.requestInfo);
    try {
      return await this.#admit(call);
    } catch (error) {
      if (!isStoreOutage(error)) throw error;
      hold.outage();
      throw new TaskStoreUnavailableError(error);
    } finally {
      hold.release();
    }
  }

  async #admit(call: TaskCall): Promise<Record<string, unknown>> {
    const owner = ownerOf(call.extra);
    checkArgumentSize(call.args, this.settings.maxArgumentBytes);
    this.#counts.check(owner, this.settings.maxRunningPerCaller);
    // Counted before the first await: starts racing here cannot pass it.
    const ended = this.#counts.add(owner);
    try {
      return await this.#start(call, owner, ended);
    } catch (error) {
      ended();
      throw error;
    }
  }

  async #start(
    call: TaskCall,
    owner: string,
    ended: () => void,
  ): Promise<Record<string, unknown>> {
    const ttl = this.#ttlOf(call.task.ttl);
    const id = crypto.randomUUID();
    const now = new Date().toISOString();
    const record: TaskRecord = {
      taskId: id,
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttl,
      pollInterval: this.settings.pollIntervalMs,
      tool: call.tool,
      args: call.args ?? {},
      owner,
      ...(owner === "" ? { connection: this.#connectionId(call.server) } : {}),
      answers: {},
    };
    await reserve(this.store, owner, id, {
      max: this.settings.maxTasksPerCaller,
      ttlMs: this.settings.maxTtlMs,
    });
    // A new id: its lease is free, and nobody else can race for it.
    const lease = this.#lease(id);
    if (!await lease.acquire()) {
      throw new Error(`task ${id}: its new lease was held by another instance`);
    }
    await this.store.set(recordKey(id), record, { ttlMs: ttl });
    if (call.era === "v1") this.#questions.origins.set(id, call.server);
    this.#launch(record, lease, (options) => call.run(options), {
      checkpoint: undefined,
      ended,
    });
    // The modern shape carries the 2025 one too: the SDK's server checks a
    // call that named `params.task` against it, and modern readers ignore it.
    return call.era === "v2"
      ? { ...taskV2(record), resultType: "task", task: wireTask(record) }
      : { task: wireTask(record) };
  }

  /** `tasks/get` of a 2026-07-28 caller: the detailed task (its questions, its result). */
  async getV2(
    id: string,
    extra: CallExtra,
    server: object,
  ): Promise<Record<string, unknown>> {
    return taskV2(await this.#read(id, extra, server));
  }

  /** `tasks/update` (2026-07-28): answers to the questions the task waits on. */
  async update(
    id: string,
    responses: Record<string, unknown>,
    extra: CallExtra,
    server: object,
  ): Promise<void> {
    const record = await this.#read(id, extra, server);
    const input = record.input;
    if (input !== undefined && responses[input.key] !== undefined) {
      // Checked as a direct call's answer is: its action, its form.
      const answer = checkAnswer(
        server,
        input.request.params.requestedSchema,
        responses[input.key],
        `inputResponses ${JSON.stringify(input.key)}`,
      );
      await this.#questions.answer(id, input.key, answer);
    }
  }

  /** `tasks/get`: the task, taken over first when its runner stopped. */
  async get(id: string, extra: CallExtra, server: object): Promise<WireTask> {
    const record = await this.#read(id, extra, server);
    // The caller knows the task (it polls): a question it waits on may go
    // out on the task's own connection.
    this.#questions.polled(record);
    return wireTask(record);
  }

  /**
   * `tasks/result`: waits until the task is terminal, asking the client
   * the questions the task waits on meanwhile; resolves to its result.
   */
  async result(
    id: string,
    extra: CallExtra,
    server: object,
    read?: () => void,
  ): Promise<Record<string, unknown>> {
    const asker = askerOf(extra);
    for (;;) {
      extra.signal.throwIfAborted();
      const record = await this.#read(id, extra, server);
      // The store answered: the answer may stream from here on.
      read?.();
      if (isTerminal(record.status)) return resultOf(record);
      if (
        await this.#questions.askCaller(asker, record, server, extra.signal)
      ) continue;
      await this.#book.changed(id, record.pollInterval, extra.signal);
    }
  }

  /** `tasks/cancel`: sticky — a cancelled task never completes. */
  async cancel(
    id: string,
    extra: CallExtra,
    server: object,
  ): Promise<WireTask> {
    await this.#read(id, extra, server);
    let refused: TaskRecord | undefined;
    const record = await this.#book.update(id, (r) => {
      if (isTerminal(r.status)) {
        refused = r;
        return undefined;
      }
      const { input: _, ...rest } = r;
      return { ...rest, status: "cancelled", statusMessage: CANCELLED_TEXT };
    });
    if (record === undefined) throw TaskAccessError.notFound(id);
    if (refused !== undefined) {
      throw TaskAccessError.terminal(id, refused.status);
    }
    this.#running.get(id)?.abort(new TaskCancelledError(id));
    return wireTask(record);
  }

  /**
   * `tasks/list`: the caller's tasks still kept, newest last. A caller
   * with neither a verified identity nor a session is its connection: it
   * lists the tasks made on that connection in this process (a stdio or
   * in-memory client, its own; a stateless HTTP request, none — another
   * anonymous caller's tasks are never listed, only reached by their ids).
   */
  async list(extra: CallExtra, server: object): Promise<WireTask[]> {
    const owner = ownerOf(extra);
    const connection = owner === ""
      ? this.#connections.get(connectionOf(server))
      : undefined;
    if (owner === "" && connection === undefined) return [];
    const index = await this.store.get<string[]>(indexKey(owner));
    const tasks: WireTask[] = [];
    for (const id of index?.value ?? []) {
      const entry = await this.store.get<TaskRecord>(recordKey(id));
      if (
        entry !== undefined && entry.value.owner === owner &&
        entry.value.connection === connection
      ) {
        tasks.push(wireTask(entry.value));
      }
    }
    return tasks;
  }

  /** The id of `server`'s connection, made when it first makes a task. */
  #connectionId(server: object): string {
    const key = connectionOf(server);
    let id = this.#connections.get(key);
    if (id === undefined) this.#connections.set(key, id = crypto.randomUUID());
    return id;
  }

  /**
   * Stops every task running here, as an instance shutting down does: the
   * tools' signals abort, heartbeats stop, and the leases are let go, so
   * the next instance asked about a task takes it over at once (a served
   * agent resumes from its last step; any other tool ends `failed`).
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort();
    const leases = [...this.#leases.values()];
    for (const lease of leases) lease.stop();
    for (const abort of this.#running.values()) {
      abort.abort(new Error("the task host closed"));
    }
    this.#questions.close();
    await Promise.all(
      leases.map((lease) =>
        lease.release().catch(() => {
          // Nothing lost: a lease the store cannot let go of lapses by its TTL.
        })
      ),
    );
  }

  /** This host's lease on task `id`, on the host's clock. */
  #lease(id: string): Lease {
    return new Lease(this.store, leaseKey(id), {
      instance: this.instance,
      ttlMs: this.settings.leaseMs,
      clock: this.#clock.lease,
    });
  }

  /** Runs `record`'s task here under the lease, writing its outcome. */
  #launch(
    record: TaskRecord,
    lease: Lease,
    run: (options: TaskRunOptions) => Promise<Record<string, unknown>>,
    { checkpoint, ended }: { checkpoint: unknown; ended: () => void },
  ): void {
    const id = record.taskId;
    const abort = new AbortController();
    this.#running.set(id, abort);
    this.#leases.set(id, lease);
    lease.heartbeat({
      onLost: () =>
        abort.abort(new Error("another instance took the task over")),
      // A beat the store misses is tried at the next one; the lease lapses
      // only if the store stays down past it.
      onError: () => {
        // Nothing lost: a missed beat is tried at the next one; the lease
        // lapses only past it, and a lost lease stops the runner (onLost).
      },
      afterBeat: () => this.#stillWanted(id, abort),
    });
    let asks = 0;
    let progressing: Promise<unknown> = Promise.resolve();
    const options: TaskRunOptions = {
      signal: abort.signal,
      progress: (update) => {
        progressing = progressing.then(() =>
          // A status message lost to the store is replaced by the next one.
          this.#progress(id, update).catch(() => {
            // Nothing lost: a status message lost to the store is replaced by the next one.
          })
        );
      },
      ask: (request) => this.#ask(id, asks++, request, abort.signal),
      checkpoint,
      saveCheckpoint: async (value) => {
        await this.#book.update(
          id,
          (r) => isTerminal(r.status) ? undefined : { ...r, checkpoint: value },
        );
      },
    };
    run(options)
      .catch((thrown): Record<string, unknown> => ({
        content: [{
          type: "text",
          text: thrown instanceof Error ? thrown.message : String(thrown),
        }],
        isError: true,
      }))
      .then(async (result) => {
        await progressing;
        if (abort.signal.aborted) return;
        // Tried again while the store is down; the heartbeat keeps the
        // lease meanwhile.
        await recordOutcome((r) => this.#finish(id, r), result, {
          clock: this.#clock,
          stop: AbortSignal.any([abort.signal, this.#closing.signal]),
        });
      })
      .catch(() => {
        // #record fails the task itself when it can; past that the store
        // is unreachable and the lease lapses: the next reader takes over.
      })
      .finally(async () => {
        ended();
        lease.stop();
        this.#leases.delete(id);
        this.#running.delete(id);
        this.#questions.forget(id);
        this.#book.wake(id);
        // Let go only while it is still this instance's (`close()` lets go
        // of it itself); one the store cannot let go of now lapses by its
        // TTL instead.
        if (!this.#closed) {
          await lease.release().catch(() => {
            // Nothing lost: a lease the store cannot let go of lapses by its TTL.
          });
        }
      });
  }

  async #finish(id: string, result: Record<string, unknown>): Promise<void> {
    await this.#book.update(id, (r) => {
      if (isTerminal(r.status)) return undefined;
      const { input: _, statusMessage: __, ...rest } = r;
      const failed = result.isError === true;
      return {
        ...rest,
        status: failed ? "failed" : "completed",
        ...(failed ? { statusMessage: firstText(result) } : {}),
        result,
      };
    });
  }

  /** After each renewal: aborts the run when the task was cancelled or dropped elsewhere. */
  async #stillWanted(id: string, abort: AbortController): Promise<void> {
    if (abort.signal.aborted) return;
    const record = await this.store.get<TaskRecord>(recordKey(id));
    if (record === undefined || isTerminal(record.value.status)) {
      abort.abort(new TaskCancelledError(id));
    }
  }

  async #progress(id: string, update: ToolProgress): Promise<void> {
    const message = progressText(update);
    await this.#book.update(
      id,
      (r) =>
        r.status !== "working" || r.statusMessage === message
          ? undefined
          : { ...r, statusMessage: message },
    );
  }

  /** The task's `ctx.ask`: answered from the record, else `input_required` until answered. */
  async #ask(
    id: string,
    index: number,
    request: AskRequest,
    signal: AbortSignal,
  ): Promise<InputResponse> {
    const elicitation = askElicitation(request);
    const key = askKey(index);
    for (let first = true;; first = false) {
      signal.throwIfAborted();
      const entry = await this.store.get<TaskRecord>(recordKey(id));
      if (entry === undefined) throw TaskAccessError.notFound(id);
      const known = entry.value.answers[key];
      if (known !== undefined) return known;
      const refused = entry.value.refused?.[key];
      if (refused !== undefined) {
        throw new InvalidAnswerError("elicitation result", refused);
      }
      if (isTerminal(entry.value.status)) throw new TaskCancelledError(id);
      if (first) {
        await this.#book.update(
          id,
          (r) =>
            isTerminal(r.status) || r.answers[key] !== undefined ||
              r.refused?.[key] !== undefined
              ? undefined
              : {
                ...r,
                status: "input_required",
                statusMessage: elicitation.params.message,
                input: { key, request: elicitation },
              },
        );
        continue;
      }
      await this.#book.changed(id, entry.value.pollInterval, signal);
    }
  }

  /** The record, checked against the caller; a task whose lease lapsed is taken over first. */
  async #read(
    id: string,
    extra: CallExtra,
    server: object,
  ): Promise<TaskRecord> {
    if (!isTaskId(id)) throw TaskAccessError.malformed(id);
    const entry = await this.store.get<TaskRecord>(recordKey(id));
    if (entry === undefined) throw TaskAccessError.notFound(id);
    const record = entry.value;
    if (
      record.owner.startsWith("principal:") && record.owner !== ownerOf(extra)
    ) {
      throw TaskAccessError.notFound(id);
    }
    if (isTerminal(record.status) || this.#running.has(id)) return record;
    if (await leaseHeld(this.store, leaseKey(id))) return record;
    return await this.#takeOver(record, extra, server) ?? record;
  }

  /**
   * Takes over a task whose lease lapsed: resumes a resumable tool from
   * its checkpoint, else fails the task with a reason. One instance wins
   * the lease; the others read what it wrote.
   */
  async #takeOver(
    record: TaskRecord,
    extra: CallExtra,
    server: object,
  ): Promise<TaskRecord | undefined> {
    const id = record.taskId;
    const lease = this.#lease(id);
    if (!await lease.acquire()) return undefined;
    const tool: TaskTool | undefined = taskToolOf(server, record.tool);
    if (tool === undefined || !tool.resumable) {
      await lease.release();
      return await this.#book.update(id, (r) => {
        if (isTerminal(r.status)) return undefined;
        const { input: _, ...rest } = r;
        return {
          ...rest,
          status: "failed",
          lost: true,
          statusMessage: notResumableText(r.tool),
          result: {
            content: [{ type: "text", text: notResumableText(r.tool) }],
            isError: true,
          },
        };
      });
    }
    const resumed = await this.#book.update(
      id,
      (r) =>
        isTerminal(r.status) ? undefined : {
          ...r,
          statusMessage: r.status === "working"
            ? RESUMED_TEXT
            : r.statusMessage,
        },
    );
    if (resumed === undefined || isTerminal(resumed.status)) {
      await lease.release();
      return resumed;
    }
    this.#launch(
      resumed,
      lease,
      (options) => tool.run(resumed.args, detached(extra, resumed), options),
      {
        checkpoint: resumed.checkpoint,
        ended: this.#counts.add(resumed.owner),
      },
    );
    return resumed;
  }

  #ttlOf(asked: number | undefined): number {
    if (typeof asked !== "number" || !Number.isFinite(asked) || asked <= 0) {
      return this.settings.ttlMs;
    }
    // A fraction of a ms is kept for a whole one.
    return Math.min(Math.ceil(asked), this.settings.maxTtlMs);
  }
}
