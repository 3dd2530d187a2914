// Teachers' notices: in a class's settings, a moderator or teacher asks to be told by email
// when posts wait for approval or are reported; from a notice email's link
// (`#/stop-notice/<token>`), anyone holding it stops that kind of email.

import { request } from './api.js';
import { isolated } from './bidi.js';
import { $ } from './dom.js';
import { t } from './i18n.js';
import { confirmAction, formFailureMessage, showAlert, showFormMessage } from './ui.js';

const KINDS = ['waiting', 'reported'];
let shownSlug = null;

/** Shows the section for `slug` (only to its moderators and teachers: `moderates`). */
export async function showNotices(slug, moderates) {
  shownSlug = slug;
  const section = $('notices-section');
  section.hidden = true;
  showFormMessage('notices-error', '');
  showFormMessage('notices-done', '');
  if (!moderates) return;
  let settings;
  try {
    settings = await request(`/api/classes/${encodeURIComponent(slug)}/notices`);
  } catch {
    return; // the rest of the settings page still works; nothing here to offer
  }
  if (shownSlug !== slug) return;
  $('notices-no-email').hidden = settings.email;
  for (const kind of KINDS) {
    const box = $(`notice-${kind}`);
    box.checked = Boolean(settings[kind]);
    box.disabled = !settings.email && !settings[kind];
  }
  section.hidden = false;
}

async function changed(event) {
  const box = event.target;
  const slug = shownSlug;
  const kind = box.name;
  if (!slug || !KINDS.includes(kind)) return;
  showFormMessage('notices-error', '');
  showFormMessage('notices-done', '');
  box.disabled = true;
  try {
    const settings = await request(`/api/classes/${encodeURIComponent(slug)}/notices`, {
      method: 'PUT', body: { [kind]: box.checked },
    });
    box.checked = Boolean(settings[kind]);
    showFormMessage('notices-done', t('classNotices.saved'));
  } catch (error) {
    box.checked = !box.checked;
    showFormMessage('notices-error', formFailureMessage(error, t('classNotices.failed')));
  } finally {
    box.disabled = false;
  }
}

/** Wires the section's checkboxes once. */
export function setUpNotices() {
  for (const kind of KINDS) $(`notice-${kind}`).addEventListener('change', changed);
}

/** `#/stop-notice/<token>`: asks, then stops that notice; works signed in or not. */
export async function stopNotice(token) {
  if (!await confirmAction(t('stopNotice.title'), t('stopNotice.message'), t('stopNotice.ok'))) return;
  try {
    const stopped = await request('/api/notices/stop', { method: 'POST', body: { token } });
    const done = stopped.kind === 'reported' ? 'stopNotice.doneReported' : 'stopNotice.doneWaiting';
    await showAlert(t('stopNotice.doneTitle'), t(done, { name: isolated(stopped.class) }));
  } catch (error) {
    if (error.status === 404) await showAlert(t('stopNotice.doneTitle'), t('stopNotice.already'));
    else await showAlert(t('stopNotice.failedTitle'), formFailureMessage(error, t('stopNotice.failed')));
  }
}

/** The token in `#/stop-notice/<token>`, or null. */
export function stopNoticeToken(path) {
  const match = /^stop-notice\/([0-9a-f]{48})$/.exec(path);
  return match ? match[1] : null;
}
