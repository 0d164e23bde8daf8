/// <reference lib="dom" />
/**
 * What the form page remembers in this browser's `localStorage` after a submission, so its
 * edit link can prefill the form: the submitted values (file references included), by
 * submission id. Never the edit token (that stays in the link). Storage may be unavailable
 * (private mode, disabled): then nothing is remembered and the edit page starts empty.
 *
 * @module
 */

const PREFIX = "sealpost:submission:";

/** Remembers the values of a submission (best effort). */
export function saveValues(submissionId: string, values: Record<string, unknown>): void {
  try {
    localStorage.setItem(PREFIX + submissionId, JSON.stringify(values));
  } catch { /* storage unavailable or full: the edit page starts empty */ }
}

/** The remembered values of a submission, or null. */
export function loadValues(submissionId: string): Record<string, unknown> | null {
  try {
    const text = localStorage.getItem(PREFIX + submissionId);
    const parsed = text === null ? null : JSON.parse(text);
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
}
