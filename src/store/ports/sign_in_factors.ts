/**
 * The port of a person's sign-in factors besides the password: passkeys (WebAuthn
 * credentials), a TOTP secret, and recovery codes. src/people decides what they mean; this
 * stores them, with the atomic steps sign-in needs: a recovery code used once, a TOTP step used
 * once, a passkey's signature counter moved only upward.
 *
 * @module
 */

/** A registered passkey (a WebAuthn credential of one person). */
export interface Passkey {
  /** The credential id (base64url), unique across the instance. */
  credentialId: string;
  personId: string;
  /** The credential's COSE public key (base64url). */
  publicKey: string;
  /** The signature counter last seen (0: the authenticator keeps none). */
  counter: number;
  /** Transports the browser reported (`internal`, `usb`, `hybrid`, …), hints for sign-in. */
  transports: string[];
  /** `singleDevice` or `multiDevice` (synced), as the authenticator said at registration. */
  deviceType: "singleDevice" | "multiDevice";
  /** Whether the credential is backed up (synced) now. */
  backedUp: boolean;
  /** The person's name for it ("Laptop", "YubiKey"). */
  name: string;
  /** ISO 8601 time of registration. */
  createdAt: string;
  /** ISO 8601 time of the last sign-in with it, or null. */
  lastUsedAt: string | null;
}

/** A person's TOTP second factor. */
export interface TotpFactor {
  /** The shared secret, base32. */
  secret: string;
  /** The step of the last code accepted (a code of that step or earlier is refused), or null. */
  lastStep: number | null;
  /** ISO 8601 time it was set up. */
  createdAt: string;
}

/**
 * Storage of sign-in factors.
 *
 * @example
 * ```ts
 * await factors.setRecoveryCodes(personId, hashes);
 * await factors.useRecoveryCode(personId, hashes[0]); // true
 * await factors.useRecoveryCode(personId, hashes[0]); // false: used
 * ```
 */
export interface SignInFactorsPort {
  /** Saves a new passkey; `"taken"` when its credential id is registered already (to anyone). */
  add(passkey: Passkey): Promise<"added" | "taken">;

  /** The passkey of `credentialId`, or null. */
  byCredentialId(credentialId: string): Promise<Passkey | null>;

  /** The passkeys of `personId`, oldest first. */
  list(personId: string): Promise<Passkey[]>;

  /**
   * Records a sign-in with a passkey: sets its counter to `counter` and `lastUsedAt` to `at`,
   * only when `counter` is above the stored one, or when both are 0 (an authenticator without
   * a counter). Atomic: of two updates to the same counter at once, one is written. True when
   * written; false when the counter did not go up (a cloned or replayed credential) or the
   * passkey is gone.
   */
  updateCounter(credentialId: string, counter: number, at: string): Promise<boolean>;

  /** Deletes a passkey of `personId`; false when it has no such passkey. */
  remove(personId: string, credentialId: string): Promise<boolean>;

  /** The TOTP factor of `personId`, or null. */
  getTotp(personId: string): Promise<TotpFactor | null>;

  /** Sets (or replaces) the TOTP factor of `personId`. */
  setTotp(personId: string, factor: TotpFactor): Promise<void>;

  /** Removes the TOTP factor of `personId` (idempotent). */
  clearTotp(personId: string): Promise<void>;

  /**
   * Marks TOTP step `step` used: only when the person has a TOTP factor and `step` is after
   * its `lastStep`. Atomic: of two uses of one step at once, one is written. True when written.
   */
  useTotpStep(personId: string, step: number): Promise<boolean>;

  /** Replaces the recovery codes of `personId` with `hashes` (an empty list removes them). */
  setRecoveryCodes(personId: string, hashes: string[]): Promise<void>;

  /**
   * Uses the recovery code `hash` of `personId`: true when it was there unused, and it is gone
   * now. Atomic: of two uses of one code at once, exactly one gets true.
   */
  useRecoveryCode(personId: string, hash: string): Promise<boolean>;

  /** How many unused recovery codes `personId` has. */
  recoveryCodesLeft(personId: string): Promise<number>;
}
