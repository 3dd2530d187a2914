// The login and sign-up scene: three forms on one card, #/login, #/signup and #/forgot (a
// "Forgot password?" link: an email with a reset link, when the server has email set up).
import * as api from './api.js';
import { state, saveAccount } from './state.js';
import { go } from './router.js';
import { setBusy, formFailureMessage, tooManyMessage } from './ui.js';
import { showingSignedIn } from './connection.js';
import { startKeptData } from './keptSession.js';
import { sharedComputerChosen, setUpSharedComputerChoice } from './sharedComputer.js';
import { sessionBegan } from './sessionEvents.js';
import { classAddress } from './currentClass.js';
import { takeAfterSignIn } from './classPages.js';
import { $ } from './dom.js';
import { t, onLanguageChange, setLanguage, translateDocument, fillLanguageChoice } from './i18n.js';
import { showTranslatedMessage } from './formMessages.js';
import { followAccountLanguage } from './accountLanguage.js';

export function showLogin(form) {
  showingSignedIn(false);
  const focused = document.activeElement;
  const fromScene = focused && ($('main-scene').contains(focused) || $('class-scene').contains(focused));
  $('main-scene').hidden = true;
  $('class-scene').hidden = true;
  $('login-scene').hidden = false;
  const shown = form === 'signup' || form === 'forgot' ? form : 'login';
  const switching = $(`${shown}-form`).hidden;
  $('login-form').hidden = shown !== 'login';
  $('signup-form').hidden = shown !== 'signup';
  $('forgot-form').hidden = shown !== 'forgot';
  $('shared-computer-choice').hidden = shown === 'forgot';
  showLoginTitle();
  const first = { login: 'login-email', signup: 'signup-first', forgot: 'forgot-email' }[shown];
  // Focus left on the now hidden tabs (after a logout) counts as none, and so does focus on
  // the link that switched forms (now hidden with its form).
  const fromForm = focused && $('login-scene').contains(focused) && focused.closest('form')?.hidden;
  if (!focused || focused === document.body || fromScene || fromForm) $(first).focus();
  if (shown === 'forgot' && switching) {
    showTranslatedMessage('forgot-error', '');
    showTranslatedMessage('forgot-sent', '');
    if (!$('forgot-email').value) $('forgot-email').value = $('login-email').value.trim();
  }
}

function showLoginTitle() {
  if (!$('signup-form').hidden) document.title = t('signup.pageTitle');
  else if (!$('forgot-form').hidden) document.title = t('forgot.pageTitle');
  else document.title = t('login.pageTitle');
}

function loginFailureMessage(error) {
  if (error.status === 429) return tooManyMessage(error, 'login.error.tooMany');
  return error.kind === 'auth' ? t('login.error.wrong') : formFailureMessage(error, t('login.error.failed'));
}

async function completeLogin(email, password) {
  // "This is a shared computer": the session's cookies end with the browser, nothing is kept.
  const sharedComputer = sharedComputerChosen();
  const { key, expiresAt } = await api.logIn(email, password, { sharedComputer });
  sessionBegan();
  // Whatever this device kept before belongs to another session (a student who never
  // logged out here, say): deleted before this account's answers are kept.
  await startKeptData({ fresh: true, shared: sharedComputer });
  let user = { key, firstName: '', lastName: '' };
  try {
    user = await api.fetchUser(key);
  } catch {
    // The names only label our own location; logging in still worked.
  }
  saveAccount({
    key, firstName: user.firstName, lastName: user.lastName, email, provider: null, expiresAt, sharedComputer,
  });
  // The account's language, when it has one, wins over this browser's (and the login card's).
  await followAccountLanguage();
}

/** A button back from its busy state, its label in the page's language. */
function idle(button) {
  setBusy(button, false);
  translateDocument(button);
}

function setUpLoginForm() {
  $('login-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const email = $('login-email').value.trim();
    const password = $('login-password').value;
    if (!email || !password) {
      showTranslatedMessage('login-error', () => t('login.error.missing'));
      (email ? $('login-password') : $('login-email')).focus();
      return;
    }
    showTranslatedMessage('login-error', '');
    const button = $('login-button');
    setBusy(button, true, t('login.busy'));
    try {
      const before = state.previousKey;
      await completeLogin(email, password);
      $('login-password').value = '';
      // Where the student was going (an invitation, a class), else back to the tab shown
      // before logging out: in the same class for the same student.
      go(takeAfterSignIn() || (state.account.key === before ? classAddress(state.tab) : state.tab));
    } catch (error) {
      showTranslatedMessage('login-error', () => loginFailureMessage(error));
      if (error.kind === 'auth') $('login-password').select();
    } finally {
      idle(button);
    }
  });
}

/** "Forgot password?": always the same answer whether or not an account has the address
 *  (the server's rule), said in a live region; why not when the server cannot send email. */
function forgotFailureMessage(error) {
  if (error.code === 'email_not_set_up') return t('forgot.error.notSetUp');
  if (error.status === 429) return t('forgot.error.tooMany');
  if (error.code === 'invalid_email') return t('forgot.error.invalid');
  return formFailureMessage(error, t('forgot.error.failed'));
}

function setUpForgotForm() {
  $('forgot-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const email = $('forgot-email').value.trim();
    showTranslatedMessage('forgot-sent', '');
    if (!email) {
      showTranslatedMessage('forgot-error', () => t('forgot.error.missing'));
      $('forgot-email').focus();
      return;
    }
    showTranslatedMessage('forgot-error', '');
    const button = $('forgot-button');
    setBusy(button, true, t('forgot.busy'));
    try {
      await api.requestPasswordReset(email);
      showTranslatedMessage('forgot-sent', () => t('forgot.sent'));
    } catch (error) {
      showTranslatedMessage('forgot-error', () => forgotFailureMessage(error));
    } finally {
      idle(button);
    }
  });
}

function setUpSignupForm() {
  $('signup-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const firstName = $('signup-first').value.trim();
    const lastName = $('signup-last').value.trim();
    const email = $('signup-email').value.trim();
    const password = $('signup-password').value;
    if (!firstName || !lastName || !email || !password) {
      showTranslatedMessage('signup-error', () => t('signup.error.missing'));
      return;
    }
    showTranslatedMessage('signup-error', '');
    const button = $('signup-button');
    setBusy(button, true, t('signup.busy'));
    try {
      await api.signUp({ email, password, firstName, lastName });
    } catch (error) {
      idle(button);
      showTranslatedMessage('signup-error', () => (error.code === 'email_taken' || error.status === 409
        ? t('signup.error.taken')
        : formFailureMessage(error, t('signup.error.failed'))));
      return;
    }
    try {
      setBusy(button, true, t('login.busy'));
      await completeLogin(email, password);
      $('signup-password').value = '';
      $('login-email').value = email;
      go(takeAfterSignIn() || 'map');
    } catch (error) {
      showTranslatedMessage('signup-error', () => t('signup.error.loginAfter', { reason: loginFailureMessage(error) }));
    } finally {
      idle(button);
    }
  });
}

export function setUpAuthForms() {
  setUpSharedComputerChoice();
  setUpLoginForm();
  setUpSignupForm();
  setUpForgotForm();
  setUpLanguageChoice();
  $('show-signup').addEventListener('click', (event) => {
    event.preventDefault();
    showTranslatedMessage('signup-error', '');
    go('signup');
  });
  $('show-login').addEventListener('click', (event) => {
    event.preventDefault();
    showTranslatedMessage('login-error', '');
    go('login');
  });
  $('show-forgot').addEventListener('click', (event) => {
    event.preventDefault();
    showTranslatedMessage('login-error', '');
    go('forgot');
  });
  $('forgot-back').addEventListener('click', (event) => {
    event.preventDefault();
    go('login');
  });
}

/** The login card's language choice: each language by its own name; the choice is kept on
 *  this device and the page re-translated at once (js/i18n.js). */
function setUpLanguageChoice() {
  fillLanguageChoice($('language-select'), (tag) => { setLanguage(tag); });
  onLanguageChange(() => {
    if (!$('login-scene').hidden) showLoginTitle();
  });
}
