/**
 * Input an MCP server asks an imported tool's caller for, on the client
 * side: the host's handler, the defaults a form declares, and the 2025-era
 * `elicitation/create` requests routed to the call they belong to.
 *
 * A 2025 server sends `elicitation/create` as a request of its own while a
 * `tools/call` is in flight, with nothing on the wire tying the two; the
 * request is given to the one call of this client waiting for its result
 * (tools are sequential unless read-only, so that is the common case; a
 * parked call does not count). With several such calls, or none, it cannot
 * be attributed and is answered `cancel`. The call's importer either answers at once (its `onInput`) or
 * parks the call: the server's request then waits, on the live connection,
 * for `answer` to resume the call in this process (a ticket in the
 * pending state); a ticket that is gone (another process, a closed
 * connection) fails the resumed call with {@linkcode inputGoneText}.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type {
  InputRequest,
  InputResponse,
  PendingInput,
} from "../core/input.ts";
import type { InputHandler } from "./input.ts";

/**
 * The failure of a resumed call whose server's 2025-era request no longer
 * waits; the model reads it as `mcp: <message>` (an `McpTransportError`).
 */
export function inputGone(server: string): Error {
  return new Error(
    `the input request of server ${
      JSON.stringify(server)
    } no longer waits (its connection closed, or the run resumed in another process); call the tool again`,
  );
}

/**
 * `response` with the defaults of `request`'s form filled in for fields an
 * accepted answer leaves out (SEP-1034): a host that shows a form with its
 * defaults and sends back only what the person changed still answers whole.
 */
export function withDefaults(
  request: InputRequest,
  response: InputResponse,
): InputResponse {
  if (
    request.method !== "elicitation/create" || response?.action !== "accept"
  ) {
    return response;
  }
  const properties = request.params.requestedSchema?.properties;
  if (properties === null || typeof properties !== "object") return response;
  const content: Record<string, unknown> = { ...(response.content ?? {}) };
  let filled = false;
  for (const [key, field] of Object.entries(properties)) {
    if (key in content || field === null || typeof field !== "object") continue;
    if (!("default" in field)) continue;
    content[key] = (field as { default: unknown }).default;
    filled = true;
  }
  return filled ? { ...response, content } : response;
}

/** The state an imported tool's pending input carries (JSON in `PendingInput.state`). */
export type ImportState =
  | { readonly era: "modern"; readonly requestState?: string }
  /** A 2026-07-28 task waiting on its questions: resumed anywhere with `tasks/update`. */
  | { readonly era: "task"; readonly task: string }
  | {
    readonly era: "legacy";
    readonly ticket: string;
    /** The key the parked question goes by (`ask_<n>`). */
    readonly key?: string;
    /** The server's task the call runs as (a task's question): resumed anywhere by polling it. */
    readonly task?: string;
  };

/** Reads the state of a pending input; undefined when it is not an import's. */
export function readImportState(state: string): ImportState | undefined {
  let value: unknown;
  try {
    value = JSON.parse(state);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== "object") return undefined;
  const v = value as Record<string, unknown>;
  if (v.era === "legacy" && typeof v.ticket === "string") {
    return {
      era: "legacy",
      ticket: v.ticket,
      ...(typeof v.key === "string" ? { key: v.key } : {}),
      ...(typeof v.task === "string" ? { task: v.task } : {}),
    };
  }
  if (v.era === "task" && typeof v.task === "string") {
    return { era: "task", task: v.task };
  }
  if (v.era === "modern") {
    return typeof v.requestState === "string"
      ? { era: "modern", requestState: v.requestState }
      : { era: "modern" };
  }
  return undefined;
}

/** One call of an imported tool while its `tools/call` is outstanding. */
export interface Flight {
  /** The tool, as the server names it. */
  readonly tool: string;
  /** The importer's handler; parking when absent. */
  readonly onInput?: InputHandler;
  /** Cancels the outstanding `tools/call`. */
  readonly cancel: (reason: unknown) => void;
  /** How many of the server's questions this call parked on so far: the next one's key is `ask_<asked>`. */
  asked: number;
  /** The server's task id when the call runs as a task (kept in a parked call's state). */
  readonly task?: string;
  /** The invocation running the call now (a resumed call gets a new one). */
  current?: {
    readonly signal: AbortSignal;
    /** Parks the invocation on `request`, waiting under `ticket`. */
    park(ticket: string, request: InputRequest): void;
  };
}

interface Ticket {
  readonly flight: Flight;
  readonly respond: (response: InputResponse) => void;
  readonly result: Promise<unknown>;
}

/** The 2025-era input routing of one client. */
export class LegacyInput {
  server: string;
  readonly #flights = new Set<Flight>();
  readonly #tickets = new Map<string, Ticket>();
  readonly #results = new Map<Flight, Promise<unknown>>();

  constructor(server: string) {
    this.server = server;
  }

  /** A call starts: `result` is its `tools/call`, outstanding until it settles. */
  begin(flight: Flight, result: Promise<unknown>): void {
    this.#flights.add(flight);
    this.#results.set(flight, result);
    const end = (): void => {
      this.#flights.delete(flight);
      this.#results.delete(flight);
      // The call ended (the server gave up waiting, the connection closed):
      // its waiting requests are answered `cancel` and their tickets go.
      for (const [id, ticket] of this.#tickets) {
        if (ticket.flight !== flight) continue;
        this.#tickets.delete(id);
        ticket.respond({ action: "cancel" });
      }
    };
    result.then(end, end);
  }

  /** Whether the ticket `id` still waits here. */
  has(id: string): boolean {
    return this.#tickets.has(id);
  }

  /** Takes the ticket `id` (once): its flight and outstanding result; undefined when gone. */
  take(
    id: string,
  ):
    | { flight: Flight; respond: Ticket["respond"]; result: Promise<unknown> }
    | undefined {
    const ticket = this.#tickets.get(id);
    if (ticket === undefined) return undefined;
    this.#tickets.delete(id);
    return ticket;
  }

  /** Answers one `elicitation/create` from the server. */
  async elicit(params: unknown): Promise<InputResponse> {
    const request = {
      method: "elicitation/create",
      params: params as InputRequest["params"],
    } as InputRequest;
    // The calls waiting for their result now; a parked call waits for
    // `answer`, not for its server, and asks nothing more until resumed.
    const waiting = [...this.#flights].filter((f) => f.current !== undefined);
    const flight = waiting.length === 1 ? waiting[0] : undefined;
    const current = flight?.current;
    if (flight === undefined || current === undefined) {
      return { action: "cancel" };
    }
    if (flight.onInput !== undefined) {
      const response = await flight.onInput(request, {
        server: this.server,
        tool: flight.tool,
        signal: current.signal,
      });
      return withDefaults(request, response);
    }
    const id = crypto.randomUUID();
    return await new Promise<InputResponse>((respond) => {
      this.#tickets.set(id, {
        flight,
        respond: (response) => respond(withDefaults(request, response)),
        result: this.#results.get(flight) ?? Promise.resolve(undefined),
      });
      current.park(id, request);
    });
  }
}

/** A client that can take the server's requests (the SDK's `Client`). */
interface RequestTaking {
  setRequestHandler(
    schema: unknown,
    handler: (request: { params: unknown }) => Promise<InputResponse>,
  ): void;
  assertCanSetRequestHandler?(method: string): void;
  getServerVersion?(): { name?: unknown } | undefined;
}

const routers = new WeakMap<object, LegacyInput | null>();

/**
 * The 2025-era input routing of `client`, installed as its
 * `elicitation/create` handler on first use; null when the client takes no
 * such requests (it declared no elicitation capability, or already has a
 * handler of its own, which stays).
 */
export function legacyInput(client: object): LegacyInput | null {
  const known = routers.get(client);
  if (known !== undefined) return known;
  const taking = client as Partial<RequestTaking>;
  let router: LegacyInput | null = null;
  if (typeof taking.setRequestHandler === "function") {
    const name = taking.getServerVersion?.()?.name;
    const candidate = new LegacyInput(typeof name === "string" ? name : "");
    try {
      taking.assertCanSetRequestHandler?.("elicitation/create");
      taking.setRequestHandler(
        ElicitRequestSchema,
        (request) => candidate.elicit(request.params),
      );
      router = candidate;
    } catch {
      router = null;
    }
  }
  routers.set(client, router);
  return router;
}

/**
 * Routes the `elicitation/create` requests `real` (a connection) receives
 * to the calls of the tools imported through `routed` (the client
 * `importTools` was given, which sends its requests over `real`).
 */
export function forwardElicitation(real: object, routed: object): void {
  let router = routers.get(routed);
  if (router === undefined || router === null) {
    router = new LegacyInput(serverNameOf(real));
    routers.set(routed, router);
  } else if (router.server === "") {
    router.server = serverNameOf(real);
  }
  const target = router;
  const taking = real as Partial<RequestTaking>;
  try {
    taking.setRequestHandler?.(
      ElicitRequestSchema,
      (request) => target.elicit(request.params),
    );
  } catch {
    // The connection declared no elicitation capability: nothing to route.
  }
}

/** The server name `client` knows (`""` when none). */
export function serverNameOf(client: object): string {
  const taking = client as Partial<RequestTaking>;
  try {
    const name = taking.getServerVersion?.()?.name;
    return typeof name === "string" ? name : "";
  } catch {
    return "";
  }
}

/** The pending input of an imported tool. */
export function importInput(
  server: string,
  tool: string,
  requests: Readonly<Record<string, InputRequest>>,
  state: ImportState,
): PendingInput {
  return { server, tool, requests, state: JSON.stringify(state) };
}
