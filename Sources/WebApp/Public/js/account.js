// The account dialog (the person button): who is signed in, a password change that logs
// every other device out, "Log out of all devices" for a lost or stolen one, and the
// student's own data: a download of all of it, and deleting the account (a second step of
// the dialog, confirmed with the password).
import * as api from './api.js';
import { state } from './state.js';
import { leaveSession } from './session.js';
import { LinkedAccounts } from './providers.js';
import { el, initials, hueFor, setBusy, showAlert, confirmAction, formFailureMessage, showFormMessage } from './ui.js';
import { $ } from './dom.js';

/** The file "Download My Data" saves (the server's Content-Disposition names it the same). */
export const MY_DATA_FILE = 'onthemap-my-data.json';

/** Shown on the login screen once the account is gone. */
const DELETED_NOTE = 'Your account was deleted, and everything this server held about you with it.';

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

    this.downloadButton = $('download-data');
    this.downloadButton.addEventListener('click', () => this.downloadData());
    this.body = this.dialog.querySelector('.account-body');
    this.deleteForm = $('delete-form');
    this.deleteButton = $('delete-account');
    this.deletePassword = $('delete-password');
    this.confirmDeleteButton = $('delete-confirm');
    this.deleteButton.addEventListener('click', () => this.showDeleteStep(true));
    $('delete-cancel').addEventListener('click', () => this.showDeleteStep(false));
    $('delete-sign-in-again').addEventListener('click', () => this.signInAgain());
    this.deleteForm.addEventListener('submit', (event) => {
      event.preventDefault();
      this.deleteAccount();
    });
    // Closed from the delete step (Close, Escape), the dialog opens on its first step next time.
    this.dialog.addEventListener('close', () => this.showDeleteStep(false, { focus: false }));
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
    $('delete-username').value = email;
    for (const id of ['password-error', 'password-done', 'logout-everywhere-error', 'identities-done',
      'download-data-error', 'download-data-done']) showFormMessage(id, '');
    this.showDeleteStep(false, { focus: false });
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
    // Deleting an account without a password is confirmed by a recent sign-in instead.
    $('delete-password-field').hidden = !hasPassword;
    this.deletePassword.required = hasPassword;
    $('delete-no-password').hidden = hasPassword;
    this.showDeletePassword();
  }

  /** The delete step's password field is there only while the step shows and asks for it. */
  showDeletePassword() {
    this.deletePassword.hidden = this.deleteForm.hidden || !this.hasPassword;
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

  /** Saves everything the server holds about the account as one JSON file. Fetched through
   *  api.request (not a plain link to the route) so that a failure is said here rather than
   *  saved as the file. */
  async downloadData() {
    showFormMessage('download-data-error', '');
    showFormMessage('download-data-done', '');
    setBusy(this.downloadButton, true, 'Preparing Your Data…');
    let data;
    try {
      data = await api.request('/api/account/data');
    } catch (error) {
      if (error.status === 401) {
        this.sessionEnded('so your data was not downloaded');
        return;
      }
      showFormMessage('download-data-error', formFailureMessage(error, 'Downloading your data failed.'));
      return;
    } finally {
      setBusy(this.downloadButton, false);
    }
    const blob = new Blob([JSON.stringify(data, null, 2) + '\n'], { type: 'application/json' });
    const url = URL.createObjectURL(blob);
    const link = el('a', { href: url, download: MY_DATA_FILE, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    // The browser has started saving it; the address is only needed until then.
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    showFormMessage('download-data-done', `Your data was downloaded as ${MY_DATA_FILE}.`);
  }

  /** Shows the dialog's delete step (true) or its first step again (false); the focus goes to
   *  the step's heading, and back to "Delete My Account…". */
  showDeleteStep(show, { focus = true } = {}) {
    if (show === !this.deleteForm.hidden) return;
    this.body.hidden = show;
    this.deleteForm.hidden = !show;
    this.showDeletePassword();
    this.deletePassword.value = '';
    showFormMessage('delete-error', '');
    $('delete-sign-in-again').hidden = true;
    this.confirmDeleteButton.hidden = false;
    if (!focus) return;
    if (show) {
      this.deleteForm.scrollTop = 0;
      $('delete-title').focus();
    } else {
      this.deleteButton.focus();
    }
  }

  async deleteAccount() {
    const password = this.hasPassword ? this.deletePassword.value : '';
    if (this.hasPassword && !password) {
      showFormMessage('delete-error', 'Enter your password to delete your account.');
      this.deletePassword.focus();
      return;
    }
    showFormMessage('delete-error', '');
    setBusy(this.confirmDeleteButton, true, 'Deleting Your Account…');
    try {
      await api.request('/api/account/delete', { method: 'POST', body: { password } });
    } catch (error) {
      setBusy(this.confirmDeleteButton, false);
      this.deleteRefused(error);
      return;
    }
    setBusy(this.confirmDeleteButton, false);
    // The server ended the session and cleared its cookies: this device forgets the account
    // and everything it kept for it, and the login screen says what happened.
    this.dialog.close();
    leaveSession();
    // Nothing on the login form names the account any more (after signing up it held its email).
    $('login-email').value = '';
    $('login-password').value = '';
    showFormMessage('login-note', DELETED_NOTE);
  }

  /** Says why the account was not deleted, and what to do. */
  deleteRefused(error) {
    if (error.status === 401) {
      this.sessionEnded('so your account was not deleted');
      return;
    }
    let message;
    switch (error.code) {
      case 'wrong_password':
        message = 'That password is not right. Nothing was deleted.';
        break;
      case 'sign_in_again':
        // An account without a password: only a fresh sign-in confirms it is its owner.
        message = 'For your safety, sign in again first, then delete your account within ten minutes. Nothing was deleted.';
        this.confirmDeleteButton.hidden = true;
        $('delete-sign-in-again').hidden = false;
        break;
      case 'last_administrator':
        message = 'You are the last administrator of this server: make another account an administrator first. Nothing was deleted.';
        break;
      case 'rate_limited':
        // Too many wrong passwords: the server says how long to wait.
        message = `${error.message} Nothing was deleted.`;
        break;
      default:
        message = formFailureMessage(error, 'Deleting your account failed.');
    }
    showFormMessage('delete-error', message);
    if (error.code === 'sign_in_again') $('delete-sign-in-again').focus();
    else if (error.code === 'wrong_password') this.deletePassword.select();
  }

  /** "Log Out to Sign In Again": ends this session, then the login screen says what to do. */
  async signInAgain() {
    const viaProvider = Boolean(state.account && state.account.provider);
    try {
      if (viaProvider) await api.endSession();
      else await api.logOut();
    } catch {
      // Leaving works either way; the server forgets the session when it expires.
    }
    this.dialog.close();
    leaveSession();
    showFormMessage('login-note', 'Sign in again, then open Account and choose Delete My Account within ten minutes.');
  }

  /** This device's session was over already (ended elsewhere, or expired): back to login,
   *  saying what did not happen. */
  sessionEnded(consequence) {
    this.dialog.close();
    leaveSession();
    showAlert('Session Ended', `You had been logged out on this device, ${consequence}. Log in and try again.`);
  }
}
