// The script of own_page.html. Build the SDK once with
//   deno bundle --platform=browser --minify -o sealpost-sdk.js src/sdk/mod.ts
// and serve it beside this file.
import { fetchManifest, submitForm, ValidationError } from "./sealpost-sdk.js";

const form = document.getElementById("contact");
const result = document.getElementById("result");
const { relay, form: formId, pin } = form.dataset;

// The signature is checked against the pin before anything else: a relay that swapped the
// recipient key is refused here.
const manifest = await fetchManifest(formId, { relayUrl: relay, pin });

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const photo = form.photo.files[0];
  try {
    const receipt = await submitForm(
      manifest,
      { name: form.name.value, message: form.message.value },
      photo ? { files: { photo: { data: photo } } } : {},
    );
    result.textContent = `Sent: ${receipt.submissionId}`;
  } catch (e) {
    result.textContent = e instanceof ValidationError
      ? e.issues.map((i) => `${i.field}: ${i.message}`).join("; ")
      : `Not sent: ${e.message}`;
  }
});
