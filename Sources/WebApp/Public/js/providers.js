// Sign-in with other accounts: the "Continue with …" buttons on the login card, coming back
// signed in (#/signed-in), and the account dialog's list of linked providers.
import * as api from './api.js';
import { state, saveAccount } from './state.js';
import { el, setBusy, formFailureMessage, showFormMessage } from './ui.js';
import { startKeptData } from './keptSession.js';
import { sessionBegan } from './sessionEvents.js';
import { $ } from './dom.js';
import { t, onLanguageChange } from './i18n.js';

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
      href: `/auth/${encodeURIComponent(provider.id)}/start?return=${encodeURIComponent(RETURN_PATH)}`,
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
    sessionBegan();
    await startKeptData({ fresh: !same });
    saveAccount({
      key, firstName: me.first_name || '', lastName: me.last_name || '', email: me.email || '', provider: me.provider || null,
      // /api/auth/me does not say when the session ends; the session cookie's lifetime bounds it.
      expiresAt: same ? state.account.expiresAt || null : null,
    });
    return true;
  } catch (error) {
    showFormMessage('login-error', error.kind === 'auth'
      ? t('providers.error.unfinished')
      : formFailureMessage(error, t('providers.error.failed')));
    return false;
  }
}

/** The account dialog's "Sign-in methods": link or unlink each provider; a password can be set
 *  by an account that has none. */
export class LinkedAccounts {
  constructor() {
    this.section = $('identities-section');
    this.list = $('identities-list');
  }

  async load() {
    showFormMessage('identities-error', '');
    let answer;
    try {
      answer = await api.fetchIdentities();
    } catch (error) {
      this.section.hidden = true;
      return null;
    }
    const identities = Array.isArray(answer.identities) ? answer.identities : [];
    this.section.hidden = identities.length === 0;
    this.list.replaceChildren(...identities.map((identity) => this.row(identity)));
    return answer;
  }

  row(identity) {
    const label = identity.linked
      ? `${identity.name}: linked${identity.email ? ` (${identity.email})` : ''}`
      : `${identity.name}: not linked`;
    const button = el('button', {
      class: `button ${identity.linked ? 'secondary' : 'primary'}`,
      type: 'button',
      dataset: { provider: identity.provider, action: identity.linked ? 'unlink' : 'link' },
      'aria-label': `${identity.linked ? 'Unlink' : 'Link'} ${identity.name}`,
    }, [el('span', { class: 'spinner', 'aria-hidden': 'true' }), el('span', { class: 'button-label' }, [identity.linked ? 'Unlink' : 'Link'])]);
    button.addEventListener('click', () => (identity.linked ? this.unlink(identity, button) : this.link(identity, button)));
    return el('li', { class: 'identity-row' }, [el('span', {}, [label]), button]);
  }

  async link(identity, button) {
    setBusy(button, true, 'Opening…');
    try {
      const location = await api.startLink(identity.provider);
      if (location) window.location.assign(location);
    } catch (error) {
      setBusy(button, false);
      showFormMessage('identities-error', formFailureMessage(error, `Linking ${identity.name} failed.`));
    }
  }

  async unlink(identity, button) {
    setBusy(button, true, 'Unlinking…');
    try {
      await api.unlink(identity.provider);
      if (state.account && state.account.provider === identity.provider) saveAccount({ ...state.account, provider: null });
      await this.load();
      showFormMessage('identities-done', `${identity.name} is no longer linked to your account.`);
    } catch (error) {
      setBusy(button, false);
      showFormMessage('identities-error', error.code === 'last_sign_in_method'
        ? `Set a password first: ${identity.name} is the only way you can sign in.`
        : formFailureMessage(error, `Unlinking ${identity.name} failed.`));
    }
  }
}
