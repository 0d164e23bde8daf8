/**
 * The form page's trust line: who can read the answers and how, from the verified manifest.
 * It names the owner (the manifest's signed `owner.name`), the short fingerprint of the form's
 * key (the X25519 key the page seals to, as the console's form overview shows it) and, when the
 * form takes files, whether they are encrypted too. The island shows it only once the manifest
 * verified against the pin; docs/security.md says what that proves and what it does not.
 *
 * @module
 */
import { fingerprint, shortFingerprint } from "../../crypto/keys.ts";
import { fromBase64 } from "../../crypto/encoding.ts";
import type { FilesMode, Manifest } from "../../forms/manifest.ts";

/** What the trust line states. */
export interface TrustFacts {
  /** The owner's display name; "" when the manifest names none. */
  ownerName: string;
  /** The form key's short fingerprint, e.g. "3f1c 9a2b 77d0 e412". */
  key: string;
  /** The file mode, or null when the form takes no files. */
  files: FilesMode | null;
}

/**
 * The facts of a verified manifest.
 *
 * @example
 * ```ts
 * import { trustFacts } from "./trust_line.tsx";
 * trustFacts(manifest); // { ownerName: "Ada", key: "3f1c 9a2b 77d0 e412", files: "encrypted" }
 * ```
 */
export function trustFacts(manifest: Manifest): TrustFacts {
  const name = typeof manifest.owner?.name === "string" ? manifest.owner.name.trim() : "";
  const takesFiles = manifest.fields.some((f) => f.kind === "image" || f.kind === "attachment");
  return {
    ownerName: name,
    key: shortFingerprint(fingerprint(fromBase64(manifest.recipient.publicKey))),
    files: takesFiles ? manifest.files ?? "plain" : null,
  };
}

/**
 * The trust line's content.
 *
 * @example
 * ```tsx
 * import { TrustLine } from "./trust_line.tsx";
 * String(<TrustLine facts={{ ownerName: "Ada", key: "3f1c 9a2b 77d0 e412", files: null }} />);
 * ```
 */
export function TrustLine({ facts }: { facts: TrustFacts }) {
  const who = facts.ownerName || "the form's owner";
  return (
    <>
      <span>
        {"Only "}
        <strong>{who}</strong>
        {" can read your answers: this browser seals them to "}
        {facts.ownerName ? "their" : "the owner's"}
        {" form key "}
        <code class="key">{facts.key}</code>
        {" before they leave."}
      </span>
      {facts.files === "encrypted" && <span>{" Files you attach are encrypted the same way."}
      </span>}
      {facts.files === "plain" && (
        <span>
          {" Files you attach are not encrypted: the server that stores them can read them."}
        </span>
      )}
    </>
  );
}
