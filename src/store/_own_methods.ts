/**
 * A store's methods as its own bound properties. The adapters are classes
 * with private fields, whose methods read `this`; a user composing a store
 * the way plain objects allow — spreading it (`{ ...store, get }`) or
 * delegating to it (`Object.create(store)`) — would otherwise call them on
 * an object without those fields ("Receiver must be an instance of class").
 * Stores are made once per program, so binding each method once costs
 * nothing on any request.
 *
 * @module
 */

/**
 * Sets every method of `instance`'s class (string and symbol names, the
 * constructor aside) on `instance` itself, bound to it, as an enumerable
 * property; returns `instance`.
 */
export function ownMethods<T extends object>(instance: T): T {
  const proto = Object.getPrototypeOf(instance) as object;
  for (const name of Reflect.ownKeys(proto)) {
    if (name === "constructor") continue;
    const descriptor = Object.getOwnPropertyDescriptor(proto, name);
    if (typeof descriptor?.value !== "function") continue;
    Object.defineProperty(instance, name, {
      value: (descriptor.value as (...args: unknown[]) => unknown).bind(
        instance,
      ),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return instance;
}
