/**
 * The 2025-11-25 questions a task waits on (`ctx.ask` in a task): asked of
 * a `tasks/result` caller on its request's stream, or pushed on the
 * session that made the task once its caller polls `tasks/get`; each
 * answer checked against the form asked before it is recorded (a refused
 * one is recorded as refused, and the tool's `ask` rejects saying why).
 *
 * @module
 */

import type { Store } from "../store/contract.ts";
import { checkAnswer, InvalidAnswerError } from "../bridge/task_hook.ts";
import type { InputResponse } from "../core/input.ts";
import { recordKey, type TaskRecord } from "./_record.ts";
import type { RecordBook } from "./_book.ts";
import {
  ANY_RESULT,
  type Asker,
  PUSH_TIMEOUT_MS,
  pushDelay,
  type PushServer,
  RELATED_TASK,
} from "./_caller.ts";

/** The questions of one host's tasks. */
export class Questions {
  /** The server each 2025 task running here was created on, by task id. */
  readonly origins: Map<string, object> = new Map();
  readonly store: Store;
  readonly #book: RecordBook;
  /** Questions being asked by this process, by task id + key. */
  readonly #asking = new Set<string>();
  /** Questions about to be pushed, by task id. */
  readonly #pushTimers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(store: Store, book: RecordBook) {
    this.store = store;
    this.#book = book;
  }

  /**
   * A caller polled `record`: the question it waits on is pushed on the
   * task's own connection after a grace period (left to a `tasks/result`
   * caller first).
   */
  polled(record: TaskRecord): void {
    const id = record.taskId;
    if (
      record.status !== "input_required" || record.input === undefined ||
      !this.origins.has(id) || this.#pushTimers.has(id)
    ) return;
    const { key, request } = record.input;
    this.#pushTimers.set(
      id,
      setTimeout(() => {
        this.#pushTimers.delete(id);
        void this.#push(id, key, { ...request.params });
      }, pushDelay(record.pollInterval)),
    );
  }

  /**
   * Asks a `tasks/result` caller the question `record` waits on, unless
   * this process asks it already; resolves `true` when it asked (the
   * answer, checked, is recorded), `false` when there was nothing to ask.
   */
  async askCaller(
    asker: Asker,
    record: TaskRecord,
    server: object,
    signal: AbortSignal,
  ): Promise<boolean> {
    const input = record.input;
    if (record.status !== "input_required" || input === undefined) {
      return false;
    }
    const id = record.taskId;
    const ticket = `${id}\n${input.key}`;
    if (this.#asking.has(ticket)) return false;
    this.#asking.add(ticket);
    try {
      const capable =
        (server as PushServer).getClientCapabilities?.()?.elicitation !==
          undefined;
      const answer = capable
        ? await this.#askWhileOpen(asker, record, signal)
        : { action: "cancel" } as InputResponse;
      if (answer !== undefined) {
        await this.#answerChecked(
          server,
          id,
          input.key,
          input.request.params.requestedSchema,
          answer,
        );
      }
    } finally {
      this.#asking.delete(ticket);
    }
    return true;
  }

  /** Task `id` ended here: no question of it is pushed any more. */
  forget(id: string): void {
    this.origins.delete(id);
    const timer = this.#pushTimers.get(id);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.#pushTimers.delete(id);
  }

  /** The host closes: nothing more is pushed. */
  close(): void {
    for (const timer of this.#pushTimers.values()) clearTimeout(timer);
    this.#pushTimers.clear();
  }

  /**
   * Asks the task's question of a `tasks/result` caller; the request is
   * withdrawn once the question is moot (answered another way, the task
   * cancelled). `undefined`: no answer to record (the caller went away, or
   * the question was settled elsewhere); a refusal answers cancel.
   */
  async #askWhileOpen(
    asker: Asker,
    record: TaskRecord,
    signal: AbortSignal,
  ): Promise<InputResponse | undefined> {
    const id = record.taskId;
    const key = record.input!.key;
    const moot = new AbortController();
    const asking = AbortSignal.any([signal, moot.signal]);
    const watch = (async () => {
      while (!asking.aborted) {
        await this.#book.changed(id, record.pollInterval, asking);
        const now = await this.store.get<TaskRecord>(recordKey(id))
          .catch(() =>
            // Nothing lost: an unreadable record ends this watch; the record keeps the question.
            undefined
          );
        if (
          now?.value.status !== "input_required" || now.value.input?.key !== key
        ) {
          moot.abort();
        }
      }
    })();
    try {
      return await asker(
        {
          method: "elicitation/create",
          params: { ...record.input!.request.params },
        },
        id,
        asking,
      );
    } catch {
      return asking.aborted ? undefined : { action: "cancel" };
    } finally {
      moot.abort();
      await watch;
    }
  }

  /**
   * Records a 2025-11-25 caller's `answer` to the question `input` of task
   * `id`, checked first as a direct call's is (its action, its form
   * against the schema asked): an answer that does not answer the form is
   * recorded as refused, and the tool's `ask` rejects with the
   * `InvalidAnswerError` saying why.
   */
  async #answerChecked(
    server: object,
    id: string,
    key: string,
    schema: Readonly<Record<string, unknown>> | undefined,
    answer: unknown,
  ): Promise<void> {
    let checked: InputResponse;
    try {
      checked = checkAnswer(server, schema, answer, "elicitation result");
    } catch (error) {
      if (!(error instanceof InvalidAnswerError)) throw error;
      await this.#book.update(id, (r) => {
        if (r.status !== "input_required" || r.input?.key !== key) {
          return undefined;
        }
        const { input: _, statusMessage: __, ...rest } = r;
        return {
          ...rest,
          status: "working",
          refused: { ...r.refused, [key]: error.reason },
        };
      });
      return;
    }
    await this.answer(id, key, checked);
  }

  /** Records `response` to the question `key` of task `id`; the task goes on. */
  async answer(
    id: string,
    key: string,
    response: InputResponse,
  ): Promise<void> {
    await this.#book.update(id, (r) => {
      if (r.status !== "input_required" || r.input?.key !== key) {
        return undefined;
      }
      const { input: _, statusMessage: __, ...rest } = r;
      return {
        ...rest,
        status: "working",
        answers: { ...r.answers, [key]: response },
      };
    });
  }

  /**
   * Sends a 2025-11-25 task's question on the connection that created it
   * (the session's own stream), as a request related to the task, once the
   * caller polls it: for callers that poll `tasks/get` and never call
   * `tasks/result` while `input_required`. A caller's `tasks/result` asks
   * it otherwise.
   */
  async #push(
    id: string,
    key: string,
    params: Readonly<Record<string, unknown>>,
  ): Promise<void> {
    const server = this.origins.get(id) as PushServer | undefined;
    if (
      server?.request === undefined ||
      server.getClientCapabilities?.()?.elicitation === undefined
    ) return;
    const ticket = `${id}\n${key}`;
    if (this.#asking.has(ticket)) return;
    this.#asking.add(ticket);
    try {
      const answer = await server.request(
        {
          method: "elicitation/create",
          params: { ...params, _meta: { [RELATED_TASK]: { taskId: id } } },
        },
        ANY_RESULT,
        { timeout: PUSH_TIMEOUT_MS },
      );
      await this.#answerChecked(
        server,
        id,
        key,
        params.requestedSchema as Record<string, unknown> | undefined,
        answer,
      );
    } catch {
      // No stream, no answer: a tasks/result caller asks instead.
    } finally {
      this.#asking.delete(ticket);
      this.#book.wake(id);
    }
  }
}
