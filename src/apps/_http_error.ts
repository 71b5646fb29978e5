/**
 * A request `appHost` answers with a plain-text status (a bad body, a limit
 * reached), as opposed to a gate's refusal.
 *
 * @module
 */

/** Answered as `status` with the message as plain text. */
export class BodyError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}
