/**
 * The edit-token amend: `PUT /submissions/{submissionId}` with `Authorization: Bearer
 * <editToken>` and a new envelope (payload mode `Update`) for the same submission id. A
 * repeat of the same envelope answers the same receipt, so it is retried like a submission.
 *
 * @module
 */
import type { SubmissionEnvelope } from "../../forms/payload.ts";
import { type HttpOptions, joinUrl, readJson, request } from "../../sdk/http.ts";

/** What the relay answers to an amendment. */
export interface AmendReceipt {
  submissionId: string;
  editToken: string;
  /** 2 for the first amendment, and so on. */
  version: number;
}

/**
 * Sends an amendment of `envelope.submissionId` authorised by `editToken`.
 *
 * @throws {RelayError} e.g. 403 `invalid_edit_token`, 410 `edit_window_closed`.
 * @example
 * ```ts
 * import { amend } from "./amend.ts";
 * const receipt = await amend(manifest.relayUrl, envelope, editToken);
 * ```
 */
export async function amend(
  relayUrl: string,
  envelope: SubmissionEnvelope,
  editToken: string,
  options: HttpOptions = {},
): Promise<AmendReceipt> {
  const what = `Amending ${envelope.submissionId}`;
  return await request(
    joinUrl(relayUrl, `/submissions/${envelope.submissionId}`),
    {
      method: "PUT",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        authorization: `Bearer ${editToken}`,
      },
      body: JSON.stringify(envelope),
    },
    what,
    options,
    (response) => readJson(response, what),
  ) as AmendReceipt;
}
