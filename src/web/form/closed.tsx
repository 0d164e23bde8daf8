/**
 * What a closed form's page says (the hosted page's server render, and the island's when a
 * static page or an open page learns the form closed): that it is closed, and the owner's
 * message as plain text.
 *
 * @module
 */
import { closedNotice } from "../../forms/closure.ts";

/**
 * The two lines of a closed form's notice; `message` is the owner's ("" for none), escaped.
 *
 * @example
 * ```tsx
 * import { ClosedNotice } from "./closed.tsx";
 * const html = String(<ClosedNotice message="See you next year!" />);
 * ```
 */
export function ClosedNotice({ message }: { message: string }) {
  return (
    <>
      <p>
        <strong>This form is closed.</strong>
      </p>
      <p class="owner-message">{closedNotice(message)}</p>
    </>
  );
}
