/**
 * What ingest checks of an opened envelope before it may become a record, each failure a
 * {@link Quarantine} with a code and a reason naming the offending field path
 * (`values.age: Expected a number, got "x"`): the plaintext is UTF-8 JSON of a payload, its
 * `mode` fits the envelope's place in the submission's history, the files its values
 * reference are stored on the relay, and they are encrypted exactly when the form says so.
 *
 * @module
 */
import { HASH_PATTERN } from "../blobs/key.ts";
import type { FilesMode } from "../forms/manifest.ts";
import { type SubmissionPayload, SubmissionPayloadSchema } from "../forms/payload.ts";
import { formatIssues } from "../errors/index.ts";
import { decodeUtf8 } from "../http/utf8.ts";

/** Why an envelope could not become a record: a quarantine code and reason. */
export class Quarantine extends Error {
  /**
   * @example
   * ```ts
   * throw new Quarantine("invalid_values", "values.age: Expected a number", 1);
   * ```
   */
  constructor(readonly code: string, message: string, readonly formVersion: number | null) {
    super(message);
  }
}

/** Longest quarantine reason kept, in characters. */
export const MAX_REASON = 1000;

/**
 * The payload in `plain`: strict UTF-8, JSON, and the payload's shape; a `Quarantine`
 * `invalid_payload` naming the first bad path otherwise. Members the payload does not define
 * are dropped.
 *
 * @example
 * ```ts
 * const payload = parsePayload(new TextEncoder().encode(JSON.stringify(sealedPayload)));
 * ```
 */
export function parsePayload(plain: Uint8Array): SubmissionPayload {
  const invalid = (reason: string) => new Quarantine("invalid_payload", reason, null);
  const text = decodeUtf8(plain);
  if (text === null) throw invalid("The plaintext is not valid UTF-8");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    // Deep nesting overflows the parser's stack: a RangeError, reported as what it is.
    const what = err instanceof RangeError ? "nested too deeply" : "not valid JSON";
    throw invalid(`The plaintext is ${what}`);
  }
  const parsed = SubmissionPayloadSchema.safeParse(json);
  if (!parsed.success) throw invalid(formatIssues(parsed.error, "", MAX_REASON));
  return parsed.data;
}

/**
 * Checks `payload.mode` against the queue `version` of its envelope: version 1 came by
 * `POST /submissions` and must say `Create`; versions 2 and up came by the amend endpoint
 * (`PUT /submissions/{submissionId}`) and must say `Update`. A `Quarantine` `mode_mismatch`
 * otherwise.
 *
 * @example
 * ```ts
 * checkMode({ ...payload, mode: "Update" }, 1); // throws: Update on a first version
 * ```
 */
export function checkMode(payload: SubmissionPayload, version: number): void {
  if (version === 1 && payload.mode !== "Create") {
    throw new Quarantine(
      "mode_mismatch",
      `mode: "${payload.mode}" on the first version of a submission (sent by POST ` +
        "/submissions); only an amendment through PUT /submissions/{submissionId} is an Update",
      payload.formVersion,
    );
  }
  if (version > 1 && payload.mode !== "Update") {
    throw new Quarantine(
      "mode_mismatch",
      `mode: "${payload.mode}" on amendment version ${version} (sent by PUT ` +
        "/submissions/{submissionId}); an amendment must say Update",
      payload.formVersion,
    );
  }
}

/** An owned file reference among a payload's values: the field it sits in and its hash. */
export interface OwnedFile {
  field: string;
  hash: string;
}

/**
 * The owned file references (`owned: true` with a well-formed SHA-256) among the top-level
 * `values` of a payload, whatever else they hold: what to claim on the relay. A malformed
 * hash is not claimed (the relay could not hold it); value validation reports it.
 *
 * @example
 * ```ts
 * ownedFiles({ photo: { url, hash, owned: true } }); // [{ field: "photo", hash }]
 * ```
 */
export function ownedFiles(values: Record<string, unknown>): OwnedFile[] {
  const out: OwnedFile[] = [];
  for (const [field, value] of Object.entries(values)) {
    const ref = value as { owned?: unknown; hash?: unknown } | null;
    if (
      ref && typeof ref === "object" && ref.owned === true && typeof ref.hash === "string" &&
      HASH_PATTERN.test(ref.hash)
    ) {
      out.push({ field, hash: ref.hash });
    }
  }
  return out;
}

/**
 * Throws a `Quarantine` `file_not_uploaded` naming every field of `files` whose hash is in
 * `missing` (the relay stores no such file for the form's owner).
 *
 * @example
 * ```ts
 * checkFilesStored(ownedFiles(values), new Set(missing), payload.formVersion);
 * ```
 */
export function checkFilesStored(
  files: OwnedFile[],
  missing: ReadonlySet<string>,
  formVersion: number,
): void {
  const absent = files.filter((f) => missing.has(f.hash));
  if (absent.length === 0) return;
  const reason = absent
    .map((f) => `values.${f.field}: file ${f.hash} was never uploaded to the relay`)
    .join("; ");
  throw new Quarantine("file_not_uploaded", reason.slice(0, MAX_REASON), formVersion);
}

/**
 * Checks that the owned file references among `values` are age-encrypted (`encryption:
 * "age"`) exactly when the form version's `files` mode is `"encrypted"`: a plain file on an
 * encrypted form was readable by the relay, and an "encrypted" one on a plain form is not
 * what the owner asked senders for. Throws a `Quarantine` `file_mode_mismatch` naming
 * every such field (`values.doc: …`).
 *
 * @example
 * ```ts
 * checkFileEncryption(payload.values, version.files ?? "plain", payload.formVersion);
 * ```
 */
export function checkFileEncryption(
  values: Record<string, unknown>,
  files: FilesMode,
  formVersion: number,
): void {
  const encrypted = files === "encrypted";
  const wrong: string[] = [];
  for (const [field, value] of Object.entries(values)) {
    const ref = value as { owned?: unknown; encryption?: unknown } | null;
    if (!ref || typeof ref !== "object" || ref.owned !== true) continue;
    if ((ref.encryption === "age") === encrypted) continue;
    wrong.push(
      encrypted
        ? `values.${field}: the file is not encrypted (no encryption: "age"), but form ` +
          `version ${formVersion} says files: "encrypted"; the relay could read it`
        : `values.${field}: the file says encryption: "age", but form version ${formVersion} ` +
          `says files: "plain"`,
    );
  }
  if (wrong.length === 0) return;
  throw new Quarantine(
    "file_mode_mismatch",
    wrong.join("; ").slice(0, MAX_REASON),
    formVersion,
  );
}
