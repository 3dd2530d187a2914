// "This is a shared computer" on the login card: it applies to logging in, signing up and the
// other accounts' buttons. Chosen, the server gives the session browser-session cookies (they
// end when the browser closes: `shared_computer` in the login body, `shared=1` on a provider's
// start), and the page keeps nothing of the account on this computer (keptSession.js: no data
// cache, and the account record in this tab's sessionStorage only).
//
// The box starts ticked when the host runs the server with --shared-computers (/config.json's
// `sharedComputers`), or when this browser last ticked it: only the ticked choice is
// remembered, and it is not account data, so remembering it can only keep less.
import { fetchConfig } from './api.js';

const REMEMBERED = 'onthemap.sharedComputer';
/** The choice made when a provider's button was followed, read back on arrival (#/signed-in). */
const PENDING = 'onthemap.sharedComputer.pending';

const listeners = new Set();
let ready = null;

function box() {
  return document.getElementById('shared-computer');
}

function remembered() {
  try { return localStorage.getItem(REMEMBERED) === '1'; } catch { return false; }
}

function remember(chosen) {
  try {
    if (chosen) localStorage.setItem(REMEMBERED, '1');
    else localStorage.removeItem(REMEMBERED);
  } catch {
    // Private mode: the box starts unticked next time, unless the host says otherwise.
  }
}

/** Sets the box up: its first state, and remembering a change. Resolves once the server's
 *  default is known (or could not be learnt). */
export function setUpSharedComputerChoice() {
  if (ready) return ready;
  const input = box();
  if (!input) return (ready = Promise.resolve());
  if (remembered()) input.checked = true;
  let touched = false;
  input.addEventListener('change', () => {
    touched = true;
    remember(input.checked);
    for (const listener of listeners) listener(input.checked);
  });
  ready = fetchConfig().then((config) => {
    if (config && config.sharedComputers === true && !touched && !input.checked) {
      input.checked = true;
      for (const listener of listeners) listener(true);
    }
  }, () => {});
  return ready;
}

/** Whether the box is ticked now. */
export function sharedComputerChosen() {
  const input = box();
  return Boolean(input && input.checked);
}

/** Calls `listener(chosen)` whenever the box changes. */
export function onSharedComputerChange(listener) {
  listeners.add(listener);
}

/** A provider's button was followed with the box as it is now. */
export function notePendingChoice() {
  try { sessionStorage.setItem(PENDING, sharedComputerChosen() ? '1' : '0'); } catch { /* the box decides on arrival */ }
}

/** Back from a provider: the choice made when leaving (else the box's, once set up). */
export async function pendingChoice() {
  let pending = null;
  try {
    pending = sessionStorage.getItem(PENDING);
    sessionStorage.removeItem(PENDING);
  } catch {
    // No session storage: the box says.
  }
  if (pending === '1' || pending === '0') return pending === '1';
  await setUpSharedComputerChoice();
  return sharedComputerChosen();
}

/** A provider's start address with the choice (`shared=1` when ticked). */
export function withSharedChoice(href, chosen = sharedComputerChosen()) {
  const url = new URL(href, location.origin);
  if (chosen) url.searchParams.set('shared', '1');
  else url.searchParams.delete('shared');
  return url.pathname + url.search;
}
