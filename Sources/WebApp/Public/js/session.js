// Leaving the signed-in state: the Logout button, and the local clean-up it shares with the
// account dialog's "Log out of all devices".
import * as api from './api.js';
import { state, saveAccount } from './state.js';
import { go } from './router.js';
import { clearStudents } from './students.js';
import { forgetKeptData } from './connection.js';

export async function logOut() {
  const button = document.getElementById('logout-button');
  button.disabled = true;
  try {
    await api.logOut();
  } catch {
    // The session ends on this device either way (a 401 means it had already ended);
    // the server forgets it when it expires.
  }
  button.disabled = false;
  leaveSession();
}

/** Forgets the account and everything shown for it, then shows the login scene. */
export function leaveSession() {
  saveAccount(null);
  forgetKeptData();
  clearStudents();
  if (state.travel) state.travel.reset();
  go('login');
}
