// What the scenes share: who is signed in, the current tab, and the views built so far.
import { fetchConfig, fetchWorld } from './api.js';

const ACCOUNT_STORAGE = 'onthemap.account';

export const state = {
  account: loadAccount(),
  configPromise: fetchConfig(),
  worldPromise: null,
  map: null,
  list: null,
  search: null,
  travel: null,
  tab: 'map',
  /** The refresh under way (a promise), so a second one joins it. */
  refreshing: null,
};

// The account is kept between page loads because the session cookie itself is HttpOnly:
// the page cannot read it to know it is signed in.

function loadAccount() {
  try {
    const account = JSON.parse(localStorage.getItem(ACCOUNT_STORAGE) || 'null');
    return account && typeof account.key === 'string' ? account : null;
  } catch {
    return null;
  }
}

/** Remembers `account` (`{ key, firstName, lastName, email }`), or forgets it with null. */
export function saveAccount(account) {
  state.account = account;
  if (account) localStorage.setItem(ACCOUNT_STORAGE, JSON.stringify(account));
  else localStorage.removeItem(ACCOUNT_STORAGE);
}

/** The country outlines, downloaded once for every map that draws them. */
export function loadWorld() {
  if (!state.worldPromise) state.worldPromise = fetchWorld();
  return state.worldPromise;
}
