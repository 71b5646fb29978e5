/**
 * Deadlines ordered by when they fall due: a binary min-heap of
 * `(due, seq)` keys, so that deadlines found overdue together (a loop that
 * was blocked past several of them) come out earliest first — as separate
 * timers would fire — and ties in the order they were set.
 *
 * @module
 */

/** One deadline in the heap; `key` tells a current entry from a stale one. */
export interface Deadline<K> {
  readonly due: number;
  readonly seq: number;
  readonly key: K;
}

/** A min-heap of deadlines by `due`, then by the order they were pushed. */
export class DeadlineHeap<K> {
  #items: Deadline<K>[] = [];
  #seq = 0;

  /** How many entries the heap holds (stale ones included). */
  get size(): number {
    return this.#items.length;
  }

  /** The earliest entry, or `undefined` when empty. */
  peek(): Deadline<K> | undefined {
    return this.#items[0];
  }

  /** Adds a deadline for `key` at `due`; returns the entry. */
  push(key: K, due: number): Deadline<K> {
    const entry = { due, seq: this.#seq++, key };
    const items = this.#items;
    items.push(entry);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(items[i], items[parent])) break;
      [items[i], items[parent]] = [items[parent], items[i]];
      i = parent;
    }
    return entry;
  }

  /** Removes and returns the earliest entry. */
  pop(): Deadline<K> | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) {
      return top;
    }
    items[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let least = i;
      if (l < items.length && before(items[l], items[least])) least = l;
      if (r < items.length && before(items[r], items[least])) least = r;
      if (least === i) break;
      [items[i], items[least]] = [items[least], items[i]];
      i = least;
    }
    return top;
  }

  /** Keeps only the entries `keep` accepts (drops stale ones in bulk). */
  retain(keep: (entry: Deadline<K>) => boolean): void {
    const kept = this.#items.filter(keep);
    this.#items = [];
    for (const entry of kept.sort((a, b) => before(a, b) ? -1 : 1)) {
      this.#items.push(entry); // sorted is a valid heap
    }
  }

  /** Empties the heap. */
  clear(): void {
    this.#items = [];
  }
}

function before<K>(a: Deadline<K>, b: Deadline<K>): boolean {
  return a.due < b.due || (a.due === b.due && a.seq < b.seq);
}
