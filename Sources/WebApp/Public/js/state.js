// What the scenes share: who is signed in, the current tab, and the views built so far.
import { fetchConfig, fetchWorld } from './api.js';
import { loadKeptAccount, keepAccount } from './keptSession.js';

export const state = {
  account: loadKeptAccount(),
  configPromise: fetchConfig(),
  worldPromise: null,
  map: null,
  list: null,
  search: null,
  travel: null,
  tab: 'map',
  /** The refresh under way (a promise), so a second one joins it. */
  refreshing: null,
  /** Who was signed in before the last logout (auth.js returns them to their class). */
  previousKey: null,
};

// The account is kept between page loads because the session cookie itself is HttpOnly:
// the page cannot read it to know it is signed in (keptSession.js says when a kept one counts).

/** Remembers `account` (`{ key, firstName, lastName, email, provider, expiresAt }`), or with
 *  null forgets it and everything kept for it on this device. */
export function saveAccount(account) {
  state.account = account;
  keepAccount(account);
}

/** The country outlines, downloaded once for every map that draws them. */
export function loadWorld() {
  if (!state.worldPromise) state.worldPromise = fetchWorld();
  return state.worldPromise;
}
