/**
 * A stdio server's stderr, read for the permission denials of Deno's or
 * Node's permission model: a server that died of a permission it was not
 * granted says so there, and its failure names the permission.
 *
 * @module
 */

import { type PermissionDenial, permissionDenial } from "./_permissions.ts";

/** The denials one server's stderr reported, counted as they come. */
export class DenialTap {
  #recent: string[] = [];
  #pending?: PermissionDenial;
  #last?: PermissionDenial;
  #count = 0;

  /** How many denials were counted: a failure names one only when this moved. */
  get count(): number {
    return this.#count;
  }

  /**
   * One line of stderr. Node writes a denial over several lines: the last
   * few are read together, and a denial is counted once, when its target
   * is in (or after a line more, without one).
   */
  tap(line: string): void {
    this.#recent.push(line);
    if (this.#recent.length > 8) this.#recent.shift();
    const denial = permissionDenial(this.#recent.join("\n"));
    if (denial === undefined) return;
    if (denial.target === "" && this.#pending === undefined) {
      this.#pending = denial;
      return;
    }
    this.#pending = undefined;
    this.#counted(denial);
  }

  /** The last denial; one still waiting for its target line counts now. */
  last(): PermissionDenial | undefined {
    const pending = this.#pending;
    if (pending !== undefined) {
      this.#pending = undefined;
      this.#counted(pending);
    }
    return this.#last;
  }

  #counted(denial: PermissionDenial): void {
    this.#last = denial;
    this.#count++;
    this.#recent = [];
  }
}
