/**
 * A closed form's message: what its owner tells senders while the form takes no answers.
 * Plain text (pages escape it and keep its line breaks), at most {@link CLOSED_MESSAGE_MAX}
 * characters. Pure zod, shared by the relay, the vault, the console and the form page.
 *
 * @module
 */
import { z } from "zod";

/** The most characters an owner's closed-form message may have. */
export const CLOSED_MESSAGE_MAX = 500;

/** What senders read when the owner closed a form without a message. */
export const DEFAULT_CLOSED_MESSAGE = "This form is closed and takes no more answers.";

/** An owner's closed-form message as requests carry it (checked before it is normalised). */
export const ClosedMessageSchema = z.string().max(CLOSED_MESSAGE_MAX, {
  message: `Must be at most ${CLOSED_MESSAGE_MAX} characters`,
});

/** Control and invisible formatting characters other than the line break. */
// deno-lint-ignore no-control-regex
const HIDDEN = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069]/g;

/**
 * `text` as stored: line breaks as `\n`, other control characters and surrounding space gone,
 * at most one blank line in a row.
 *
 * @example
 * ```ts
 * normalizeClosedMessage("  Thanks!\r\nSee you next year.\u0007 "); // "Thanks!\nSee you next year."
 * ```
 */
export function normalizeClosedMessage(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(HIDDEN, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/**
 * What senders read for a closure with `message`: the owner's words, or the default.
 *
 * @example
 * ```ts
 * closedNotice(""); // "This form is closed and takes no more answers."
 * ```
 */
export function closedNotice(message: string): string {
  return message || DEFAULT_CLOSED_MESSAGE;
}
