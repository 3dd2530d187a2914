// Leaving the signed-in state: the Logout button, and the local clean-up it shares with the
// account dialog's "Log out of all devices".
import * as api from './api.js';
import { state, saveAccount } from './state.js';
import { go } from './router.js';
import { clearStudents } from './students.js';
import { forgetClasses } from './classes.js';
import { dropKeptData } from './keptSession.js';
import { onSessionRefused } from './sessionEvents.js';
import { confirmAction, showAlert, showFormMessage } from './ui.js';
import { t } from './i18n.js';

export async function logOut() {
  const button = document.getElementById('logout-button');
  button.disabled = true;
  const viaProvider = Boolean(state.account && state.account.provider);
  let result = null;
  try {
    if (viaProvider) result = await api.endSession();
    else await api.logOut();
  } catch {
    // The session ends on this device either way (a 401 means it had already ended);
    // the server forgets it when it expires.
  }
  button.disabled = false;
  leaveSession();
  if (result) await afterProviderLogout(result);
}

/** Signed in through a provider: say what happened there, and offer to sign out of it too
 *  when it lets us (OpenID Connect RP-initiated logout). */
async function afterProviderLogout(result) {
  const provider = result.provider_name || t('session.otherAccount');
  if (result.provider_logout_url) {
    const leave = await confirmAction(
      t('session.loggedOutOfApp'),
      t('session.stillSignedIn', { provider }),
      t('session.signOutOf', { provider }),
      t('session.staySignedIn'),
    );
    if (leave) window.location.assign(result.provider_logout_url);
  } else if (result.provider_token_revoked === true) {
    await showAlert(t('session.loggedOut'), t('session.tokenRevoked', { provider }));
  } else if (result.provider_token_revoked === false) {
    await showAlert(t('session.loggedOut'), t('session.tokenKept', { provider }));
  }
}

/** Forgets the account, everything shown for it and everything this device kept for it,
 *  then shows the login scene; `ended`: the server had ended the session, which the login
 *  scene says. */
export function leaveSession({ ended = false } = {}) {
  // The same student logging in again comes back to the class shown (auth.js).
  if (state.account) state.previousKey = state.account.key;
  saveAccount(null);
  forgetClasses();
  clearStudents();
  if (state.travel) state.travel.reset();
  emptyFields();
  go('login');
  showFormMessage('login-error', ended
    ? t('login.sessionEnded')
    : '');
}

/** Nothing typed or shown for the account stays in a field for whoever uses this tab next
 *  (a shared lab computer): every text field of every scene and dialog (login, sign-up, the
 *  pin sheet, search, class forms, the account dialog) is emptied; choices stay as they are. */
function emptyFields() {
  const kept = new Set(['checkbox', 'radio', 'hidden', 'submit', 'button', 'reset', 'range', 'color', 'file', 'image']);
  for (const field of document.querySelectorAll('input, textarea')) {
    if (!kept.has(field.type)) field.value = '';
  }
  for (const id of ['account-name', 'account-email', 'account-avatar']) {
    const node = document.getElementById(id);
    if (node) node.textContent = '';
  }
  const places = document.getElementById('my-places-list');
  if (places) places.replaceChildren();
}

/** Any 401 from our API: the server holds no session for this device (logged out of all
 *  devices, disabled by an administrator, a password reset, expired). */
export function setUpSessionEnd() {
  onSessionRefused(() => {
    if (state.account) leaveSession({ ended: true });
    else dropKeptData();
  });
}
