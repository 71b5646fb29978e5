/**
 * `completion/complete` on a server: one handler, installed when the first
 * prompt or resource template is exported, asking the prompts registry
 * (`ref/prompt`) or the resources registry (`ref/resource`, a template's
 * URI template) for the completer of the argument named.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import { CompleteRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { bridgeState, bridgeStateOf } from "./_state.ts";
import { errorText } from "../core/errors.ts";
import type { Completer } from "./resource_def.ts";
import { INTERNAL_ERROR, INVALID_PARAMS, ProtocolError } from "./_pages.ts";
import {
  checkSurface,
  installSurface,
  type SurfaceServer,
} from "./_surface.ts";

/** The most values one answer carries (the spec's limit). */
export const MAX_COMPLETIONS = 100;

/** The completers of the thing a reference names, or `undefined` when it names none. */
export type CompletionLookup = (
  key: string,
) => { readonly complete?: Readonly<Record<string, Completer>> } | undefined;

/** Where one server's `completion/complete` looks values up (its record's `completions`). */
export interface CompletionSources {
  prompt?: CompletionLookup;
  resource?: CompletionLookup;
}

const SURFACE = {
  capability: "completions",
  declared: {},
  methods: ["completion/complete"],
} as const;

/**
 * Throws what `enableCompletions` would throw on `server`, changing nothing
 * (none once its handler is the bridge's).
 */
export function checkCompletions(server: SurfaceServer, caller: string): void {
  if (bridgeStateOf(server)?.completions === undefined) {
    checkSurface(server, { ...SURFACE, caller });
  }
}

/**
 * Lets `completion/complete` reach `lookup` for references of `kind`;
 * declares the `completions` capability and installs the handler on the
 * first call for `server`. Throws as `installSurface` does.
 */
export function enableCompletions(
  server: SurfaceServer,
  kind: "prompt" | "resource",
  lookup: CompletionLookup,
  caller: string,
): void {
  const state = bridgeState(server);
  let known = state.completions;
  if (known === undefined) {
    const fresh: CompletionSources = {};
    installSurface(server, {
      ...SURFACE,
      caller,
      install: () =>
        server.setRequestHandler(
          CompleteRequestSchema,
          ((request: { params: Record<string, unknown> }) =>
            complete(fresh, request.params)) as never,
        ),
    });
    state.completions = known = fresh;
  }
  known[kind] = lookup;
}

async function complete(
  known: CompletionSources,
  params: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const ref = params.ref as { type?: string; name?: string; uri?: string };
  const argument = params.argument as { name: string; value: string };
  const context = params.context as
    | { arguments?: Record<string, string> }
    | undefined;
  const prompt = ref.type === "ref/prompt";
  const key = prompt ? ref.name : ref.uri;
  const what = prompt
    ? `prompt ${JSON.stringify(key)}`
    : `resource template ${JSON.stringify(key)}`;
  const found = typeof key === "string"
    ? (prompt ? known.prompt : known.resource)?.(key)
    : undefined;
  if (found === undefined) {
    throw new ProtocolError(INVALID_PARAMS, `unknown ${what}`);
  }
  const completer = found.complete?.[argument.name];
  if (completer === undefined) return { completion: { values: [] } };
  let values: readonly string[];
  try {
    values = await completer(argument.value, {
      arguments: { ...context?.arguments },
    });
  } catch (error) {
    throw new ProtocolError(
      INTERNAL_ERROR,
      `completion of ${what}, argument ${
        JSON.stringify(argument.name)
      } failed: ${errorText(error)}`,
    );
  }
  if (!Array.isArray(values) || !values.every((v) => typeof v === "string")) {
    throw new ProtocolError(
      INTERNAL_ERROR,
      `completion of ${what}, argument ${
        JSON.stringify(argument.name)
      } failed: the completer must return an array of strings`,
    );
  }
  return {
    completion: {
      values: values.slice(0, MAX_COMPLETIONS),
      total: values.length,
      hasMore: values.length > MAX_COMPLETIONS,
    },
  };
}
