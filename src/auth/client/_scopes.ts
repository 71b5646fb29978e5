/**
 * Judging a connection's scopes, as pure functions: the step-up a 403
 * `insufficient_scope` asks for (or the refusal that stands), and whether
 * the authorization server refused a scope set already.
 *
 * @module
 */

/** The words of a space-separated scope; none for `undefined`. */
export function words(scope: string | undefined): string[] {
  return scope?.split(" ").filter((s) => s !== "") ?? [];
}

/** The scopes held, with every scope `more` names added (each once, held first). */
export function union(
  held: readonly string[],
  ...more: (string | undefined)[]
): string[] {
  const all = new Set(held);
  for (const list of more) for (const s of words(list)) all.add(s);
  return [...all];
}

/** The verdict on a 403 `insufficient_scope`. */
export type StepUpVerdict =
  /** Ask again for `scope`: the union of the scopes held, wanted and named. */
  | { readonly kind: "step-up"; readonly scope: string }
  /** Nothing new to ask for, or asked enough: the refusal stands. */
  | { readonly kind: "stands" };

/**
 * Whether a 403 naming `named` is answered by a step-up, given the scopes
 * `held`, the scope the connection `wanted` so far, and the step-ups
 * `taken` of `limit`.
 */
export function stepUpVerdict(
  held: readonly string[],
  wanted: string | undefined,
  named: string | undefined,
  steps: { readonly taken: number; readonly limit: number },
): StepUpVerdict {
  const scopes = union(held, wanted, named);
  if (steps.taken >= steps.limit || scopes.every((s) => held.includes(s))) {
    return { kind: "stands" };
  }
  return { kind: "step-up", scope: scopes.join(" ") };
}

/** A scope set the authorization server refused (`invalid_scope`), and why. */
export interface RefusedScopes {
  readonly scopes: readonly string[];
  readonly cause: unknown;
}

/**
 * The refusal of a set the authorization server refused already that
 * `wanted` asks for (every scope of it, or more): asking again would be
 * refused again. `undefined` when none.
 */
export function refusedBefore(
  refused: readonly RefusedScopes[],
  wanted: string | undefined,
): RefusedScopes | undefined {
  const asked = words(wanted);
  return refused.find((r) =>
    r.scopes.length > 0 && r.scopes.every((s) => asked.includes(s))
  );
}
