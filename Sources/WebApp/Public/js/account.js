// The account dialog (the person button): who is signed in, the language kept with the
// account, a password change that logs every other device out, "Log out of all devices" for
// a lost or stolen one, and the student's own data: a download of all of it, and deleting
// the account (a second step of the dialog, confirmed with the password).
import * as api from './api.js';
import { state, saveAccount } from './state.js';
import { leaveSession } from './session.js';
import { LinkedAccounts } from './providers.js';
import { el, initials, hueFor, setBusy, showAlert, confirmAction, formFailureMessage } from './ui.js';
import { $ } from './dom.js';
import { t, language, setLanguage, onLanguageChange, translateDocument, fillLanguageChoice } from './i18n.js';
import { showTranslatedMessage } from './formMessages.js';
import { saveAccountLanguage } from './accountLanguage.js';
import { MyPlaces } from './myPin.js';
import { refreshAll } from './students.js';

/** The file "Download My Data" saves (the server's Content-Disposition names it the same): a
 *  zip of a page to read, the JSON and GeoJSON for programs, and the Travel photos. */
export const MY_DATA_FILE = 'onthemap-my-data.zip';

/** A button back from its busy state, its label in the page's language (which may have
 *  changed meanwhile). */
function idle(button) {
  setBusy(button, false);
  translateDocument(button);
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
    this.setUpLanguage();
    onLanguageChange(() => this.showPasswordTexts());

    $('account-close').addEventListener('click', () => this.dialog.close());
    $('password-form').addEventListener('submit', (event) => {
      event.preventDefault();
      this.changePassword();
    });
    this.everywhereButton.addEventListener('click', () => this.logOutEverywhere());

    this.nameButton = $('name-button');
    $('name-form').addEventListener('submit', (event) => {
      event.preventDefault();
      this.changeName();
    });
    this.places = new MyPlaces($('my-places-list'), $('my-places-status'));

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
    const { firstName = '', lastName = '', email = '' } = state.account;
    this.showWho();
    $('account-first-name').value = firstName;
    $('account-last-name').value = lastName;
    $('password-username').value = email;
    this.current.value = '';
    this.next.value = '';
    $('delete-username').value = email;
    for (const id of ['password-error', 'password-done', 'logout-everywhere-error', 'identities-done',
      'download-data-error', 'download-data-done', 'account-language-error', 'name-error', 'name-done']) showTranslatedMessage(id, '');
    $('account-language').value = language();
    this.showDeleteStep(false, { focus: false });
    this.showPasswordForm(true);
    this.dialog.showModal();
    this.places.load();
    this.linked.load().then((answer) => {
      if (answer) this.showPasswordForm(answer.has_password !== false);
    });
  }

  /** Who is signed in, at the dialog's top. */
  showWho() {
    const { firstName = '', lastName = '', email = '', key } = state.account;
    const name = `${firstName} ${lastName}`.trim();
    $('account-name').textContent = name || email;
    $('account-email').textContent = name ? email : '';
    const avatar = $('account-avatar');
    avatar.textContent = initials({ firstName, lastName });
    avatar.style.setProperty('--hue', String(hueFor(key)));
  }

  /** "My name": the account and every post of theirs take the new name (the server checks it
   *  as at sign-up); the map and lists show it once loaded again. */
  async changeName() {
    const first = $('account-first-name');
    const last = $('account-last-name');
    showTranslatedMessage('name-done', '');
    if (!first.value.trim() || !last.value.trim()) {
      showTranslatedMessage('name-error', () => t('mine.name.error.missing'));
      (first.value.trim() ? last : first).focus();
      return;
    }
    showTranslatedMessage('name-error', '');
    setBusy(this.nameButton, true, t('mine.name.busy'));
    let answer;
    try {
      answer = await api.renameAccount(first.value, last.value);
    } catch (error) {
      if (error.status === 401) {
        this.sessionEnded(t('mine.name.sessionEnded'));
        return;
      }
      // The server words the rules (length, one line, no control or direction characters).
      showTranslatedMessage('name-error', () => formFailureMessage(error, t('mine.name.error.failed')));
      return;
    } finally {
      idle(this.nameButton);
    }
    const firstName = String(answer && answer.first_name || first.value.trim());
    const lastName = String(answer && answer.last_name || last.value.trim());
    if (!state.account) return;
    saveAccount({ ...state.account, firstName, lastName });
    first.value = firstName;
    last.value = lastName;
    this.showWho();
    showTranslatedMessage('name-done', () => t('mine.name.saved'));
    if (!$('main-scene').hidden) refreshAll();
  }

  /** The language choice: each language by its own name (as on the login card). A choice
   *  applies at once on this device and is kept with the account; should keeping it fail,
   *  the dialog says so and the device keeps the choice. */
  setUpLanguage() {
    fillLanguageChoice($('account-language'), (tag) => this.chooseLanguage(tag));
  }

  async chooseLanguage(tag) {
    showTranslatedMessage('account-language-error', '');
    const saving = saveAccountLanguage(tag);
    saving.catch(() => {}); // said below, once the page is in the new language
    try {
      await setLanguage(tag);
    } catch (error) {
      console.warn(`i18n: ${tag}: ${error.message}`); // its catalogue could not be loaded: the page stays as it is
    }
    try {
      await saving;
    } catch (error) {
      // A 401 has ended the session already (session.js); nothing more to say here.
      if (error.status !== 401) showTranslatedMessage('account-language-error', () => t('account.language.error.notSaved'));
    }
  }

  /** An account made by signing in with a provider has no password yet: it sets one
   *  without a current password. */
  showPasswordForm(hasPassword) {
    this.hasPassword = hasPassword;
    $('current-password-field').hidden = !hasPassword;
    this.current.required = hasPassword;
    delete this.passwordButton.dataset.idleLabel;
    this.showPasswordTexts();
    // Deleting an account without a password is confirmed by a recent sign-in instead.
    $('delete-password-field').hidden = !hasPassword;
    this.deletePassword.required = hasPassword;
    $('delete-no-password').hidden = hasPassword;
    this.showDeletePassword();
  }

  /** The password form's title and button: changing a password, or setting a first one. */
  showPasswordTexts() {
    $('password-title').textContent = this.hasPassword ? t('account.password.changeTitle') : t('account.password.setTitle');
    const label = this.passwordButton.querySelector('.button-label');
    if (label && !this.passwordButton.classList.contains('busy')) {
      label.textContent = this.hasPassword ? t('account.password.changeButton') : t('account.password.setButton');
    }
  }

  /** The delete step's password field is there only while the step shows and asks for it. */
  showDeletePassword() {
    this.deletePassword.hidden = this.deleteForm.hidden || !this.hasPassword;
  }

  async changePassword() {
    const current = this.hasPassword ? this.current.value : '';
    const next = this.next.value;
    showTranslatedMessage('password-done', '');
    if ((this.hasPassword && !current) || !next) {
      showTranslatedMessage('password-error', () => t('account.password.error.missing'));
      (current ? this.next : this.current).focus();
      return;
    }
    showTranslatedMessage('password-error', '');
    setBusy(this.passwordButton, true, t('account.password.busy'));
    try {
      const ended = await api.changePassword(current, next);
      this.current.value = '';
      this.next.value = '';
      showTranslatedMessage('password-done', this.hasPassword
        ? () => t('account.password.changed', { count: ended })
        : () => t('account.password.set'));
      if (!this.hasPassword) this.showPasswordForm(true);
    } catch (error) {
      if (error.status === 401) {
        this.sessionEnded(t('account.sessionEnded.password'));
        return;
      }
      // The server words the rules (wrong current password, too short, too long).
      showTranslatedMessage('password-error', () => formFailureMessage(error, t('account.password.error.failed')));
      if (error.code === 'wrong_password') this.current.select();
      else if (error.kind === 'client') this.next.select();
    } finally {
      setBusy(this.passwordButton, false);
      this.showPasswordTexts();
    }
  }

  async logOutEverywhere() {
    showTranslatedMessage('logout-everywhere-error', '');
    const sure = await confirmAction(
      t('account.devices.confirmTitle'),
      t('account.devices.confirmMessage'),
      t('account.devices.confirmButton'),
      t('common.cancel'),
    );
    if (!sure) return;
    setBusy(this.everywhereButton, true, t('account.devices.busy'));
    try {
      await api.logOut({ everywhere: true });
    } catch (error) {
      if (error.status === 401) {
        this.sessionEnded(t('account.sessionEnded.devices'));
      } else {
        showTranslatedMessage('logout-everywhere-error', () => formFailureMessage(error, t('account.devices.error.failed')));
      }
      return;
    } finally {
      idle(this.everywhereButton);
    }
    this.dialog.close();
    leaveSession();
  }

  /** Saves everything the server holds about the account as one zip. Fetched by the script
   *  (not a plain link to the route) so that a failure is said here rather than saved as the
   *  file. */
  async downloadData() {
    showTranslatedMessage('download-data-error', '');
    showTranslatedMessage('download-data-done', '');
    setBusy(this.downloadButton, true, t('myData.busy'));
    let data;
    try {
      data = await api.downloadMyData();
    } catch (error) {
      if (error.status === 401) {
        this.sessionEnded(t('myData.sessionEnded.download'));
        return;
      }
      showTranslatedMessage('download-data-error', () => formFailureMessage(error, t('myData.error.failed')));
      return;
    } finally {
      idle(this.downloadButton);
    }
    const url = URL.createObjectURL(data);
    const link = el('a', { href: url, download: MY_DATA_FILE, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    // The browser has started saving it; the address is only needed until then.
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    showTranslatedMessage('download-data-done', () => t('myData.downloaded', { file: MY_DATA_FILE }));
  }

  /** Shows the dialog's delete step (true) or its first step again (false); the focus goes to
   *  the step's heading, and back to "Delete My Account…". */
  showDeleteStep(show, { focus = true } = {}) {
    if (show === !this.deleteForm.hidden) return;
    this.body.hidden = show;
    this.deleteForm.hidden = !show;
    this.showDeletePassword();
    this.deletePassword.value = '';
    showTranslatedMessage('delete-error', '');
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
      showTranslatedMessage('delete-error', () => t('myData.error.missingPassword'));
      this.deletePassword.focus();
      return;
    }
    showTranslatedMessage('delete-error', '');
    setBusy(this.confirmDeleteButton, true, t('myData.confirm.busy'));
    try {
      await api.request('/api/account/delete', { method: 'POST', body: { password } });
    } catch (error) {
      idle(this.confirmDeleteButton);
      this.deleteRefused(error);
      return;
    }
    idle(this.confirmDeleteButton);
    // The server ended the session and cleared its cookies: this device forgets the account
    // and everything it kept for it, and the login screen says what happened.
    this.dialog.close();
    leaveSession();
    // Nothing on the login form names the account any more (after signing up it held its email).
    $('login-email').value = '';
    $('login-password').value = '';
    showTranslatedMessage('login-note', () => t('myData.deleted'));
  }

  /** Says why the account was not deleted, and what to do. */
  deleteRefused(error) {
    if (error.status === 401) {
      this.sessionEnded(t('myData.sessionEnded.delete'));
      return;
    }
    let message;
    switch (error.code) {
      case 'wrong_password':
        message = () => t('myData.error.wrongPassword');
        break;
      case 'sign_in_again':
        // An account without a password: only a fresh sign-in confirms it is its owner.
        message = () => t('myData.error.signInAgain');
        this.confirmDeleteButton.hidden = true;
        $('delete-sign-in-again').hidden = false;
        break;
      case 'last_administrator':
        message = () => t('myData.error.lastAdministrator');
        break;
      case 'rate_limited':
        // Too many wrong passwords: the server says how long to wait (in the page's language).
        message = () => t('myData.error.rateLimited', { reason: error.message });
        break;
      default:
        message = () => formFailureMessage(error, t('myData.error.deleteFailed'));
    }
    showTranslatedMessage('delete-error', message);
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
    showTranslatedMessage('login-note', () => t('myData.signInAgainNote'));
  }

  /** This device's session was over already (ended elsewhere, or expired): back to login,
   *  saying what did not happen (`message`). */
  sessionEnded(message) {
    this.dialog.close();
    leaveSession();
    showAlert(t('account.sessionEnded.title'), message);
  }
}
