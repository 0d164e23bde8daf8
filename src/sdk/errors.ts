/**
 * The SDK's typed errors. All extend {@linkcode SealpostError}, which carries a snake_case
 * `code` and, when one field is to blame, its name in `field`.
 *
 * @module
 */

/**
 * Base class of every error the SDK throws on purpose.
 *
 * @example
 * ```ts
 * import { SealpostError } from "./errors.ts";
 * try {
 *   // ... submit
 * } catch (e) {
 *   if (e instanceof SealpostError) console.error(e.code, e.field, e.message);
 * }
 * ```
 */
export class SealpostError extends Error {
  /** snake_case reason, e.g. `invalid_values`, `manifest_unverified`, `ciphertext_too_large`. */
  readonly code: string;
  /** The field (or request member) to blame, when there is one. */
  readonly field?: string;

  /** Builds an error from a code, a message and optionally the field to blame. */
  constructor(code: string, message: string, options: ErrorOptions & { field?: string } = {}) {
    super(message, options);
    this.name = "SealpostError";
    this.code = code;
    if (options.field !== undefined) this.field = options.field;
  }
}

/**
 * The manifest could not be trusted: unsigned, signed by another key than the pinned one,
 * altered after signing (code `manifest_unverified`), or not a valid manifest
 * (code `invalid_manifest`, with `field` naming the member); or the pin itself is not 64 hex
 * characters (code `invalid_pin`).
 */
export class ManifestError extends SealpostError {
  /** See the class documentation for the codes. */
  constructor(code: string, message: string, options: ErrorOptions & { field?: string } = {}) {
    super(code, message, options);
    this.name = "ManifestError";
  }
}

/** One problem with one field's value. */
export interface FieldIssue {
  /** The field id (the key in `values`), or `""` for the values object itself. */
  field: string;
  message: string;
}

/**
 * Values do not fit the form's fields (code `invalid_values`). `issues` lists every problem;
 * `field` names the first field at fault and the message names them all.
 */
export class ValidationError extends SealpostError {
  /** Every problem found, one per field at most. */
  readonly issues: FieldIssue[];

  /** Builds the error from its issues (at least one). */
  constructor(issues: FieldIssue[]) {
    const text = issues.map((i) => i.field ? `${i.field}: ${i.message}` : i.message).join("; ");
    super("invalid_values", `Invalid values: ${text}`, { field: issues[0]?.field || undefined });
    this.name = "ValidationError";
    this.issues = issues;
  }
}

/**
 * The relay (or the storage behind an upload URL) answered with an error status. `code`,
 * `message` and `field` come from the server's `{"error": {...}}` body when it has one.
 */
export class RelayError extends SealpostError {
  /** HTTP status. */
  readonly status: number;
  /**
   * The server's own message, as its error body said it (`message` adds what was being
   * done). For 410 `form_closed`, the words of the form's owner to senders.
   */
  readonly serverMessage?: string;

  /** Builds the error from the response status and the server's error details. */
  constructor(
    status: number,
    code: string,
    message: string,
    options: ErrorOptions & { field?: string; serverMessage?: string } = {},
  ) {
    super(code, message, options);
    this.name = "RelayError";
    this.status = status;
    if (options.serverMessage !== undefined) this.serverMessage = options.serverMessage;
  }
}

/**
 * No usable answer: the request failed at the network level (code `network_error`) or timed
 * out (code `timeout`), after every retry.
 */
export class NetworkError extends SealpostError {
  /** See the class documentation for the codes. */
  constructor(code: "network_error" | "timeout", message: string, options: ErrorOptions = {}) {
    super(code, message, options);
    this.name = "NetworkError";
  }
}
