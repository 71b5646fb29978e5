import assert from "node:assert/strict";
import { objectSlot } from "../src/core/object_slot.ts";

Deno.test("objectSlot: a value per object, unseen by keys, spreads and JSON", () => {
  const slot = objectSlot<string>("s");
  const other = objectSlot<string>("s");
  const a = { x: 1 };
  const b = { x: 1 };
  slot.set(a, "one");
  assert.equal(slot.get(a), "one");
  assert.equal(slot.get(b), undefined);
  // Another slot of the same name is another slot.
  assert.equal(other.get(a), undefined);
  slot.set(a, "two");
  assert.equal(slot.get(a), "two");
  assert.deepEqual(Object.keys(a), ["x"]);
  assert.deepEqual({ ...a }, { x: 1 });
  assert.equal(JSON.stringify(a), '{"x":1}');
  assert.equal(slot.get({ ...a }), undefined);
});

Deno.test("objectSlot: a frozen or sealed object keeps its value too", () => {
  const slot = objectSlot<number>("n");
  const frozen = Object.freeze({});
  const sealed = Object.seal({});
  slot.set(frozen, 1);
  slot.set(sealed, 2);
  assert.equal(slot.get(frozen), 1);
  assert.equal(slot.get(sealed), 2);
  slot.set(frozen, 3);
  assert.equal(slot.get(frozen), 3);
  assert.equal(slot.get({}), undefined);
});

Deno.test("objectSlot: unseen by getOwnPropertySymbols and Reflect.ownKeys; a non-extensible object keeps its value", () => {
  const slot = objectSlot<string>("s");
  const a = {};
  slot.set(a, "one");
  assert.deepEqual(Object.getOwnPropertySymbols(a), []);
  assert.deepEqual(Reflect.ownKeys(a), []);
  const closed = Object.preventExtensions({});
  slot.set(closed, "two");
  assert.equal(slot.get(closed), "two");
  assert.equal(slot.get(a), "one");
});
