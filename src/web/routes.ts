/**
 * The relay's web pages: the hosted form page `GET /f/{formId}`, its assets at hashed paths
 * (`/assets/{name}.{hash}.{ext}`, cached for a year) and the one-line embed `/embed.js`.
 * Everything comes from the module graph; nothing from outside the program.
 *
 * @module
 */
import { type Context, Hono } from "hono";
import { FieldsSchema } from "../forms/fields.ts";
import { type Asset, ASSETS, EMBED_SCRIPT } from "./assets.ts";
import { pageCsp } from "./csp.ts";
import { ClosedFormPage, FormPage, MissingFormPage } from "./form/page.tsx";
import type { FormDirectory } from "../relay/manifests.ts";
import { allowedOrigins } from "../relay/api/cors.ts";

const gzipped = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();

/** An asset's gzip encoding, made once per process. */
function gzipOf(asset: Asset): Promise<Uint8Array<ArrayBuffer>> {
  let bytes = gzipped.get(asset.path);
  if (!bytes) {
    const stream = new Blob([asset.body]).stream().pipeThrough(new CompressionStream("gzip"));
    bytes = new Response(stream).bytes();
    gzipped.set(asset.path, bytes);
  }
  return bytes;
}

/** An asset, gzip-encoded when the client accepts it. */
async function serveAsset(c: Context, asset: Asset, cache: string): Promise<Response> {
  const headers: Record<string, string> = {
    "content-type": asset.type,
    "cache-control": cache,
    "x-content-type-options": "nosniff",
    "cross-origin-resource-policy": "cross-origin",
    vary: "Accept-Encoding",
  };
  if (!/\bgzip\b/.test(c.req.header("accept-encoding") ?? "")) {
    return c.body(asset.body, 200, headers);
  }
  return c.body(await gzipOf(asset), 200, { ...headers, "content-encoding": "gzip" });
}

/** What the web routes need. */
export interface WebDeps {
  forms: FormDirectory;
  /** The S3 store the page uploads files to directly, when `blobs.backend = "s3"`. */
  blobStoreUrl?: string;
}

const FORM_ID = /^[A-Za-z0-9_-]{1,128}$/;

const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-cache",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "permissions-policy": "geolocation=(self), camera=(), microphone=()",
};

/**
 * The web routes, to mount at `/` on a relay.
 *
 * @example
 * ```ts
 * import { webRoutes } from "./routes.ts";
 * app.route("/", webRoutes({ forms }));
 * ```
 */
export function webRoutes(deps: WebDeps): Hono {
  const app = new Hono();

  app.get("/f/:formId", async (c) => {
    const formId = c.req.param("formId");
    const form = FORM_ID.test(formId) ? await deps.forms.get(formId) : null;
    if (!form) {
      const html = "<!doctype html>" + String(MissingFormPage({ formId }));
      return c.body(html, 404, { ...PAGE_HEADERS, "content-security-policy": pageCsp({}) });
    }
    const m = form.manifest;
    const title = typeof m.title === "string" ? m.title : formId;
    if (form.closed) {
      const page = ClosedFormPage({ formId, title, message: form.closed.message });
      return c.body("<!doctype html>" + String(page), 410, {
        ...PAGE_HEADERS,
        "content-security-policy": pageCsp({ frameAncestors: allowedOrigins(m) }),
      });
    }
    const fields = FieldsSchema.safeParse(m.fields);
    const page = FormPage({
      formId,
      title,
      fields: fields.success ? fields.data : [],
      manifestUrl: `/forms/${encodeURIComponent(formId)}/manifest`,
      assets: "linked",
    });
    const relayUrl = typeof m.relayUrl === "string" ? m.relayUrl : undefined;
    const csp = pageCsp({
      relayUrl,
      blobStoreUrl: deps.blobStoreUrl,
      frameAncestors: allowedOrigins(m),
    });
    return c.body("<!doctype html>" + String(page), 200, {
      ...PAGE_HEADERS,
      "content-security-policy": csp,
    });
  });

  app.get("/assets/:file", (c) => {
    const asset = ASSETS.get(c.req.path);
    if (!asset) return c.notFound();
    return serveAsset(c, asset, "public, max-age=31536000, immutable");
  });

  // A stable address for the embed snippet; short-lived cache so a new build reaches sites.
  app.get("/embed.js", (c) => serveAsset(c, EMBED_SCRIPT, "public, max-age=3600"));

  return app;
}
