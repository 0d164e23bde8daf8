/**
 * The one-line embed, served at `/embed.js`:
 *
 * ```html
 * <script src="https://relay.example/embed.js" data-form="FORM_ID" data-pin="PIN" async></script>
 * ```
 *
 * puts the hosted form page (`/f/{formId}#pin=…`) in an `<iframe>` right after the script
 * element and keeps the frame as tall as the form (the page posts its height). `data-title`
 * names the frame for assistive technology (default "Form").
 *
 * @module
 */
import { EMBED_HEIGHT_MESSAGE, embedFrameUrl } from "../links.ts";

const script = document.currentScript as HTMLScriptElement | null;
if (script?.dataset.form) {
  const src = embedFrameUrl(script.src, script.dataset.form, script.dataset.pin ?? "");
  const frame = document.createElement("iframe");
  frame.src = src;
  frame.title = script.dataset.title ?? "Form";
  frame.loading = "lazy";
  frame.allow = "geolocation"; // "Use my location" of geo fields
  frame.style.cssText = "width:100%;max-width:100%;height:640px;border:0;display:block";
  script.after(frame);
  const origin = new URL(src).origin;
  addEventListener("message", (event: MessageEvent) => {
    const data = event.data as { type?: unknown; height?: unknown } | null;
    if (event.origin !== origin || event.source !== frame.contentWindow) return;
    if (data?.type !== EMBED_HEIGHT_MESSAGE || typeof data.height !== "number") return;
    frame.style.height = `${Math.min(Math.max(Math.ceil(data.height), 120), 20000)}px`;
  });
}
