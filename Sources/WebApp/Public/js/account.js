// The account dialog (the person button): who is signed in, a password change that logs
// every other device out, and "Log out of all devices" for a lost or stolen one.
import * as api from './api.js';
import { state } from './state.js';
import { leaveSession } from './session.js';
import { LinkedAccounts } from './providers.js';
import { initials, hueFor, setBusy, showAlert, confirmAction, formFailureMessage, showFormMessage } from './ui.js';
import { $ } from './dom.js';

function passwordChangedMessage(ended) {
  if (ended === 0) return 'Password changed. No other device was signed in.';
  return `Password changed. ${ended} other ${ended === 1 ? 'device was' : 'devices were'} signed out.`;
}

export class AccountDialog {
  constructor() {
    this.dialog = $('account');
    this.current = $('current-password');
    this.next = $('new-password');
    this.passwordButton = $('password-button');
    this.everywhereButton = $('logout-everywhere');
    this.linked = new LinkedAccounts();
    this.hasPassword = true;

    $('account-close').addEventListener('click', () => this.dialog.close());
    $('password-form').addEventListener('submit', (event) => {
      event.preventDefault();
      this.changePassword();
    });
    this.everywhereButton.addEventListener('click', () => this.logOutEverywhere());
  }

  open() {
    const { firstName = '', lastName = '', email = '', key } = state.account;
    const name = `${firstName} ${lastName}`.trim();
    $('account-name').textContent = name || email;
    $('account-email').textContent = name ? email : '';
    const avatar = $('account-avatar');
    avatar.textContent = initials({ firstName, lastName });
    avatar.style.setProperty('--hue', String(hueFor(key)));
    $('password-username').value = email;
    this.current.value = '';
    this.next.value = '';
    for (const id of ['password-error', 'password-done', 'logout-everywhere-error', 'identities-done']) showFormMessage(id, '');
    this.showPasswordForm(true);
    this.dialog.showModal();
    this.linked.load().then((answer) => {
      if (answer) this.showPasswordForm(answer.has_password !== false);
    });
  }

  /** An account made by signing in with a provider has no password yet: it sets one
   *  without a current password. */
  showPasswordForm(hasPassword) {
    this.hasPassword = hasPassword;
    $('current-password-field').hidden = !hasPassword;
    this.current.required = hasPassword;
    $('password-title').textContent = hasPassword ? 'Change password' : 'Set a password';
    const label = this.passwordButton.querySelector('.button-label');
    if (label && !this.passwordButton.classList.contains('busy')) label.textContent = hasPassword ? 'Change Password' : 'Set Password';
    delete this.passwordButton.dataset.idleLabel;
  }

  async changePassword() {
    const current = this.hasPassword ? this.current.value : '';
    const next = this.next.value;
    showFormMessage('password-done', '');
    if ((this.hasPassword && !current) || !next) {
      showFormMessage('password-error', 'Enter your current password and a new one.');
      (current ? this.next : this.current).focus();
      return;
    }
    showFormMessage('password-error', '');
    setBusy(this.passwordButton, true, 'Changing Password…');
    try {
      const ended = await api.changePassword(current, next);
      this.current.value = '';
      this.next.value = '';
      showFormMessage('password-done', this.hasPassword ? passwordChangedMessage(ended) : 'Password set. You can now log in with your email and this password too.');
      if (!this.hasPassword) this.showPasswordForm(true);
    } catch (error) {
      if (error.status === 401) {
        this.sessionEnded('so your password was not changed');
        return;
      }
      // The server words the rules (wrong current password, too short, too long).
      showFormMessage('password-error', formFailureMessage(error, 'Changing your password failed.'));
      if (error.code === 'wrong_password') this.current.select();
      else if (error.kind === 'client') this.next.select();
    } finally {
      setBusy(this.passwordButton, false);
    }
  }

  async logOutEverywhere() {
    showFormMessage('logout-everywhere-error', '');
    const sure = await confirmAction(
      'Log Out of All Devices?',
      'Every phone and computer signed in to this account will be logged out, this one included.',
      'Log Out',
      'Cancel',
    );
    if (!sure) return;
    setBusy(this.everywhereButton, true, 'Logging Out…');
    try {
      await api.logOut({ everywhere: true });
    } catch (error) {
      if (error.status === 401) {
        this.sessionEnded('so other devices were not logged out');
      } else {
        showFormMessage('logout-everywhere-error', formFailureMessage(error, 'Logging out of all devices failed.'));
      }
      return;
    } finally {
      setBusy(this.everywhereButton, false);
    }
    this.dialog.close();
    leaveSession();
  }

  /** This device's session was over already (ended elsewhere, or expired): back to login,
   *  saying what did not happen. */
  sessionEnded(consequence) {
    this.dialog.close();
    leaveSession();
    showAlert('Session Ended', `You had been logged out on this device, ${consequence}. Log in and try again.`);
  }
}
