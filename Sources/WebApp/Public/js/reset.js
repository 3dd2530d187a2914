// The page a password-reset link opens (/reset.html#token=…). The token is in the fragment,
// so it never reaches a server log or a Referer header; it is sent once, in the POST body.
import { setBusy, showFormMessage } from './ui.js';

const $ = (id) => document.getElementById(id);
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
    const response = await fetch('/api/password-reset', {
      method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ token, new_password: password }),
    });
    const body = await response.json().catch(() => null);
    if (!response.ok) return fail(body?.error?.message || `The server answered ${response.status}.`);
    $('reset-form').hidden = true;
    $('reset-done').hidden = false;
  } catch {
    fail('Cannot reach the server; try again.');
  } finally {
    setBusy(button, false);
  }
});
