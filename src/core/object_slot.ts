/**
 * A value kept on an object under a private symbol, in place of a
 * `WeakMap` keyed by it: for objects made per request (a server made per
 * HTTP request), whose `WeakMap` entries cost the garbage collector far
 * more than the object itself. The property is not enumerable (spreads,
 * `Object.keys` and `JSON.stringify` do not see it); an object that cannot
 * take a property (frozen, sealed) keeps its value in a `WeakMap`.
 *
 * @module
 */

/**
 * One named value per object.
 *
 * @example A slot set and read
 * ```ts
 * import { objectSlot } from "./object_slot.ts";
 * import assert from "node:assert/strict";
 *
 * const owner = objectSlot<string>("owner");
 * const server = {};
 * owner.set(server, "billing");
 * assert.equal(owner.get(server), "billing");
 * assert.equal(owner.get({}), undefined);
 * assert.deepEqual(Object.keys(server), []);
 * ```
 */
export interface ObjectSlot<T> {
  /** The value set on `object`, or `undefined`. */
  get(object: object): T | undefined;
  /** Sets (or replaces) the value on `object`. */
  set(object: object, value: T): void;
}

/**
 * A slot named `name` (the symbol's description, for debugging).
 *
 * @example
 * ```ts
 * import { objectSlot } from "./object_slot.ts";
 * import assert from "node:assert/strict";
 *
 * const slot = objectSlot<number>("count");
 * const frozen = Object.freeze({});
 * slot.set(frozen, 1);
 * assert.equal(slot.get(frozen), 1);
 * ```
 */
export function objectSlot<T>(name: string): ObjectSlot<T> {
  const key = Symbol(name);
  let fallback: WeakMap<object, T> | undefined;
  return {
    get(object: object): T | undefined {
      if (Object.hasOwn(object, key)) {
        return (object as Record<symbol, T>)[key];
      }
      return fallback?.get(object);
    },
    set(object: object, value: T): void {
      if (Object.hasOwn(object, key)) {
        (object as Record<symbol, T>)[key] = value;
      } else if (Object.isExtensible(object)) {
        Object.defineProperty(object, key, {
          value,
          writable: true,
          enumerable: false,
          configurable: true,
        });
      } else {
        (fallback ??= new WeakMap()).set(object, value);
      }
    },
  };
}
