// The language kept with the account: GET /api/account says it (`account.language`, a tag
// or null), PUT /api/account/language changes it. It follows the student to every device
// they log in on, and wins over the browser's languages; the login card's choice stays on
// the device only (js/i18n.js keeps it in localStorage).
import { request } from './api.js';
import { LANGUAGES, language, setLanguage } from './i18n.js';
import { state } from './state.js';

/** Choices made on this page: an account answer asked for before the last one is stale. */
let choices = 0;

/** The tag of LANGUAGES `value` names, or null. */
function offered(value) {
  return typeof value === 'string' ? (LANGUAGES.find(({ tag }) => tag.toLowerCase() === value.toLowerCase()) || {}).tag || null : null;
}

/** Puts the page in the signed-in account's language, when it has one and the page shows
 *  another. `answer` is an /api/account answer already at hand (moderation.js's, each time
 *  the main scene shows); without it (just after signing in), asks. Never
 *  rejects: offline, or an older server, the page stays in its language. */
export async function followAccountLanguage(answer) {
  const account = state.account;
  const asked = choices;
  if (!answer) {
    if (!account) return;
    try {
      answer = await request('/api/account');
    } catch {
      return;
    }
    if (state.account !== account) return;
  }
  if (asked !== choices) return;
  const tag = offered(answer && answer.account ? answer.account.language : null);
  if (tag && tag !== language()) {
    try {
      await setLanguage(tag);
    } catch (error) {
      console.warn(`i18n: the account's language ${tag}: ${error.message}`);
    }
  }
}

/** Keeps `tag` (null: none, the device decides) with the account; rejects with the
 *  ApiError when the server refused or could not be reached. */
export async function saveAccountLanguage(tag) {
  choices += 1;
  await request('/api/account/language', { method: 'PUT', body: { language: tag } });
}
