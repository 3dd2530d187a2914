// The page a password-reset link opens (/reset.html#token=…). The token is in the fragment,
// so it never reaches a server log or a Referer header; it is sent once, in the POST body.
import { resetPassword } from './api.js';
import { setBusy, showFormMessage } from './ui.js';
import { $ } from './dom.js';

const token = new URLSearchParams(location.hash.slice(1)).get('token') || '';
// Out of the address bar and history, now that the page holds it.
history.replaceState(null, '', location.pathname);

function fail(message) {
  showFormMessage('reset-error', message);
}

if (!token) fail('This link is incomplete: open the whole link your administrator gave you.');

$('reset-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const password = $('reset-password').value;
  if (password.length < 8) return fail('Choose a password of at least 8 characters.');
  if (password !== $('reset-confirm').value) return fail('The two passwords are not the same.');
  fail('');
  const button = $('reset-button');
  setBusy(button, true, 'Setting Password…');
  try {
    await resetPassword(token, password);
    $('reset-form').hidden = true;
    $('reset-done').hidden = false;
  } catch (error) {
    fail(error.kind === 'network' ? 'Cannot reach the server; try again.' : error.message);
  } finally {
    setBusy(button, false);
  }
});
