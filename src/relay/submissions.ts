/**
 * Intake: sealed envelopes in, durable before the 200, queued for their recipient.
 *
 * A submission is its head (by id: idempotency, edit window, latest version) and one queued
 * version per envelope (1 = original, 2+ = amendments) in its recipient's queue, written
 * together through the envelope port (src/store/ports/envelopes.ts).
 *
 * @module
 */
import { createHash } from "node:crypto";
import { fromBase64 } from "../crypto/encoding.ts";
import type { SubmissionEnvelope } from "../forms/payload.ts";
import { Conflict, Forbidden, Gone, Invalid, NotFound, TooLarge } from "../errors/index.ts";
import type { EnvelopePort, SubmissionHead } from "../store/ports/envelopes.ts";
import type { EditTokens } from "../auth/edit_tokens.ts";
import type { FormDirectory } from "./manifests.ts";
import { closedNotice } from "../forms/closure.ts";

/** What a successful POST or PUT answers. */
export interface IntakeReceipt {
  submissionId: string;
  editToken: string;
  version: number;
}

/** Intake limits from the configuration. */
export interface IntakeLimits {
  maxCiphertextBytes: number;
  editWindowMs: number;
}

interface Prepared {
  env: SubmissionEnvelope;
  ciphertext: Uint8Array;
  digest: string;
  fingerprint: string;
  /** Set when the owner closed the form: the 410 `form_closed` for anything but a replay. */
  closed: Gone | null;
}

/** The intake service: validation beyond the schema, idempotency, amendments, durability. */
export class Intake {
  /**
   * Dispatches `queued` (a CustomEvent whose detail is the recipient fingerprint) on each
   * commit of envelopes: this process's, and on a store shared by several processes
   * (PostgreSQL) every other relay's too (the envelope port's `onQueued`).
   */
  readonly events = new EventTarget();

  constructor(
    private envelopes: EnvelopePort,
    private forms: FormDirectory,
    private editTokens: EditTokens,
    private limits: IntakeLimits,
  ) {
    envelopes.onQueued((fp) =>
      this.events.dispatchEvent(new CustomEvent("queued", { detail: fp }))
    );
  }

  /**
   * Accepts a new submission. A replay with the same id and bytes answers the same receipt;
   * the same id with other bytes is a 409.
   */
  async submit(env: SubmissionEnvelope): Promise<IntakeReceipt> {
    const prepared = await this.#prepare(env);
    if (prepared.closed) {
      // A replay of what was accepted before the form closed still answers its receipt.
      const head = await this.envelopes.getSubmission(env.submissionId);
      if (head?.digest !== prepared.digest) throw prepared.closed;
      return this.#replay(head, head.digest, prepared, 1);
    }
    // Optimistic: write as new (the commit checks the id is unused); only when that check
    // fails is the existing row read, to answer a replay or a conflict.
    let head: SubmissionHead | null = null;
    for (let attempt = 0; attempt < 3; attempt++) {
      if (head) return this.#replay(head, head.digest, prepared, 1);
      const row: SubmissionHead = {
        id: env.submissionId,
        formId: env.formId,
        fingerprint: prepared.fingerprint,
        createdAt: new Date().toISOString(),
        version: 1,
        digest: prepared.digest,
        latestDigest: prepared.digest,
      };
      if (await this.#write(row, prepared, null)) {
        return { submissionId: row.id, editToken: this.editTokens.issue(row.id), version: 1 };
      }
      head = await this.envelopes.getSubmission(env.submissionId);
    }
    throw new Conflict("conflict", "The submission changed meanwhile; retry");
  }

  /**
   * Amends a submission with a new envelope, authorised by its edit token. The new version
   * joins the recipient's queue.
   */
  async amend(submissionId: string, editToken: string, env: SubmissionEnvelope): Promise<
    IntakeReceipt
  > {
    if (env.submissionId !== submissionId) {
      throw new Invalid(
        "invalid_request",
        `Envelope submissionId "${env.submissionId}" differs from the path's`,
        "submissionId",
      );
    }
    let head = await this.envelopes.getSubmission(submissionId);
    if (!head) {
      throw new NotFound("submission_not_found", `Unknown submission "${submissionId}"`);
    }
    if (!this.editTokens.verify(submissionId, editToken)) {
      throw new Forbidden("invalid_edit_token", "The edit token does not match");
    }
    if (Date.parse(head.createdAt) + this.limits.editWindowMs < Date.now()) {
      throw new Gone("edit_window_closed", "The edit window of this submission is over");
    }
    if (env.formId !== head.formId) {
      throw new Invalid(
        "invalid_request",
        `An amendment must keep formId "${head.formId}"`,
        "formId",
      );
    }
    const prepared = await this.#prepare(env);
    if (prepared.closed && head.latestDigest !== prepared.digest) throw prepared.closed;
    for (let attempt = 0; attempt < 3 && head; attempt++) {
      const current: SubmissionHead = head;
      if (current.latestDigest === prepared.digest) {
        return this.#replay(current, current.latestDigest, prepared, current.version);
      }
      const row: SubmissionHead = {
        ...current,
        fingerprint: prepared.fingerprint,
        version: current.version + 1,
        latestDigest: prepared.digest,
      };
      if (await this.#write(row, prepared, current.version)) {
        return { submissionId, editToken, version: row.version };
      }
      head = await this.envelopes.getSubmission(submissionId);
    }
    throw new Conflict("conflict", "The submission changed meanwhile; retry");
  }

  #replay(
    head: SubmissionHead,
    digest: string,
    prepared: Prepared,
    version: number,
  ): IntakeReceipt {
    if (digest !== prepared.digest) {
      throw new Conflict(
        "submission_conflict",
        `Submission "${head.id}" already exists with other content`,
        "submissionId",
      );
    }
    return { submissionId: head.id, editToken: this.editTokens.issue(head.id), version };
  }

  /** Checks what the schema cannot: sizes, the form and its key; hashes the envelope. */
  async #prepare(env: SubmissionEnvelope): Promise<Prepared> {
    // Strict, as the schemas' isBase64: the only check of it (see IntakeEnvelopeSchema).
    let ciphertext: Uint8Array;
    try {
      ciphertext = fromBase64(env.ciphertext);
    } catch {
      throw new Invalid(
        "invalid_request",
        "Invalid ciphertext: Must be standard base64 with padding",
        "ciphertext",
      );
    }
    if (ciphertext.length > this.limits.maxCiphertextBytes) {
      throw new TooLarge(
        "ciphertext_too_large",
        `Ciphertext of ${ciphertext.length} bytes exceeds the ${this.limits.maxCiphertextBytes}-byte limit`,
        "ciphertext",
      );
    }
    if (ciphertext.length < 48) {
      throw new Invalid(
        "invalid_request",
        `Ciphertext of ${ciphertext.length} bytes is shorter than a sealed box (48 bytes)`,
        "ciphertext",
      );
    }
    const form = await this.forms.get(env.formId);
    if (!form) {
      throw new NotFound("form_not_found", `Form "${env.formId}" is not published`, "formId");
    }
    if (!sameKey(form.publicKey, env.recipientPubkey)) {
      throw new NotFound(
        "recipient_mismatch",
        `recipientPubkey is not the published key of form "${env.formId}"`,
        "recipientPubkey",
      );
    }
    const canonical = JSON.stringify([
      env.formId,
      env.recipientPubkey,
      env.submitterId ?? null,
      env.ciphertext,
    ]);
    return {
      env,
      ciphertext,
      // Native SHA-256 (about 5x @noble's on a 1 KiB envelope: intake's hottest step).
      digest: createHash("sha256").update(canonical).digest("hex"),
      fingerprint: form.fingerprint,
      // Our addition to the specification: a form its owner closed takes no submissions and
      // no amendments, and says why in the owner's words.
      closed: form.closed ? new Gone("form_closed", closedNotice(form.closed.message)) : null,
    };
  }

  /** Writes `row` and its queued version if the stored head is still at `expectedVersion`. */
  async #write(
    row: SubmissionHead,
    prepared: Prepared,
    expectedVersion: number | null,
  ): Promise<boolean> {
    const { env, ciphertext } = prepared;
    return await this.envelopes.writeVersion(row, expectedVersion, {
      formId: env.formId,
      recipientPubkey: env.recipientPubkey,
      submitterId: env.submitterId ?? null,
      ciphertext,
    });
  }
}

function sameKey(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    const x = Uint8Array.fromBase64(a);
    const y = Uint8Array.fromBase64(b);
    return x.length === y.length && x.every((v, i) => v === y[i]);
  } catch {
    return false;
  }
}
