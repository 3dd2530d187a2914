// Running a community from the browser: every student can report a post (the "Report"
// button on list rows) and is told when a moderator hid or deleted theirs; the shown class's
// moderators and teachers (and the server's administrators) get a Moderation dialog from
// the top bar: that class's reported and newest posts, and for administrators the accounts.
import { request, fetchAccountIn } from './api.js';
import { state } from './state.js';
import { classPath, currentClass } from './currentClass.js';
import { el, fullName, safeURL, linkHost, timeAgo, showAlert, confirmAction, describeFailure } from './ui.js';
import { $ } from './dom.js';

const NOTICE_WORDS = { hide: 'hid', delete: 'deleted', unhide: 'showed again' };
const SVG = 'http://www.w3.org/2000/svg';
const FLAG = 'M5 2h2v1.2c1.6-.8 3.3-1 5-.2 1.9.9 3.8.8 6.3-.3L20 2v11.4l-.6.3c-2.9 1.3-5.4 1.5-7.8.4-1.5-.7-3-.5-4.6.4V22H5V2Z';

/** Asks for a reason in a small dialog; resolves to the text, or null when cancelled. */
function askReason(title, placeholder) {
  return new Promise((resolve) => {
    const input = el('input', { id: 'reason-input', type: 'text', maxlength: '500', placeholder, required: true, autocomplete: 'off' });
    const error = el('p', { class: 'form-error', role: 'alert', hidden: true });
    const cancel = el('button', { class: 'button secondary', type: 'button', text: 'Cancel' });
    const ok = el('button', { id: 'reason-ok', class: 'button primary', type: 'submit', text: 'OK' });
    const form = el('form', { class: 'reason-form', method: 'dialog', novalidate: true }, [
      el('h2', { class: 'sheet-title', text: title }),
      el('label', { class: 'field' }, [el('span', { class: 'field-label', text: 'Reason' }), input]),
      error,
      el('div', { class: 'reason-actions' }, [cancel, ok]),
    ]);
    const dialog = el('dialog', { class: 'alert reason-dialog', 'aria-label': title }, [form]);
    document.body.append(dialog);
    const finish = (value) => { dialog.close(); dialog.remove(); resolve(value); };
    cancel.addEventListener('click', () => finish(null));
    dialog.addEventListener('cancel', (event) => { event.preventDefault(); finish(null); });
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const text = input.value.trim();
      if (!text) {
        error.textContent = 'Say why, in a few words.';
        error.hidden = false;
        input.focus();
        return;
      }
      finish(text);
    });
    dialog.showModal();
    input.focus();
  });
}

async function report(objectId) {
  const reason = await askReason('Report this post', 'Spam, offensive, not a student…');
  if (!reason) return;
  try {
    const answer = await request(classPath(`/api/locations/${encodeURIComponent(objectId)}/report`), { method: 'POST', body: { reason } });
    showAlert('Reported', answer.already_reported ? 'You had already reported this post.' : 'Thank you: a moderator will look at it.');
  } catch (error) {
    showAlert('Reporting Failed', error.message);
  }
}

/** Tells the author, once each, what moderators did to their posts. */
function showNewNotices(account, notices) {
  const key = `onthemap.noticesSeen.${account.key}`;
  const seen = localStorage.getItem(key) || '';
  const fresh = notices.filter((notice) => notice.created_at > seen && notice.action !== 'unhide');
  if (fresh.length === 0) return;
  localStorage.setItem(key, notices[0].created_at);
  const lines = fresh.map((notice) =>
    `A moderator ${NOTICE_WORDS[notice.action] || notice.action} your post${notice.map_string ? ` at ${notice.map_string}` : ''}: ${notice.reason}`);
  showAlert('From the Moderators', lines.join('\n'));
}

class ModerationDialog {
  constructor() {
    this.view = 'reported';
    this.rows = el('ol', { id: 'moderation-list', class: 'moderation-list' });
    this.status = el('p', { id: 'moderation-status', class: 'moderation-status', role: 'status' });
    const close = el('button', { id: 'moderation-close', class: 'text-button', type: 'button', text: 'Close' });
    this.tabs = el('div', { class: 'moderation-tabs', role: 'tablist' },
      [['reported', 'Reported'], ['newest', 'Newest'], ['accounts', 'Accounts']].map(([view, label]) =>
        el('button', { class: 'moderation-tab', type: 'button', role: 'tab', dataset: { view }, id: `moderation-tab-${view}`, text: label })));
    this.dialog = el('dialog', { id: 'moderation', class: 'sheet moderation-sheet', 'aria-labelledby': 'moderation-title' }, [
      el('header', { class: 'sheet-bar' }, [close, el('h2', { id: 'moderation-title', class: 'sheet-title', text: 'Moderation' }), el('span')]),
      this.tabs, this.status, this.rows,
    ]);
    document.body.append(this.dialog);
    close.addEventListener('click', () => this.dialog.close());
    this.tabs.addEventListener('click', (event) => {
      const tab = event.target.closest('[data-view]');
      if (tab) this.show(tab.dataset.view);
    });
  }

  /** `isAdmin`: the Accounts tab is the server's administrators' only. */
  open({ isAdmin }) {
    this.tabs.querySelector('[data-view="accounts"]').hidden = !isAdmin;
    if (!isAdmin && this.view === 'accounts') this.view = 'reported';
    this.dialog.showModal();
    this.show(this.view);
  }

  async show(view) {
    this.view = view;
    for (const tab of this.tabs.children) tab.setAttribute('aria-selected', String(tab.dataset.view === view));
    this.status.textContent = 'Loading…';
    try {
      if (view === 'accounts') {
        const { users } = await request('/api/admin/users');
        this.rows.replaceChildren(...users.map((user) => this.userRow(user)));
        this.status.textContent = `${users.length} account${users.length === 1 ? '' : 's'}`;
      } else {
        const { locations } = await request(classPath(`/api/admin/moderation?view=${view}&limit=100`));
        this.rows.replaceChildren(...locations.map((item) => this.postRow(item)));
        this.status.textContent = locations.length ? '' : (view === 'reported' ? 'No reported posts.' : 'No posts yet.');
      }
    } catch (error) {
      this.status.textContent = describeFailure(error, 'loading the moderation list').message;
    }
  }

  postRow(item) {
    const post = item.location;
    const href = safeURL(post.mediaURL);
    const badges = [];
    if (item.hidden) badges.push(el('span', { class: 'badge hidden-badge', text: `Hidden: ${item.hidden_reason || ''}` }));
    if (item.owner_disabled) badges.push(el('span', { class: 'badge', text: 'Author disabled' }));
    if (item.report_count) {
      badges.push(el('span', { class: 'badge report-badge',
        text: `${item.report_count} report${item.report_count === 1 ? '' : 's'}: ${item.report_reasons.join('; ')}` }));
    }
    const button = (label, action, extra = '') =>
      el('button', { class: `button small ${extra}`, type: 'button', text: label, dataset: { action } });
    const actions = el('div', { class: 'moderation-actions' }, [
      item.hidden ? button('Show', 'unhide') : button('Hide', 'hide'),
      button('Delete', 'delete', 'danger'),
      item.owner_key ? (item.owner_disabled ? button('Enable author', 'enable') : button('Disable author', 'disable', 'danger')) : null,
    ]);
    const row = el('li', { class: 'moderation-row', dataset: { objectId: post.objectId } }, [
      el('div', { class: 'moderation-who' }, [
        el('strong', { text: fullName(post) }),
        el('span', { text: ` · ${post.mapString} · ${href ? linkHost(href) : 'no link'} · posted ${timeAgo(post.createdAt)}` }),
      ]),
      badges.length ? el('div', { class: 'moderation-badges' }, badges) : null,
      actions,
    ]);
    actions.addEventListener('click', (event) => {
      const action = event.target.closest('[data-action]')?.dataset.action;
      if (action) this.act(action, item);
    });
    return row;
  }

  userRow(user) {
    const me = user.key === state.account?.key;
    const actions = el('div', { class: 'moderation-actions' }, [
      me ? null : el('button', { class: `button small ${user.disabled ? '' : 'danger'}`, type: 'button',
        text: user.disabled ? 'Enable' : 'Disable', dataset: { action: user.disabled ? 'enable' : 'disable' } }),
      el('button', { class: 'button small', type: 'button', text: 'Reset link', dataset: { action: 'reset' } }),
    ]);
    const row = el('li', { class: 'moderation-row', dataset: { key: user.key } }, [
      el('div', { class: 'moderation-who' }, [
        el('strong', { text: `${user.first_name} ${user.last_name}` }),
        el('span', { text: ` · ${user.email} · ${user.location_count} post${user.location_count === 1 ? '' : 's'}` }),
      ]),
      el('div', { class: 'moderation-badges' }, [
        user.is_admin ? el('span', { class: 'badge', text: 'Administrator' }) : null,
        user.disabled ? el('span', { class: 'badge hidden-badge', text: 'Disabled' }) : null,
      ]),
      actions,
    ]);
    actions.addEventListener('click', (event) => {
      const action = event.target.closest('[data-action]')?.dataset.action;
      if (action) this.actOnUser(action, user, row);
    });
    return row;
  }

  async act(action, item) {
    const id = encodeURIComponent(item.location.objectId);
    try {
      if (action === 'hide' || action === 'delete') {
        const reason = await askReason(action === 'hide' ? 'Hide this post' : 'Delete this post', 'The author will see this reason');
        if (!reason) return;
        if (action === 'hide') await request(classPath(`/api/admin/locations/${id}/hide`), { method: 'POST', body: { reason } });
        else await request(classPath(`/api/admin/locations/${id}`), { method: 'DELETE', body: { reason } });
      } else if (action === 'unhide') {
        await request(classPath(`/api/admin/locations/${id}/unhide`), { method: 'POST' });
      } else {
        await this.setDisabled(item.owner_key, action === 'disable');
      }
      await this.show(this.view);
    } catch (error) {
      showAlert('Moderation Failed', error.message);
    }
  }

  async actOnUser(action, user, row) {
    try {
      if (action === 'reset') {
        const link = await request(`/api/admin/users/${encodeURIComponent(user.key)}/reset-link`, { method: 'POST' });
        const field = el('input', { class: 'reset-link', type: 'text', readonly: true, value: link.url, 'aria-label': 'Reset link' });
        row.querySelector('.reset-link')?.remove();
        row.append(field);
        field.select();
        return;
      }
      await this.setDisabled(user.key, action === 'disable');
      await this.show(this.view);
    } catch (error) {
      showAlert('Moderation Failed', error.message);
    }
  }

  async setDisabled(key, disable) {
    if (disable) {
      const sure = await confirmAction('Disable This Account?',
        'Its sessions end now, it cannot log in, and its posts are hidden until you enable it again.', 'Disable');
      if (!sure) return;
    }
    await request(`/api/admin/users/${encodeURIComponent(key)}/${disable ? 'disable' : 'enable'}`, { method: 'POST' });
  }
}

let checkedFor = null;
let dialog = null;

/** Call whenever the signed-in scene shows: once per account and class, learns the role in
 *  the shown class (the Moderate button is for its moderators) and the notices. */
export async function moderationSignedIn() {
  const account = state.account;
  const slug = currentClass();
  const key = account ? `${account.key} ${slug || ''}` : null;
  if (!account || checkedFor === key) return;
  checkedFor = key;
  $('moderation-button')?.remove();
  try {
    const me = await fetchAccountIn(slug);
    if (checkedFor !== key) return;  // another class (or account) since
    showNewNotices(me.account, me.notices || []);
    if (!me.can_moderate) return;
    const isAdmin = Boolean(me.account.is_admin);
    // A flag where the bar is narrow (the word stays its name), the word where it is wide.
    const flag = document.createElementNS(SVG, 'svg');
    flag.setAttribute('viewBox', '0 0 24 24');
    flag.setAttribute('aria-hidden', 'true');
    const path = document.createElementNS(SVG, 'path');
    path.setAttribute('d', FLAG);
    flag.append(path);
    const button = el('button', { id: 'moderation-button', class: 'bar-button text-button moderation-button', type: 'button', title: 'Moderate' },
      [flag, el('span', { class: 'moderation-label', text: 'Moderate' })]);
    button.addEventListener('click', () => {
      dialog ??= new ModerationDialog();
      dialog.open({ isAdmin });
    });
    $('account-button').before(button);
  } catch {
    if (checkedFor === key) checkedFor = null;  // try again next time the scene shows
  }
}

/** Another class shows: its moderators are others (moderationSignedIn asks again). */
export function moderationClassChanged() {
  checkedFor = null;
  $('moderation-button')?.remove();
  if (dialog && dialog.dialog.open) dialog.dialog.close();
}

/** Report buttons live on list rows (`data-report-id`); one listener serves them all. */
export function setUpReporting() {
  document.addEventListener('click', (event) => {
    const button = event.target.closest('[data-report-id]');
    if (!button) return;
    event.preventDefault();
    event.stopPropagation();
    report(button.dataset.reportId);
  });
}
