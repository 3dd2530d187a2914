// Small helpers for the page's own elements, shared by every module.

/** The element with id `id`, or null. */
export const $ = (id) => document.getElementById(id);

/**
 * Copies a text field's value: by the clipboard API, else (an insecure origin, or the browser
 * said no) the old way, the field selected and the copy command. Resolves to whether it copied.
 */
export async function copyFieldText(field) {
  try {
    await navigator.clipboard.writeText(field.value);
    return true;
  } catch {
    field.focus();
    field.select();
    try { return document.execCommand('copy'); } catch { return false; }
  }
}
