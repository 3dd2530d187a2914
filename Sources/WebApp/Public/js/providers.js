// Sign-in with other accounts: the "Continue with …" buttons on the login card, coming back
// signed in (#/signed-in), and the account dialog's list of linked providers.
import * as api from './api.js';
import { state, saveAccount } from './state.js';
import { el, setBusy, formFailureMessage } from './ui.js';
import { startKeptData } from './keptSession.js';
import { withSharedChoice, onSharedComputerChange, notePendingChoice, pendingChoice } from './sharedComputer.js';
import { sessionBegan } from './sessionEvents.js';
import { $ } from './dom.js';
import { t, onLanguageChange } from './i18n.js';
import { showTranslatedMessage } from './formMessages.js';
import { followAccountLanguage } from './accountLanguage.js';
import { isolated } from './bidi.js';

/** Where a provider sends the browser back: the app then asks who signed in. */
export const RETURN_PATH = '/#/signed-in';

/** Draws one button per provider the server offers; nothing when it offers none. */
export async function showProviderButtons() {
  const box = $('provider-buttons');
  if (!box.dataset.translated) {
    box.dataset.translated = 'true';
    onLanguageChange(() => {
      for (const link of box.querySelectorAll('[data-provider-name]')) link.textContent = continueWith(link.dataset.providerName);
    });
    // "This is a shared computer" goes with the sign-in (the server's `shared=1`).
    onSharedComputerChange((chosen) => {
      for (const link of box.querySelectorAll('.provider-button')) link.setAttribute('href', withSharedChoice(link.getAttribute('href'), chosen));
    });
    box.addEventListener('click', (event) => {
      if (event.target.closest('.provider-button')) notePendingChoice();
    });
  }
  let providers = [];
  try {
    providers = await api.fetchProviders();
  } catch {
    // Offline or an old server: the email and password form still works.
  }
  const list = $('provider-list');
  list.replaceChildren(...providers.map((provider) => el('li', {}, [
    el('a', {
      class: 'button secondary wide provider-button',
      href: withSharedChoice(`/auth/${encodeURIComponent(provider.id)}/start?return=${encodeURIComponent(RETURN_PATH)}`),
      dataset: { provider: provider.id, providerName: provider.name },
    }, [continueWith(provider.name)]),
  ])));
  box.hidden = providers.length === 0;
  box.dataset.loaded = 'true';
}

function continueWith(name) {
  return t('providers.continueWith', { provider: name });
}

/** Back from a provider: learns whose session the cookie holds. Resolves to true when signed in. */
export async function completeProviderSignIn() {
  try {
    const me = await api.fetchMe();
    const key = String(me.key);
    // Back from linking a provider the account is the same one, and what was kept stays.
    const same = Boolean(state.account && state.account.key === key);
    // The choice made when the button was followed ("This is a shared computer"); linking
    // keeps the session's own.
    const chosen = await pendingChoice();
    const sharedComputer = same ? Boolean(state.account.sharedComputer) : chosen;
    sessionBegan();
    await startKeptData({ fresh: !same, shared: sharedComputer });
    saveAccount({
      key, firstName: me.first_name || '', lastName: me.last_name || '', email: me.email || '', provider: me.provider || null,
      // /api/auth/me does not say when the session ends; the session cookie's lifetime bounds it.
      expiresAt: same ? state.account.expiresAt || null : null,
      sharedComputer,
    });
  } catch (error) {
    showTranslatedMessage('login-error', () => (error.kind === 'auth'
      ? t('providers.error.unfinished')
      : formFailureMessage(error, t('providers.error.failed'))));
    return false;
  }
  // The account's language, when it has one, wins over this browser's.
  await followAccountLanguage();
  return true;
}

/** The account dialog's "Sign-in methods": link or unlink each provider; a password can be set
 *  by an account that has none. */
export class LinkedAccounts {
  constructor() {
    this.section = $('identities-section');
    this.list = $('identities-list');
    /** The identities last shown: their rows are drawn again in a new language. */
    this.identities = [];
    onLanguageChange(() => {
      if (!this.section.hidden && !this.list.querySelector('.busy')) this.draw();
    });
  }

  draw() {
    this.list.replaceChildren(...this.identities.map((identity) => this.row(identity)));
  }

  async load() {
    showTranslatedMessage('identities-error', '');
    let answer;
    try {
      answer = await api.fetchIdentities();
    } catch (error) {
      this.section.hidden = true;
      return null;
    }
    this.identities = Array.isArray(answer.identities) ? answer.identities : [];
    this.section.hidden = this.identities.length === 0;
    this.draw();
    return answer;
  }

  row(identity) {
    const provider = identity.name;
    const label = identity.linked
      // The email is isolated (bidi.js): its letters never reorder the sentence around it.
      ? (identity.email ? t('providers.linkedAs', { provider, email: isolated(identity.email) }) : t('providers.linked', { provider }))
      : t('providers.notLinked', { provider });
    const button = el('button', {
      class: `button ${identity.linked ? 'secondary' : 'primary'}`,
      type: 'button',
      dataset: { provider: identity.provider, action: identity.linked ? 'unlink' : 'link' },
      'aria-label': identity.linked ? t('providers.unlinkLabel', { provider }) : t('providers.linkLabel', { provider }),
    }, [el('span', { class: 'spinner', 'aria-hidden': 'true' }),
      el('span', { class: 'button-label' }, [identity.linked ? t('providers.unlink') : t('providers.link')])]);
    button.addEventListener('click', () => (identity.linked ? this.unlink(identity, button) : this.link(identity, button)));
    return el('li', { class: 'identity-row' }, [el('span', {}, [label]), button]);
  }

  async link(identity, button) {
    setBusy(button, true, t('providers.opening'));
    try {
      const location = await api.startLink(identity.provider);
      if (location) window.location.assign(location);
    } catch (error) {
      setBusy(button, false);
      showTranslatedMessage('identities-error', () => formFailureMessage(error, t('providers.error.link', { provider: identity.name })));
    }
  }

  async unlink(identity, button) {
    setBusy(button, true, t('providers.unlinking'));
    const provider = identity.name;
    try {
      await api.unlink(identity.provider);
      if (state.account && state.account.provider === identity.provider) saveAccount({ ...state.account, provider: null });
      await this.load();
      showTranslatedMessage('identities-done', () => t('providers.unlinked', { provider }));
    } catch (error) {
      setBusy(button, false);
      showTranslatedMessage('identities-error', () => (error.code === 'last_sign_in_method'
        ? t('providers.error.lastMethod', { provider })
        : formFailureMessage(error, t('providers.error.unlink', { provider }))));
    }
  }
}
