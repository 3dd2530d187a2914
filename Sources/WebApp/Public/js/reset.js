// The page a password-reset link opens (/reset.html#token=…). The token is in the fragment,
// so it never reaches a server log or a Referer header; it is sent once, in the POST body.
// The page is in the student's language like the app's (js/i18n.js: the saved choice, else
// the browser's; hidden until translated, the i18n-pending class).
import { resetPassword } from './api.js';
import { setBusy } from './ui.js';
import { $ } from './dom.js';
import { t, translateDocument } from './i18n.js';
import { showTranslatedMessage } from './formMessages.js';

const token = new URLSearchParams(location.hash.slice(1)).get('token') || '';
// Out of the address bar and history, now that the page holds it.
history.replaceState(null, '', location.pathname);

/** Says `render()` (a function wording it in the page's language) under the form; '' clears. */
function fail(render) {
  showTranslatedMessage('reset-error', render);
}

if (!token) fail(() => t('reset.error.incomplete'));

$('reset-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const password = $('reset-password').value;
  if (password.length < 8) return fail(() => t('reset.error.tooShort'));
  if (password !== $('reset-confirm').value) return fail(() => t('reset.error.mismatch'));
  fail('');
  const button = $('reset-button');
  setBusy(button, true, t('reset.busy'));
  try {
    await resetPassword(token, password);
    $('reset-form').hidden = true;
    $('reset-done').hidden = false;
  } catch (error) {
    // The server words why the link does not work (used, expired), in the page's language.
    fail(error.kind === 'network' ? () => t('reset.error.network') : error.message);
  } finally {
    setBusy(button, false);
    translateDocument(button);
  }
});
