/**
 * The owner console's one island (`/console/assets/console.js`): live previews. A form marked
 * `data-live-preview="{url}"` (the form builder, the webhook editor) is posted to that URL,
 * with its CSRF field, a moment after each edit; the JSON answer updates the preview in place:
 *
 * - `{doc, problems}`: the builder's preview frame (`srcdoc`) and its list of fields not valid
 *   yet;
 * - `{body, contentType}` or `{error}`: the webhook body preview.
 *
 * Without JavaScript the same previews come from the forms' "Update preview" and
 * "Preview body" buttons; this only saves the click.
 *
 * @module
 */

type Answer = {
  doc?: string;
  problems?: string[];
  body?: string;
  contentType?: string;
  error?: string;
};

function show(form: HTMLFormElement, answer: Answer): void {
  const frame = form.parentElement?.querySelector<HTMLIFrameElement>("iframe.form-preview");
  if (answer.doc !== undefined && frame) {
    frame.srcdoc = answer.doc;
    const list = form.parentElement?.querySelector<HTMLElement>(".preview-problems");
    if (list) {
      list.replaceChildren(...(answer.problems ?? []).map((text) => {
        const item = document.createElement("li");
        item.textContent = `Not shown yet: ${text}`;
        return item;
      }));
      list.hidden = (answer.problems ?? []).length === 0;
    }
  }
  const pre = form.querySelector<HTMLElement>("pre.body-preview");
  const status = form.querySelector<HTMLElement>(".body-preview-status");
  if (pre && (answer.body !== undefined || answer.error !== undefined)) {
    pre.textContent = answer.body ?? "";
    if (status) {
      status.textContent = answer.error ??
        `Rendered by the delivery renderer against a sample record (${answer.contentType}).`;
    }
  }
}

for (const form of document.querySelectorAll<HTMLFormElement>("form[data-live-preview]")) {
  const url = form.dataset.livePreview!;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let latest = 0;
  const update = async () => {
    const mine = ++latest;
    const body = new URLSearchParams();
    for (const [key, value] of new FormData(form)) {
      if (typeof value === "string" && key !== "action") body.append(key, value);
    }
    try {
      const response = await fetch(url, {
        method: "POST",
        body,
        headers: { accept: "application/json" },
        credentials: "same-origin",
      });
      if (!response.ok || mine !== latest) return;
      show(form, await response.json() as Answer);
    } catch {
      // Offline or signed out: the buttons still work.
    }
  };
  const soon = () => {
    clearTimeout(timer);
    timer = setTimeout(update, 250);
  };
  form.addEventListener("input", soon);
  form.addEventListener("change", soon);
}
