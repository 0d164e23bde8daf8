/**
 * A form's life after publishing, in the console: its status ("Open", "Closed", "Not
 * published", "Deleted"), the buttons "Close form" (with an optional message to senders),
 * "Reopen form" and "Delete form", and the confirmation before a delete. Every change is a
 * CSRF-protected POST; the vault tells the relay first (src/vault/form_lifecycle.ts).
 *
 * @module
 */
import { NEED } from "../people/access.ts";
import { Hono } from "hono";
import { CLOSED_MESSAGE_MAX, ClosedMessageSchema, closedNotice } from "../forms/closure.ts";
import { Invalid } from "../errors/index.ts";
import type { VaultForm } from "../vault/index.ts";
import { type ConsoleDeps, type ConsoleEnv, formBody } from "./context.ts";
import { ActionButton, Csrf, FormTabs, html, Page } from "./layout.tsx";
import type { Session } from "./sessions.ts";

/** A form's status in one word, as the console shows it. */
export function statusText(form: VaultForm): string {
  if (form.deletedAt) return "Deleted";
  if (form.closed) return "Closed";
  return form.publishedVersion ? "Open" : "Not published";
}

const formPath = (formId: string) => `/console/forms/${encodeURIComponent(formId)}`;

/** The "Delete form" button that leads to the confirmation (a GET: nothing changes yet). */
export function DeleteFormButton({ formId }: { formId: string }) {
  return (
    <form method="get" action={`${formPath(formId)}/delete`} class="inline">
      <button type="submit" class="danger">Delete form</button>
    </form>
  );
}

/**
 * The overview's status section: open forms get "Close form" with a message field, closed
 * ones their message and "Reopen form", every form "Delete form"; a deleted form only says
 * what became of it.
 */
export function FormStatus({ session, form }: { session: Session; form: VaultForm }) {
  const base = formPath(form.formId);
  if (form.deletedAt) {
    return (
      <section aria-labelledby="form-status">
        <h2 id="form-status">Status: Deleted</h2>
        <p>
          {`Deleted ${form.deletedAt}. The form is unpublished: its link and embeds answer “Form ` +
            "not found”. Its records are kept until you delete them: "}
          <a href={`${base}/records`}>Records</a>.
        </p>
      </section>
    );
  }
  return (
    <section aria-labelledby="form-status">
      <h2 id="form-status">{`Status: ${statusText(form)}`}</h2>
      {form.closed
        ? (
          <>
            <p>
              {`Closed ${form.closed.closedAt}. Senders see “This form is closed.” and your ` +
                "message; the relay refuses new submissions and changes to earlier ones."}
            </p>
            <p class="closed-message">{closedNotice(form.closed.message)}</p>
            <ActionButton session={session} action={`${base}/reopen`} label="Reopen form" />
          </>
        )
        : (
          <form method="post" action={`${base}/close`}>
            <Csrf session={session} />
            <label for="closed-message">Message to senders while closed (optional)</label>
            <textarea
              id="closed-message"
              name="message"
              class="message"
              maxlength={CLOSED_MESSAGE_MAX}
              aria-describedby="closed-message-hint"
            >
            </textarea>
            <p id="closed-message-hint" class="muted">
              {`Plain text, at most ${CLOSED_MESSAGE_MAX} characters. Without one, senders read ` +
                `“${closedNotice("")}” You can reopen the form at any time.`}
            </p>
            <button type="submit">Close form</button>
          </form>
        )}
      <DeleteFormButton formId={form.formId} />
    </section>
  );
}

/** Mounts close, reopen and delete (with its confirmation). */
export function lifecycleRoutes(deps: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const { vault } = deps;
  const done = (formId: string, text: string) =>
    `${formPath(formId)}?done=${encodeURIComponent(text)}`;

  app.post("/console/forms/:formId/close", async (c) => {
    const formId = c.req.param("formId");
    const body = await formBody(c);
    const raw = typeof body.message === "string" ? body.message : "";
    const parsed = ClosedMessageSchema.safeParse(raw);
    if (!parsed.success) {
      throw new Invalid(
        "invalid_request",
        `The message has ${raw.length} characters; at most ${CLOSED_MESSAGE_MAX} fit`,
        "message",
      );
    }
    await vault.lifecycle.close(vault.access.gate(c.var.session, NEED.forms), formId, parsed.data);
    return c.redirect(done(formId, "Form closed: senders now see your message."), 303);
  });

  app.post("/console/forms/:formId/reopen", async (c) => {
    const formId = c.req.param("formId");
    await vault.lifecycle.reopen(vault.access.gate(c.var.session, NEED.forms), formId);
    return c.redirect(done(formId, "Form reopened: it takes submissions again."), 303);
  });

  app.get("/console/forms/:formId/delete", async (c) => {
    const session = c.var.session;
    const form = await vault.forms.get(
      vault.access.gate(session, NEED.deleteForm),
      c.req.param("formId"),
    );
    const records = await vault.store.records.count(form.formId);
    return c.html(html(
      <Page title={`Delete form “${form.title}”?`} session={session}>
        <FormTabs formId={form.formId} current="Overview" />
        <p>
          The form is unpublished at once: its link, its embeds and its static pages stop taking
          answers, and senders are told the form is not found. It leaves your list of forms and
          cannot be published again.
        </p>
        <p>
          {records === 0 ? "It has no records. " : (
            <>
              <strong>
                {`Its ${records === 1 ? "record is" : `${records} records are`} kept`}
              </strong>
              {": you can still read, export and delete them under Records, until you delete " +
                "them yourself. "}
            </>
          )}
          To stop answers for a while instead, close the form.
        </p>
        <ActionButton
          session={session}
          action={`${formPath(form.formId)}/delete`}
          label="Delete form"
          danger
        />
        <p>
          <a href={formPath(form.formId)}>Keep it</a>
        </p>
      </Page>,
    ));
  });

  app.post("/console/forms/:formId/delete", async (c) => {
    const form = await vault.lifecycle.delete(
      vault.access.gate(c.var.session, NEED.deleteForm),
      c.req.param("formId"),
    );
    const text = `Form “${form.title}” deleted. Its records are kept until you delete them.`;
    return c.redirect(`/console?done=${encodeURIComponent(text)}`, 303);
  });

  return app;
}
