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
import type { AuditLog } from "../audit/sink.ts";
import type { Gate } from "../people/access.ts";
import { formDeleted, type VaultForm, type VaultForms } from "./forms.ts";
import type { RelayLink } from "./relay_link.ts";

/**
 * Closing, reopening and deleting the forms of the vault.
 *
 * @example
 * ```ts
 * const lifecycle = new FormLifecycle(vault.forms, vault.link, noAudit);
 * await lifecycle.close(gate, "rsvp", "Registration is over. See you next year!");
 * ```
 */
export class FormLifecycle {
  constructor(
    private forms: VaultForms,
    private link: RelayLink,
    private audit: AuditLog,
    /** Told of each reopened form (the vault brings its manifest to the current address). */
    private onReopen: (formId: string) => Promise<unknown> = () => Promise.resolve(),
  ) {}

  /**
   * Closes a form `gate` lets through with `message` (plain text, at most 500 characters; ""
   * for the default words). Closing a closed form again replaces its message. The relay hears
   * it from the form's account.
   */
  async close(gate: Gate, formId: string, message: string): Promise<VaultForm> {
    const form = await this.#live(gate, formId);
    const text = normalizeClosedMessage(message);
    if (form.publishedVersion !== null) await this.link.close(form.userId, formId, text);
    const closed = await this.forms.setClosure(gate, formId, {
      message: text,
      closedAt: new Date().toISOString(),
    });
    return this.forms.reported(gate, "form_closed", closed);
  }

  /** Reopens a form `gate` lets through (a no-op for an open one). */
  async reopen(gate: Gate, formId: string): Promise<VaultForm> {
    const form = await this.#live(gate, formId);
    if (form.publishedVersion !== null) await this.link.reopen(form.userId, formId);
    const open = await this.forms.setClosure(gate, formId, null);
    await this.onReopen(formId);
    return this.forms.reported(gate, "form_reopened", open);
  }

  /**
   * Deletes a form `gate` lets through: unpublished at the relay, then out of the form list.
   * Its records stay until deleted one by one. Idempotent (a second call unpublishes again).
   */
  async delete(gate: Gate, formId: string): Promise<VaultForm> {
    const form = await this.forms.get(gate, formId);
    await this.link.unpublish(form.userId, formId);
    return this.forms.reported(gate, "form_deleted", await this.forms.markDeleted(gate, formId));
  }

  /**
   * After publishing a closed form: the relay keeps a republished form's closure, but a first
   * publish (or a relay that lost the form) must learn it.
   */
  async republished(form: VaultForm): Promise<void> {
    if (form.closed) await this.link.close(form.userId, form.formId, form.closed.message);
  }

  async #live(gate: Gate, formId: string): Promise<VaultForm> {
    const form = await this.forms.get(gate, formId);
    if (form.deletedAt) throw formDeleted(formId);
    return form;
  }
}
