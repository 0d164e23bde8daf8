/** The Sealpost version (kept equal to deno.json's). */
export const VERSION = "0.1.0";
