/**
 * Small zod schemas shared by the manifest, payload and file reference schemas.
 *
 * @module
 */
import { z } from "zod";
import { base64DecodedLength, isBase64 } from "../crypto/encoding.ts";
import { FormIdSchema, Sha256HexSchema } from "./ids.ts";

export { FormIdSchema, Sha256HexSchema };

/** Largest file the upload-slot flow accepts: 52428800 bytes (50 MB). */
export const MAX_FILE_BYTES = 52_428_800;

/** Strict standard base64 (padding required, no whitespace). */
export const Base64Schema: z.ZodString = z.string().refine(isBase64, {
  message: "Must be standard base64 with padding",
});

/** Standard base64 of exactly `bytes` bytes. */
export function base64OfLength(bytes: number, what: string): z.ZodString {
  return z.string().refine((v) => isBase64(v) && base64DecodedLength(v) === bytes, {
    message: `Must be the standard base64 of a ${bytes}-byte ${what}`,
  });
}

/** A 32-byte X25519 public key in standard base64. */
export const PublicKeyBase64Schema: z.ZodString = base64OfLength(32, "X25519 public key");

/**
 * Whether `value` nests arrays and objects more than `limit` levels deep (a scalar is level 0,
 * the members of an object or array one level more). Iterative, so no depth overflows it.
 *
 * @example
 * ```ts
 * nestsDeeperThan({ a: [1] }, 1); // true: 1 sits two levels down
 * ```
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  let level: unknown[] = [value];
  for (let depth = 0; level.length > 0; depth++) {
    const next: unknown[] = [];
    for (const v of level) {
      if (v !== null && typeof v === "object") {
        if (depth === limit) return true;
        for (const member of Object.values(v)) next.push(member);
      }
    }
    level = next;
  }
  return false;
}

/** Whether `value` is an absolute http: or https: URL. */
export function isHttpUrl(value: string): boolean {
  if (/\s/.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

/** An absolute http: or https: URL. */
export const HttpUrlSchema: z.ZodString = z.string().max(2048).refine(isHttpUrl, {
  message: "Must be an absolute http: or https: URL",
});
