/**
 * Where mail to people goes (an invitation's link): a {@link Mailer}. Until mail is configured
 * the instance has {@link noMail}, which sends nothing; the console and the API show the link
 * once instead, for the inviter to pass on.
 *
 * @module
 */

/** One plain-text message to one address. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends mail. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/**
 * The mailer that sends nothing (no mail configured).
 *
 * @example
 * ```ts
 * await noMail.send({ to: "ada@example.org", subject: "Invitation", text: link });
 * ```
 */
export const noMail: Mailer = { send: () => Promise.resolve() };
