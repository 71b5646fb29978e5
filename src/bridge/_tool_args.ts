/**
 * The check that what a caller passed where tools go is a tool: an array
 * (tools not spread), a string or a plain object would otherwise be
 * registered as a nameless tool, silently.
 *
 * @module
 */

/**
 * Throws a `TypeError` naming the first of `values` that is not a tool
 * (by its argument position, `first` being the position of `values[0]`),
 * or returns. `null` and `undefined` are left to the caller's own message.
 */
export function refuseNonTools(
  fn: string,
  values: readonly unknown[],
  first: number,
): void {
  values.forEach((value, i) => {
    if (value === null || value === undefined) return;
    const what = notATool(value);
    if (what === undefined) return;
    const spread = Array.isArray(value)
      ? `spread it: ${fn}(server, ...tools)`
      : "pass tools built with tool() or rawTool()";
    throw new TypeError(
      `${fn}: argument ${first + i} is ${what}, not a tool; ${spread}`,
    );
  });
}

/** What `value` is when it is not a tool; undefined for a tool. */
function notATool(value: unknown): string | undefined {
  if (Array.isArray(value)) return "an array";
  if (typeof value === "function") return "a function";
  if (typeof value !== "object" || value === null) {
    return `${/^[aeiou]/.test(typeof value) ? "an" : "a"} ${typeof value}`;
  }
  const tool = value as { name?: unknown; invoke?: unknown };
  if (typeof tool.name !== "string" || tool.name === "") {
    return "an object without a name";
  }
  if (typeof tool.invoke !== "function") {
    return `an object without an invoke function (named ${
      JSON.stringify(tool.name)
    })`;
  }
  return undefined;
}
