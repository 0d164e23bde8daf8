/**
 * Debian's python3, which has python3-nacl (libsodium) installed by `.ci/run`; the python3
 * first on PATH may be another one.
 */
export const PYTHON = Deno.env.get("SEALPOST_PYTHON") ?? "/usr/bin/python3";
