// Asks the server, while the app is open and can reach it, whether this device's session
// still holds, so that a session ended elsewhere (logging out of all devices, an
// administrator disabling the account, a password reset) takes the account and its kept
// copy off this device before the device goes offline (see keptSession.js). The answer is
// GET /api/auth/me: a 401 ends the session through api.js and session.js.
import { fetchMe } from './api.js';
import { state } from './state.js';
import { leaveSession } from './session.js';
import { startKeptData } from './keptSession.js';

/** While the page is in view, how often the session is checked. */
const CHECK_EVERY_MS = 60 * 1000;
/** At start the map's data goes first; the check follows its markers, or this at the latest. */
const FIRST_CHECK_LATEST_MS = 5000;

let checking = null;
let lastChecked = 0;

/** Asks once (a check under way is joined); resolves when the answer is handled. */
export function checkSession() {
  if (!state.account) return Promise.resolve();
  if (checking) return checking;
  const account = state.account;
  checking = (async () => {
    try {
      const me = await fetchMe();
      lastChecked = Date.now();
      if (state.account !== account) return; // logged out or in meanwhile
      // The cookie holds another account's session (someone logged in from another tab):
      // what this page shows is not that account's.
      if (String(me.key) !== account.key) {
        leaveSession({ ended: true });
        return;
      }
      // Confirmed: its answers may be kept (a device signed in before this app kept any),
      // unless this is a shared computer.
      startKeptData({ fresh: false, shared: Boolean(account.sharedComputer) });
    } catch {
      // A 401 has ended the session already; no answer (offline) or a server error teaches
      // nothing, and what was kept stays shown.
    } finally {
      checking = null;
    }
  })();
  return checking;
}

/** Checks at start, whenever the page comes back into view or online, and every minute
 *  while it is in view. */
export function watchSession() {
  let started = false;
  const first = () => {
    if (started) return;
    started = true;
    checkSession();
  };
  document.addEventListener('onthemap:markers-ready', first, { once: true });
  setTimeout(first, FIRST_CHECK_LATEST_MS);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') checkSession();
  });
  window.addEventListener('online', () => checkSession());
  window.addEventListener('pageshow', (event) => {
    if (event.persisted) checkSession();
  });
  setInterval(() => {
    if (document.visibilityState !== 'visible' || !navigator.onLine) return;
    if (Date.now() - lastChecked >= CHECK_EVERY_MS / 2) checkSession();
  }, CHECK_EVERY_MS);
}
