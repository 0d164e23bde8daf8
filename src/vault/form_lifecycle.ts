/**
 * A form's life after publishing: the owner closes it (senders read the owner's message, the
 * relay refuses submissions and amendments with 410 `form_closed`), reopens it, or deletes it
 * (unpublished at the relay, out of the form list; its records stay until the owner deletes
 * them). The relay learns each change first, over the vault's link to it (in-process or the
 * owner API), so a refusal by the relay leaves the vault unchanged.
 *
 * @module
 */
import { normalizeClosedMessage } from "../forms/closure.ts";
import { formDeleted, type VaultForm, type VaultForms } from "./forms.ts";
import type { RelayLink } from "./relay_link.ts";

/**
 * Closing, reopening and deleting the forms of the vault.
 *
 * @example
 * ```ts
 * const lifecycle = new FormLifecycle(vault.forms, vault.link);
 * await lifecycle.close(userId, "rsvp", "Registration is over. See you next year!");
 * ```
 */
export class FormLifecycle {
  constructor(
    private forms: VaultForms,
    private link: RelayLink,
    /** Told of each reopened form (the vault brings its manifest to the current address). */
    private onReopen: (formId: string) => Promise<unknown> = () => Promise.resolve(),
  ) {}

  /**
   * Closes a form of `userId` with `message` (plain text, at most 500 characters; "" for the
   * default words). Closing a closed form again replaces its message.
   */
  async close(userId: string, formId: string, message: string): Promise<VaultForm> {
    const form = await this.#live(userId, formId);
    const text = normalizeClosedMessage(message);
    if (form.publishedVersion !== null) await this.link.close(userId, formId, text);
    return await this.forms.setClosure(userId, formId, {
      message: text,
      closedAt: new Date().toISOString(),
    });
  }

  /** Reopens a form of `userId` (a no-op for an open one). */
  async reopen(userId: string, formId: string): Promise<VaultForm> {
    const form = await this.#live(userId, formId);
    if (form.publishedVersion !== null) await this.link.reopen(userId, formId);
    const open = await this.forms.setClosure(userId, formId, null);
    await this.onReopen(formId);
    return open;
  }

  /**
   * Deletes a form of `userId`: unpublished at the relay, then out of the form list. Its
   * records stay until deleted one by one. Idempotent (a second call unpublishes again).
   */
  async delete(userId: string, formId: string): Promise<VaultForm> {
    await this.forms.get(userId, formId);
    await this.link.unpublish(userId, formId);
    return await this.forms.markDeleted(userId, formId);
  }

  /**
   * After publishing a closed form: the relay keeps a republished form's closure, but a first
   * publish (or a relay that lost the form) must learn it.
   */
  async republished(userId: string, form: VaultForm): Promise<void> {
    if (form.closed) await this.link.close(userId, form.formId, form.closed.message);
  }

  async #live(userId: string, formId: string): Promise<VaultForm> {
    const form = await this.forms.get(userId, formId);
    if (form.deletedAt) throw formDeleted(formId);
    return form;
  }
}
