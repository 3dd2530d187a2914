// The server's word that this device has no session: any 401 from our API. The modules that
// make requests report it here; session.js listens and leaves the signed-in state.

/** Counts the sessions this page started (logins), so that a refusal of a request made
 *  under an earlier session does not end the one started since. */
let epoch = 0;
const listeners = new Set();

/** Which session the page is on; a request notes it before it is sent. */
export function sessionEpoch() {
  return epoch;
}

/** A login (or a provider's sign-in) gave this device a new session. */
export function sessionBegan() {
  epoch += 1;
}

/** Calls `listener()` whenever the server refuses the page's current session. */
export function onSessionRefused(listener) {
  listeners.add(listener);
}

/** A request sent during session `sentDuring` (sessionEpoch()) was answered 401. */
export function sessionRefused(sentDuring) {
  if (sentDuring !== epoch) return;
  for (const listener of listeners) listener();
}
