/**
 * The static export of a form page (`sealpost form page FORM_ID --out form.html`): one
 * self-contained HTML file, script and style inline, with the manifest-key pin baked in. The
 * owner hosts it anywhere; it fetches the manifest from the relay, verifies it against the
 * baked pin and submits to the relay under CORS. The strongest trust model: the page itself
 * does not come from the relay.
 *
 * @module
 */
import type { Manifest } from "../../forms/manifest.ts";
import { joinUrl } from "../../sdk/http.ts";
import { FORM_SCRIPT, FORM_STYLE } from "../assets.ts";
import { pageCsp } from "../csp.ts";
import { FormPage } from "./page.tsx";

/**
 * The HTML of the static page of a verified `manifest`, with `pin` baked in. Its
 * Content-Security-Policy (a `<meta>`) admits only the inline script and style with these
 * exact hashes and network access to the manifest's relay.
 *
 * @example
 * ```ts
 * import { staticFormPage } from "./static_page.ts";
 * await Deno.writeTextFile("form.html", staticFormPage(manifest, pin));
 * ```
 */
export function staticFormPage(manifest: Manifest, pin: string): string {
  const csp = pageCsp({
    relayUrl: manifest.relayUrl,
    inline: { script: FORM_SCRIPT.integrity, style: FORM_STYLE.integrity },
  });
  const page = FormPage({
    formId: manifest.formId,
    title: manifest.title,
    fields: manifest.fields,
    manifestUrl: joinUrl(
      manifest.relayUrl,
      `/forms/${encodeURIComponent(manifest.formId)}/manifest`,
    ),
    pin,
    assets: "inline",
    csp,
  });
  return "<!doctype html>" + String(page) + "\n";
}
