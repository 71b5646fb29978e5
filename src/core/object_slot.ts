/**
 * A value kept on an object under a private name (a class's private
 * field, added to the object), in place of a `WeakMap` keyed by it: for
 * objects made per request (a server made per HTTP request), whose
 * `WeakMap` entries cost the garbage collector far more than the object
 * itself. No key listing sees it (`Object.keys`, spreads, `JSON.stringify`,
 * `Object.getOwnPropertySymbols`); an object that cannot take a property
 * (frozen, sealed, not extensible) keeps its value in a `WeakMap`.
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
 * A slot; `name` says what it holds (for the reader: a private name has
 * no description to carry it).
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
export function objectSlot<T>(_name: string): ObjectSlot<T> {
  let fallback: WeakMap<object, T> | undefined;
  // Each call evaluates the class anew: a private name of its own.
  class Slot extends Stamped {
    #value: T;

    constructor(object: object, value: T) {
      super(object);
      this.#value = value;
    }

    static get(object: object): T | undefined {
      return #value in object ? (object as Slot).#value : fallback?.get(object);
    }

    static set(object: object, value: T): void {
      if (#value in object) (object as Slot).#value = value;
      else if (Object.isExtensible(object)) new Slot(object, value);
      else (fallback ??= new WeakMap()).set(object, value);
    }
  }
  return { get: Slot.get, set: Slot.set };
}

/**
 * A base class whose constructor hands back the object it is given, so a
 * subclass's private field is added to that object (a private name, seen
 * by no key listing, spread, `JSON.stringify` or
 * `Object.getOwnPropertySymbols`) — an ordinary property add, where
 * `Object.defineProperty` of a symbol takes the runtime's slow path.
 */
class Stamped {
  constructor(object: object) {
    return object as Stamped;
  }
}
