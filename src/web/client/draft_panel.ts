/// <reference lib="dom" />
/**
 * The form page's draft panel, on forms whose signed manifest says `drafts: true`: it tells
 * the sender in plain words what is kept on their device, keeps their unsent answers there
 * (encrypted, draft.ts) as they type, restores them when the page's address holds the key,
 * and forgets them on "Forget this draft" or once the form is sent.
 *
 * @module
 */
import type { FieldDef } from "../../forms/fields.ts";
import { parseFragment, withDraftKey } from "../links.ts";
import { forgetDraft, hasDraft, loadDraft, newDraftKey, saveDraft } from "./draft.ts";
import { readValues } from "./read_values.ts";
import { writeValues } from "./write_values.ts";

/** Quiet time after the last keystroke before the draft is written. */
const SAVE_DELAY_MS = 300;

const INTRO = "This form can keep a draft of your answers on this device as you type, " +
  "encrypted: only this page's address will open it. Sending the form removes it.";
const KEPT = "Draft kept on this device, encrypted. Only this exact address opens it (keep the " +
  "tab, or bookmark it). On a shared device, forget it when you leave: anyone who can open " +
  "this browser's history could open it. Sending the form removes it.";
const LOCKED = "This device keeps a draft of this form that this address cannot open: only the " +
  "address it was saved under holds its key. Open that address to continue it, or forget it; " +
  "typing here starts a new draft in its place.";
const FORGOTTEN = "Draft forgotten: nothing of it is left on this device.";

/**
 * The panel of one form page.
 *
 * @example
 * ```ts
 * const panel = new DraftPanel(form, manifest.formId, manifest.fields);
 * await panel.start();
 * // … once the relay answered the submission:
 * panel.wipe();
 * ```
 */
export class DraftPanel {
  #key: string;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Bumped by a wipe, so a save still in flight undoes itself. */
  #generation = 0;
  readonly #section = document.getElementById("sp-draft")!;
  readonly #text = document.getElementById("sp-draft-text")!;
  readonly #forget = document.getElementById("sp-draft-forget") as HTMLButtonElement;

  constructor(
    private form: HTMLFormElement,
    private formId: string,
    private fields: FieldDef[],
  ) {
    this.#key = parseFragment(location.hash).draft;
  }

  /** Shows the panel, restores a draft the address opens, and keeps answers as they change. */
  async start(): Promise<void> {
    this.#section.hidden = false;
    const values = this.#key ? await loadDraft(this.formId, this.#key) : null;
    if (values) {
      writeValues(this.form, this.fields, values);
      this.#show(`Your draft was restored. ${KEPT}`, true);
    } else {
      // A key that opened nothing is not used again: the first save makes a fresh one.
      this.#key = "";
      if (hasDraft(this.formId)) this.#show(LOCKED, true);
      else this.#show(INTRO, false);
    }
    const changed = () => {
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => this.#save(), SAVE_DELAY_MS);
    };
    this.form.addEventListener("input", changed);
    this.form.addEventListener("change", changed);
    this.#forget.addEventListener("click", () => {
      this.wipe();
      this.form.reset();
      // File pickers hear of their emptied input; not bubbling, so no new draft is written.
      for (const input of this.form.querySelectorAll<HTMLInputElement>("input[type=file]")) {
        input.dispatchEvent(new Event("change"));
      }
      this.#show(FORGOTTEN, false);
    });
  }

  async #save(): Promise<void> {
    const generation = this.#generation;
    if (!this.#key) {
      // The key lives in the address only (replacing the entry: no new history step).
      this.#key = newDraftKey();
      history.replaceState(history.state, "", withDraftKey(location.href, this.#key));
    }
    const saved = await saveDraft(this.formId, this.#key, readValues(this.form, this.fields));
    if (generation !== this.#generation) {
      forgetDraft(this.formId);
      return;
    }
    if (saved) this.#show(KEPT, true);
  }

  /** Forgets the draft: storage and the key in the address (once sent, or when asked). */
  wipe(): void {
    clearTimeout(this.#timer);
    this.#generation++;
    forgetDraft(this.formId);
    this.#key = "";
    history.replaceState(history.state, "", withDraftKey(location.href, null));
  }

  /** Hides the panel (the receipt replaced the form). */
  close(): void {
    this.#section.hidden = true;
  }

  #show(text: string, forgettable: boolean): void {
    this.#text.textContent = text;
    this.#forget.hidden = !forgettable;
  }
}
