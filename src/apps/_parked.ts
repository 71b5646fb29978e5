/**
 * What a run's views wait on: a call that asks for approval, or (with
 * pins) a view that changed since it was pinned. Each is parked on its run
 * with an id and its approval request; the page decides with the core
 * `approve`/`deny` decisions, and the waiting request is answered then.
 *
 * @module
 */

import type { Agent } from "../core/agent.ts";
import {
  type ApproveDecision,
  type Decision,
  deniedText,
  type DenyDecision,
} from "../core/decisions.ts";
import type { ApprovalRequest } from "../core/errors.ts";
import type { AppServer } from "../bridge/app_meta.ts";
import type { PinStore } from "../bridge/pins.ts";
import { viewCsp } from "./_csp.ts";
import { BodyError } from "./_http_error.ts";
import type { HostRun } from "./_runs.ts";
import { approveViewPin, changedView } from "./_view_pins.ts";
import { callFromView, readView } from "./_views.ts";
import { AppGateError } from "./errors.ts";
import type { AppRecord } from "./run_record.ts";

/** How a parked request is answered: an HTTP status and a JSON body. */
export interface Answer {
  readonly status: number;
  readonly body: unknown;
}

interface ParkedBase {
  /** The id the page decides on (`app_call_<n>`, `app_view_<n>`). */
  readonly id: string;
  /** The server whose view is concerned. */
  readonly server: string;
  /** Answers the waiting request. */
  readonly settle: (answer: Answer) => void;
}

/** A view's call that waits for approval. */
export interface ParkedCall extends ParkedBase {
  readonly kind: "call";
  /** The server's name for the tool. */
  readonly tool: string;
  /** The call's arguments. */
  readonly input: Record<string, unknown>;
  /** Why it waits, as the tool said; absent for a `requireApproval` tool. */
  approval?: ApprovalRequest;
}

/** A view read whose view changed since it was pinned. */
export interface ParkedView extends ParkedBase {
  readonly kind: "view";
  /** The view's `ui://` URI. */
  readonly uri: string;
  /** `view_changed`, with the digests (`digest` is the one shown). */
  approval: ApprovalRequest & { readonly digest: string };
}

/** Anything a run's views wait on. */
export type Parked = ParkedCall | ParkedView;

/** What parking and deciding need of the host. */
export interface ParkDeps {
  readonly agent: Agent;
  readonly serverNamed: (name: unknown) => AppServer;
  readonly signal: AbortSignal;
  readonly maxParked: number;
  readonly pins?: PinStore;
}

/** The record of a parked request, for the run's log and its `pending` list. */
export function pendingRecord(parked: Parked): AppRecord {
  if (parked.kind === "view") {
    return {
      type: "view_pending",
      from: "app",
      id: parked.id,
      server: parked.server,
      uri: parked.uri,
      approval: parked.approval,
    };
  }
  const { id, server, tool, input, approval } = parked;
  return {
    type: "app_pending",
    from: "app",
    id,
    server,
    tool,
    input,
    ...(approval === undefined ? {} : { approval }),
  };
}

/**
 * Parks `what` on `run` under a new id, logs it, and waits for the page's
 * decision (or the host's close).
 */
export function park(
  run: HostRun,
  what: Omit<ParkedCall, "id" | "settle"> | Omit<ParkedView, "id" | "settle">,
  deps: ParkDeps,
): Promise<Answer> {
  if (run.parked.size >= deps.maxParked) {
    throw new BodyError(
      429,
      `appHost: ${deps.maxParked} requests of this run's views wait for approval (maxParkedCalls); decide on them first`,
    );
  }
  const id = `app_${what.kind}_${++run.viewCalls}`;
  const answered = new Promise<Answer>((settle) => {
    const parked = { ...what, id, settle } as Parked;
    run.parked.set(id, parked);
    run.log.push(pendingRecord(parked));
  });
  return untilAborted(answered, deps.signal);
}

/**
 * The page's approve/deny decisions on what its views wait on: an approved
 * call runs (approved, with what was shown) and answers its view; an
 * approved view is pinned if it is still the one shown, then read; a denied
 * one answers `DENIED: <reason>` without running or showing.
 */
export async function decide(
  run: HostRun,
  decisions: unknown,
  deps: ParkDeps,
): Promise<Record<string, unknown>[]> {
  if (!Array.isArray(decisions)) {
    throw new BodyError(400, "appHost: decisions must be an array");
  }
  for (const d of decisions as Decision[]) {
    if (d?.type !== "approve" && d?.type !== "deny") {
      throw new BodyError(
        400,
        `appHost: a view's parked call takes approve or deny, got ${
          JSON.stringify(d?.type ?? null)
        }`,
      );
    }
    if (!run.parked.has(d.id)) {
      throw new AppGateError(
        "unknown_call",
        `run ${run.id} has no view call ${
          JSON.stringify(d.id)
        } waiting for approval`,
      );
    }
  }
  const decided: Record<string, unknown>[] = [];
  for (const d of decisions as (ApproveDecision | DenyDecision)[]) {
    const parked = run.parked.get(d.id);
    if (parked === undefined) continue; // Decided twice in one list: the first counts.
    const done = parked.kind === "call"
      ? await decideCall(run, parked, d, deps)
      : await decideView(run, parked, d, deps);
    if (done === true) {
      run.log.push(pendingRecord(parked));
      decided.push({ id: d.id, pending: pendingRecord(parked) });
    } else {
      decided.push({ id: d.id, ...done });
    }
  }
  return decided;
}

// Decides a parked call: what the decision answers (the result), or true
// when it parks again (asked anew).
async function decideCall(
  run: HostRun,
  parked: ParkedCall,
  d: ApproveDecision | DenyDecision,
  deps: ParkDeps,
): Promise<true | Record<string, unknown>> {
  const record = {
    type: "app_call" as const,
    from: "app" as const,
    id: parked.id,
    server: parked.server,
    tool: parked.tool,
    input: parked.input,
  };
  if (d.type === "deny") {
    run.parked.delete(d.id);
    const result = {
      content: [{
        type: "text",
        text: deniedText(typeof d.reason === "string" ? d.reason : ""),
      }],
      isError: true,
    };
    run.log.push({ ...record, result, isError: true, decision: "deny" });
    parked.settle({ status: 200, body: result });
    return { result };
  }
  const call = await callFromView(deps.agent, deps.serverNamed(parked.server), {
    name: parked.tool,
    args: parked.input,
    signal: deps.signal,
    approved: {
      runId: run.id,
      callId: parked.id,
      ...(d.approval === undefined ? {} : { approval: d.approval }),
    },
  });
  if (call.parked !== undefined) {
    // Asked again (a definition changed since it was shown): it stays
    // parked with the new request.
    if (call.parked.approval === undefined) delete parked.approval;
    else parked.approval = call.parked.approval;
    return true;
  }
  run.parked.delete(d.id);
  run.log.push({
    ...record,
    result: call.result,
    isError: call.isError,
    decision: "approve",
  });
  parked.settle({ status: 200, body: call.result ?? {} });
  return { result: call.result };
}

// Decides a parked view read: what the decision answers, or true when it
// parks again (the view changed once more since it was shown).
async function decideView(
  run: HostRun,
  parked: ParkedView,
  d: ApproveDecision | DenyDecision,
  deps: ParkDeps,
): Promise<true | Record<string, unknown>> {
  const record = {
    type: "view_decided" as const,
    from: "app" as const,
    id: parked.id,
    server: parked.server,
    uri: parked.uri,
  };
  if (d.type === "deny") {
    run.parked.delete(d.id);
    run.log.push({ ...record, decision: "deny" });
    const refusal = new AppGateError(
      "view_changed",
      `the changed view ${parked.uri} of server "${parked.server}" was not approved: ${
        deniedText(typeof d.reason === "string" ? d.reason : "")
      }`,
    );
    parked.settle({
      status: refusal.status,
      body: { error: { gate: refusal.gate, message: refusal.message } },
    });
    return { decision: "deny" };
  }
  const view = await readView(
    deps.serverNamed(parked.server),
    parked.uri,
    deps.signal,
  );
  const pins = deps.pins!;
  const changed = await changedView(pins, parked.server, view);
  if (changed !== undefined && changed.digest !== parked.approval.digest) {
    parked.approval = changed;
    return true;
  }
  if (changed !== undefined) await approveViewPin(pins, parked.server, view);
  run.parked.delete(d.id);
  run.log.push({ ...record, decision: "approve" });
  parked.settle({
    status: 200,
    body: { ...view, csp: viewCsp(view.meta.csp) },
  });
  return { decision: "approve" };
}

// Waits for `promise`, or rejects with the signal's reason once it aborts.
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then((value) => {
      signal.removeEventListener("abort", onAbort);
      resolve(value);
    });
  });
}
