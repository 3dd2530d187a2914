// Running a community from the browser: every student can report a post (the "Report"
// button on list rows) and is told when a moderator hid, deleted, approved or rejected
// theirs; the shown class's moderators and teachers (and the server's administrators) get a
// Moderation dialog from the top bar: that class's posts waiting for approval (Approve,
// Reject), its reported and newest posts, and for administrators the accounts. The Moderate
// button and the Waiting tab count the posts waiting.
import { request, fetchAccountIn } from './api.js';
import { state } from './state.js';
import { classPath, currentClass } from './currentClass.js';
import { noteAccount } from './approval.js';
import { followAccountLanguage } from './accountLanguage.js';
import { el, fullName, safeURL, linkHost, timeAgo, showAlert, confirmAction, describeFailure, formatCount, setBusy, formatCoordinates } from './ui.js';
import { t, onLanguageChange } from './i18n.js';
import { $ } from './dom.js';
import { withParts } from './bidi.js';
import { showStudent } from './myPin.js';
import { miniMap } from './miniMap.js';

/** The lists, each with its tab's label in the page's language. */
const VIEWS = {
  waiting: () => t('moderation.tab.waiting'),
  reported: () => t('moderation.tab.reported'),
  newest: () => t('moderation.tab.newest'),
  accounts: () => t('moderation.tab.accounts'),
};
/** What a list of posts says when it is empty. */
const EMPTY = {
  waiting: () => t('moderation.empty.waiting'),
  reported: () => t('moderation.empty.reported'),
  newest: () => t('moderation.empty.newest'),
};
/** A moderator's notice per action: with the post's place, and without (`{ place, reason }`). */
const NOTICES = {
  approve: [(params) => t('notices.approved', params), (params) => t('notices.approvedPost', params)],
  reject: [(params) => t('notices.rejected', params), (params) => t('notices.rejectedPost', params)],
  hide: [(params) => t('notices.hidden', params), (params) => t('notices.hiddenPost', params)],
  delete: [(params) => t('notices.deleted', params), (params) => t('notices.deletedPost', params)],
  unhide: [(params) => t('notices.shownAgain', params), (params) => t('notices.shownAgainPost', params)],
};
const OTHER_NOTICE = [(params) => t('notices.changed', params), (params) => t('notices.changedPost', params)];
/** The most posts a Waiting list (and its count) shows at once. */
const WAITING_LIMIT = 100;
/** Changes come in bursts (a class posting at once): the Waiting list is drawn once after. */
const REFRESH_DELAY_MS = 300;
/** While the Waiting list is open, how often it looks for posts the live stream did not bring. */
const WAITING_POLL_MS = 5000;
const SVG = 'http://www.w3.org/2000/svg';
const FLAG = 'M5 2h2v1.2c1.6-.8 3.3-1 5-.2 1.9.9 3.8.8 6.3-.3L20 2v11.4l-.6.3c-2.9 1.3-5.4 1.5-7.8.4-1.5-.7-3-.5-4.6.4V22H5V2Z';

/** A message (`message(params)`: a t() call) whose `userFields` params are text people typed
 *  (names, places, reasons): each comes back in its own <bdi>, so a right-to-left name reads
 *  right in a left-to-right sentence and the other way round. Returns the nodes to append. */
function isolated(message, params, userFields) {
  return withParts(message, params,
    Object.fromEntries(userFields.map((name) => [name, el('bdi', { text: String(params[name] ?? '') })])));
}

/** Asks for a reason in a small dialog (`title`, `placeholder`: already translated); resolves
 *  to the text, or null when cancelled. */
function askReason(title, placeholder) {
  return new Promise((resolve) => {
    const input = el('input', { id: 'reason-input', type: 'text', maxlength: '500', placeholder, required: true, autocomplete: 'off', dir: 'auto' });
    const error = el('p', { class: 'form-error', role: 'alert', hidden: true });
    const cancel = el('button', { class: 'button secondary', type: 'button', text: t('common.cancel') });
    const ok = el('button', { id: 'reason-ok', class: 'button primary', type: 'submit', text: t('common.ok') });
    const form = el('form', { class: 'reason-form', method: 'dialog', novalidate: true }, [
      el('h2', { class: 'sheet-title', text: title }),
      el('label', { class: 'field' }, [el('span', { class: 'field-label', text: t('moderation.reason.label') }), input]),
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
        error.textContent = t('moderation.reason.missing');
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
  const reason = await askReason(t('report.title'), t('report.placeholder'));
  if (!reason) return;
  try {
    const answer = await request(classPath(`/api/locations/${encodeURIComponent(objectId)}/report`), { method: 'POST', body: { reason } });
    showAlert(t('report.done.title'), answer.already_reported ? t('report.done.already') : t('report.done.message'));
  } catch (error) {
    showAlert(t('report.failed.title'), error.message);
  }
}

/** One notice as a sentence: "A moderator approved your post at Lagos: classmates see it
 *  on the map now." (an approval's reason is the server's stock words, so it is not repeated). */
export function noticeText(notice) {
  const place = String(notice.map_string || '').trim();
  const reason = String(notice.reason || '').trim();
  const [withPlace, withoutPlace] = NOTICES[notice.action] || OTHER_NOTICE;
  return (place ? withPlace : withoutPlace)({ place, reason });
}

/** Tells the author, once each, what moderators did to their posts. */
function showNewNotices(account, notices) {
  const key = `onthemap.noticesSeen.${account.key}`;
  // A shared computer keeps nothing of the account: this tab only.
  const storage = account.sharedComputer ? sessionStorage : localStorage;
  const seen = storage.getItem(key) || '';
  const fresh = notices.filter((notice) => notice.created_at > seen && notice.action !== 'unhide');
  if (fresh.length === 0) return;
  storage.setItem(key, notices[0].created_at);
  const text = fresh.map(noticeText).join('\n');
  // One approval: the notice offers to show the post where classmates now see it.
  const approved = fresh.length === 1 && fresh[0].action === 'approve' && fresh[0].object_id;
  if (!approved) {
    showAlert(t('notices.title'), text);
    return;
  }
  confirmAction(t('notices.title'), text, t('mine.showOnMap'), t('common.ok')).then((show) => {
    if (show) showStudent(fresh[0].object_id);
  });
}

/** `count` as a badge shows it: "2", "٢", or "99+" past what one list shows. */
function shownCount(count) {
  return count >= WAITING_LIMIT ? t('moderation.countOver', { count: WAITING_LIMIT - 1 }) : formatCount(count);
}

/** "2" for a count badge, with words for screen readers (`words({ count, shown })`: "2 posts
 *  waiting"). */
function countBadge(className, count, words) {
  const shown = shownCount(count);
  return el('span', { class: className }, [
    el('span', { class: 'visually-hidden', text: ', ' }),
    el('span', { 'aria-hidden': 'true', text: shown }),
    el('span', { class: 'visually-hidden', text: words({ count, shown }) }),
  ]);
}

/** The posts waiting last counted (the badges are drawn again in a new language). */
let waitingCount = 0;

/** Puts the number of posts waiting on the Moderate button and the Waiting tab. */
function showWaitingCount(count) {
  waitingCount = count;
  const button = $('moderation-button');
  if (button) {
    button.querySelector('.moderation-count')?.remove();
    if (count > 0) button.append(countBadge('moderation-count', count, (params) => t('moderation.waitingCount', params)));
    button.title = count > 0 ? t('moderation.buttonTitleWaiting', { count, shown: shownCount(count) }) : t('moderation.button');
  }
  const tab = dialog && dialog.tabs.querySelector('[data-view="waiting"]');
  if (tab) {
    tab.querySelector('.tab-count')?.remove();
    if (count > 0) tab.append(countBadge('tab-count', count, (params) => t('moderation.tabWaitingCount', params)));
  }
}

/** The shown class's posts waiting for approval (at most WAITING_LIMIT). */
async function fetchWaiting() {
  const { locations } = await request(classPath(`/api/admin/moderation?view=waiting&limit=${WAITING_LIMIT}`));
  return Array.isArray(locations) ? locations : [];
}

/** Counts the posts waiting again (the Moderate button's badge); quiet when it fails. */
async function countWaiting() {
  const slug = currentClass();
  try {
    const waiting = await fetchWaiting();
    if (currentClass() === slug) showWaitingCount(waiting.length);
  } catch {
    // The badge stays as it was.
  }
}

class ModerationDialog {
  constructor() {
    this.view = 'reported';
    this.attempt = 0;
    this.rows = el('ol', { id: 'moderation-list', class: 'moderation-list', 'aria-labelledby': 'moderation-title' });
    this.status = el('p', { id: 'moderation-status', class: 'moderation-status', role: 'status' });
    // What an action did ("Approved …"), said once it is done.
    this.done = el('p', { id: 'moderation-done', class: 'moderation-done', role: 'status' });
    this.close = el('button', { id: 'moderation-close', class: 'text-button', type: 'button' });
    // Approve every post waiting, at once (confirmed, with the count): the Waiting list's bar.
    this.approveAll = el('button', { id: 'moderation-approve-all', class: 'button small primary', type: 'button', hidden: true });
    this.approveAll.addEventListener('click', () => this.approveEverything());
    this.title = el('h2', { id: 'moderation-title', class: 'sheet-title' });
    this.tabs = el('div', { class: 'moderation-tabs', role: 'tablist' },
      Object.keys(VIEWS).map((view) =>
        el('button', { class: 'moderation-tab', type: 'button', role: 'tab', dataset: { view }, id: `moderation-tab-${view}`, 'aria-controls': 'moderation-list' },
          [el('span', { class: 'tab-label' })])));
    this.applyLanguage();
    this.dialog = el('dialog', { id: 'moderation', class: 'sheet moderation-sheet', 'aria-labelledby': 'moderation-title' }, [
      el('header', { class: 'sheet-bar' }, [this.close, this.title, el('span')]),
      this.tabs, this.status, this.done, el('div', { class: 'moderation-bar' }, [this.approveAll]), this.rows,
    ]);
    document.body.append(this.dialog);
    this.close.addEventListener('click', () => this.dialog.close());
    this.tabs.addEventListener('click', (event) => {
      const tab = event.target.closest('[data-view]');
      if (tab) {
        this.done.textContent = '';
        this.show(tab.dataset.view);
      }
    });
    // The tabs as a tab list: the arrow keys (and Home, End) move between them.
    this.tabs.addEventListener('keydown', (event) => {
      const tabs = [...this.tabs.children].filter((tab) => !tab.hidden);
      const index = tabs.indexOf(event.target.closest('[data-view]'));
      if (index < 0) return;
      const step = document.documentElement.dir === 'rtl' ? -1 : 1; // the row runs right to left in Arabic
      const next = { ArrowRight: index + step, ArrowLeft: index - step, Home: 0, End: tabs.length - 1 }[event.key];
      if (next === undefined) return;
      event.preventDefault();
      const tab = tabs[(next + tabs.length) % tabs.length];
      tab.focus();
      this.done.textContent = '';
      this.show(tab.dataset.view);
    });
    this.dialog.addEventListener('close', () => {
      clearInterval(this.poll);
      countWaiting();
    });
    // The Waiting list follows while it is open: each change on the class's live stream, and a
    // light look every few seconds for what the stream does not carry.
    this.waitingVersion = 0;
    this.acting = 0;
    document.addEventListener('onthemap:live-change', () => this.refreshSoon());
  }

  /** Draws the Waiting list again soon (changes come in bursts), unless an action is under
   *  way; the focus stays on the row (and button) it was on. */
  refreshSoon() {
    if (!this.dialog.open || this.view !== 'waiting') return;
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(async () => {
      if (!this.dialog.open || this.view !== 'waiting' || this.acting) return;
      const focused = this.rows.contains(document.activeElement) ? document.activeElement : null;
      const objectId = focused && focused.closest('[data-object-id]')?.dataset.objectId;
      const action = focused && focused.dataset.action;
      let waiting;
      try {
        waiting = await fetchWaiting();
      } catch {
        return;  // the list stays as it was; the next change tries again
      }
      const key = waiting.map((item) => `${item.location.objectId}@${item.location.updatedAt}`).join(' ');
      if (!this.dialog.open || this.view !== 'waiting' || this.acting || key === this.shownWaiting) return;
      await this.show('waiting', { waiting });
      const row = objectId && [...this.rows.children].find((item) => item.dataset.objectId === objectId);
      const button = row && (row.querySelector(`[data-action="${action}"]`) || row.querySelector('button'));
      if (button) button.focus();
    }, REFRESH_DELAY_MS);
  }

  /** Approves every post waiting, after saying how many; says how many it approved. */
  async approveEverything() {
    const waiting = [...this.rows.children].map((row) => row.dataset.objectId).filter(Boolean);
    if (!waiting.length) return;
    const count = waiting.length;
    const sure = await confirmAction(t('moderation.approveAll.title', { count }), t('moderation.approveAll.message', { count }),
      t('moderation.approveAll.ok', { count }));
    if (!sure) return;
    this.acting += 1;
    setBusy(this.approveAll, true, t('moderation.approveAll.working'));
    let approved = 0;
    try {
      for (const objectId of waiting) {
        try {
          await request(classPath(`/api/admin/locations/${encodeURIComponent(objectId)}/approve`), { method: 'POST' });
          approved += 1;
        } catch (error) {
          // Another moderator decided first: that post is no longer waiting.
          if (error.status !== 404) {
            await showAlert(t('moderation.failed.title'), error.message);
            break;
          }
        }
      }
    } finally {
      this.acting -= 1;
      setBusy(this.approveAll, false);
    }
    await this.show('waiting');
    this.say([t('moderation.approveAll.done', { count: approved })]);
    (this.rows.querySelector('button') || this.tabs.querySelector('[aria-selected="true"]'))?.focus();
  }

  /** The dialog's own words in the page's language (the lists are drawn again by show()). */
  applyLanguage() {
    this.close.textContent = t('common.close');
    this.title.textContent = t('moderation.title');
    this.tabs.setAttribute('aria-label', t('moderation.tabs.label'));
    for (const tab of this.tabs.children) tab.querySelector('.tab-label').textContent = VIEWS[tab.dataset.view]();
  }

  /** `isAdmin`: the Accounts tab is the server's administrators' only. Opens on the Waiting
   *  list when posts wait, else on the list shown last (Reported at first). */
  async open({ isAdmin }) {
    this.tabs.querySelector('[data-view="accounts"]').hidden = !isAdmin;
    if (!isAdmin && this.view === 'accounts') this.view = 'reported';
    this.done.textContent = '';
    this.rows.replaceChildren();
    this.dialog.showModal();
    clearInterval(this.poll);
    this.poll = setInterval(() => this.refreshSoon(), WAITING_POLL_MS);
    const attempt = ++this.attempt;
    this.selectTab(this.view);
    this.status.textContent = t('moderation.loading');
    let waiting = null;
    try {
      waiting = await fetchWaiting();
    } catch {
      // The list shown says what failed.
    }
    if (attempt !== this.attempt || !this.dialog.open) return;
    if (waiting) showWaitingCount(waiting.length);
    const view = waiting && waiting.length ? 'waiting' : this.view === 'waiting' && waiting ? 'reported' : this.view;
    await this.show(view, { waiting });
  }

  selectTab(view) {
    for (const tab of this.tabs.children) {
      const selected = tab.dataset.view === view;
      tab.setAttribute('aria-selected', String(selected));
      tab.tabIndex = selected ? 0 : -1;
    }
  }

  /** Shows list `view` (`waiting`: the posts already fetched, when given). */
  async show(view, { waiting = null } = {}) {
    const attempt = ++this.attempt;
    this.view = view;
    this.selectTab(view);
    this.status.textContent = t('moderation.loading');
    try {
      if (view === 'accounts') {
        const { users } = await request('/api/admin/users');
        if (attempt !== this.attempt) return false;
        this.rows.replaceChildren(...users.map((user) => this.userRow(user)));
        this.status.textContent = t('moderation.accountCount', { count: users.length });
        return true;
      }
      const locations = view === 'waiting'
        ? waiting || await fetchWaiting()
        : (await request(classPath(`/api/admin/moderation?view=${view}&limit=100`))).locations;
      if (attempt !== this.attempt) return false;
      if (view === 'waiting') {
        showWaitingCount(locations.length);
        this.shownWaiting = locations.map((item) => `${item.location.objectId}@${item.location.updatedAt}`).join(' ');
      }
      this.approveAll.hidden = view !== 'waiting' || locations.length < 2;
      this.approveAll.textContent = t('moderation.approveAll', { count: locations.length });
      this.rows.replaceChildren(...locations.map((item) => this.postRow(item)));
      this.status.textContent = locations.length || !EMPTY[view] ? '' : EMPTY[view]();
      return true;
    } catch (error) {
      if (attempt !== this.attempt) return false;
      this.rows.replaceChildren();
      this.status.textContent = describeFailure(error, t('moderation.failure.loading')).message;
      return false;
    }
  }

  postRow(item) {
    const post = item.location;
    const href = safeURL(post.mediaURL);
    const whoId = `moderation-who-${post.objectId}`;
    const badges = [];
    if (item.waiting) badges.push(el('span', { class: 'badge waiting-badge', text: t('moderation.badge.waiting') }));
    if (item.hidden) {
      badges.push(el('span', { class: 'badge hidden-badge' },
        isolated((params) => t('moderation.badge.hidden', params), { reason: item.hidden_reason || '' }, ['reason'])));
    }
    if (item.owner_disabled) badges.push(el('span', { class: 'badge', text: t('moderation.badge.authorDisabled') }));
    if (item.report_count) {
      // The reasons are the reporters' own words, each isolated.
      const reasons = el('span', {}, (item.report_reasons || []).flatMap((reason, index) =>
        [index ? '; ' : null, el('bdi', { text: reason })]).filter(Boolean));
      badges.push(el('span', { class: 'badge report-badge' },
        withParts((params) => t('moderation.badge.reports', params), { count: item.report_count }, { reasons })));
    }
    // Each button is described by the row's first line (whose post, where).
    const button = (label, action, extra = '') =>
      el('button', { class: `button small ${extra}`, type: 'button', text: label, dataset: { action }, 'aria-describedby': whoId });
    const actions = el('div', { class: 'moderation-actions' }, [
      // A waiting post is approved or rejected (rejecting removes it); the others hidden or deleted.
      ...(item.waiting
        ? [button(t('moderation.action.approve'), 'approve', 'primary'), button(t('moderation.action.reject'), 'reject', 'danger')]
        : [item.hidden ? button(t('moderation.action.unhide'), 'unhide') : button(t('moderation.action.hide'), 'hide'),
          button(t('moderation.action.delete'), 'delete', 'danger')]),
      // Disabling an account acts beyond the class: not in the approval queue (Reported and
      // Hidden keep it, behind its own confirmation; administrators also have Accounts).
      item.owner_key && !item.waiting
        ? (item.owner_disabled ? button(t('moderation.action.enableAuthor'), 'enable') : button(t('moderation.action.disableAuthor'), 'disable', 'danger'))
        : null,
    ]);
    // A waiting post was sent (or moved) when it was last updated.
    const when = item.waiting
      ? t('moderation.sent', { time: timeAgo(post.updatedAt || post.createdAt) })
      : t('moderation.posted', { time: timeAgo(post.createdAt) });
    const link = href
      ? el('a', { href, target: '_blank', rel: 'noopener noreferrer' },
        [el('bdi', { text: linkHost(href) }), el('span', { class: 'visually-hidden', text: ` ${t('moderation.newTab')}` })])
      : t('moderation.noLink');
    // Where the post is (or would be, once approved): a small map named by its place.
    const where = miniMap(post.latitude, post.longitude,
      post.mapString || formatCoordinates(Number(post.latitude), Number(post.longitude)));
    const row = el('li', { class: where ? 'moderation-row with-map' : 'moderation-row', dataset: { objectId: post.objectId } }, [
      where,
      el('div', { class: 'moderation-who', id: whoId }, [
        el('strong', { dir: 'auto', text: fullName(post) }),
        el('span', {}, [' · ', el('bdi', { text: post.mapString }), ' · ', link, ` · ${when}`]),
      ]),
      badges.length ? el('div', { class: 'moderation-badges' }, badges) : null,
      actions,
    ]);
    // One action at a time per post (a second click on Approve would find it approved).
    let acting = false;
    actions.addEventListener('click', async (event) => {
      const action = event.target.closest('[data-action]')?.dataset.action;
      if (!action || acting) return;
      acting = true;
      try {
        await this.act(action, item);
      } finally {
        acting = false;
      }
    });
    return row;
  }

  userRow(user) {
    const me = user.key === state.account?.key;
    const actions = el('div', { class: 'moderation-actions' }, [
      me ? null : el('button', { class: `button small ${user.disabled ? '' : 'danger'}`, type: 'button',
        text: user.disabled ? t('moderation.action.enable') : t('moderation.action.disable'), dataset: { action: user.disabled ? 'enable' : 'disable' } }),
      el('button', { class: 'button small', type: 'button', text: t('moderation.resetLink.button'), dataset: { action: 'reset' } }),
    ]);
    const row = el('li', { class: 'moderation-row', dataset: { key: user.key } }, [
      el('div', { class: 'moderation-who' }, [
        el('strong', { dir: 'auto', text: `${user.first_name} ${user.last_name}` }),
        el('span', {}, [' · ', el('bdi', { text: user.email }), ` · ${t('moderation.account.posts', { count: user.location_count })}`]),
      ]),
      el('div', { class: 'moderation-badges' }, [
        user.is_admin ? el('span', { class: 'badge', text: t('moderation.badge.administrator') }) : null,
        user.disabled ? el('span', { class: 'badge hidden-badge', text: t('moderation.badge.disabled') }) : null,
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
    this.acting += 1;
    try {
      return await this.actOnPost(action, item);
    } finally {
      this.acting -= 1;
    }
  }

  async actOnPost(action, item) {
    const id = encodeURIComponent(item.location.objectId);
    const name = fullName(item.location);
    const index = [...this.rows.children].findIndex((row) => row.dataset.objectId === item.location.objectId);
    let done = null;
    try {
      if (action === 'hide' || action === 'delete' || action === 'reject') {
        const title = { hide: () => t('moderation.hide.title'), delete: () => t('moderation.delete.title'), reject: () => t('moderation.reject.title') }[action];
        const reason = await askReason(title(), t('moderation.reason.placeholder'));
        if (!reason) return;
        if (action === 'hide') await request(classPath(`/api/admin/locations/${id}/hide`), { method: 'POST', body: { reason } });
        else if (action === 'reject') await request(classPath(`/api/admin/locations/${id}/reject`), { method: 'POST', body: { reason } });
        else await request(classPath(`/api/admin/locations/${id}`), { method: 'DELETE', body: { reason } });
        done = {
          hide: (params) => t('moderation.done.hide', params),
          delete: (params) => t('moderation.done.delete', params),
          reject: (params) => t('moderation.done.reject', params),
        }[action];
      } else if (action === 'approve') {
        await request(classPath(`/api/admin/locations/${id}/approve`), { method: 'POST' });
        done = (params) => t('moderation.done.approve', params);
      } else if (action === 'unhide') {
        await request(classPath(`/api/admin/locations/${id}/unhide`), { method: 'POST' });
        done = (params) => t('moderation.done.unhide', params);
      } else {
        await this.setDisabled(item.owner_key, action === 'disable');
      }
    } catch (error) {
      // Another moderator decided first: the list shows what is left.
      const gone = error.status === 404 && (action === 'approve' || action === 'reject');
      await showAlert(t('moderation.failed.title'), gone ? t('moderation.failed.gone') : error.message);
      if (!gone) return;
    }
    if (!(await this.show(this.view))) return;
    this.say(done ? isolated(done, { name }, ['name']) : null);
    this.focusAfter(index);
  }

  /** Says what an action did (nodes: text and isolated names), in its own live region (read
   *  even when the same words come twice). */
  say(nodes) {
    this.done.textContent = '';
    if (nodes) requestAnimationFrame(() => { this.done.replaceChildren(...nodes); });
  }

  /** After an action the list is drawn again: the focus goes to the row that took the acted
   *  one's place (its first button), else to the selected tab. */
  focusAfter(index) {
    if (!this.dialog.open || index < 0) return;
    const rows = this.rows.children;
    const row = rows[Math.min(index, rows.length - 1)];
    const target = row ? row.querySelector('button') : this.tabs.querySelector('[aria-selected="true"]');
    if (target) target.focus();
  }

  async actOnUser(action, user, row) {
    try {
      if (action === 'reset') {
        const link = await request(`/api/admin/users/${encodeURIComponent(user.key)}/reset-link`, { method: 'POST' });
        const field = el('input', { class: 'reset-link', type: 'text', readonly: true, value: link.url, dir: 'ltr',
          'aria-label': t('moderation.resetLink.label') });
        row.querySelector('.reset-link')?.remove();
        row.append(field);
        field.select();
        return;
      }
      await this.setDisabled(user.key, action === 'disable');
      await this.show(this.view);
    } catch (error) {
      showAlert(t('moderation.failed.title'), error.message);
    }
  }

  async setDisabled(key, disable) {
    if (disable) {
      const sure = await confirmAction(t('moderation.disable.title'), t('moderation.disable.message'), t('moderation.action.disable'));
      if (!sure) return;
    }
    await request(`/api/admin/users/${encodeURIComponent(key)}/${disable ? 'disable' : 'enable'}`, { method: 'POST' });
  }
}

let checkedFor = null;
let dialog = null;

// A new language: the Moderate button (its word, its count's words, its title) and the
// dialog's own words follow at once; the list shown is drawn again.
onLanguageChange(() => {
  const label = document.querySelector('#moderation-button .moderation-label');
  if (label) label.textContent = t('moderation.button');
  if ($('moderation-button')) showWaitingCount(waitingCount);
  if (!dialog) return;
  dialog.applyLanguage();
  if (dialog.dialog.open) {
    dialog.done.textContent = '';
    dialog.show(dialog.view);
  }
});

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
    noteAccount(me);
    followAccountLanguage(me); // chosen on another device: this answer says so, no second ask
    if (!me.can_moderate) return;
    const isAdmin = Boolean(me.account.is_admin);
    // A flag where the bar is narrow (the word stays its name), the word where it is wide.
    const flag = document.createElementNS(SVG, 'svg');
    flag.setAttribute('viewBox', '0 0 24 24');
    flag.setAttribute('aria-hidden', 'true');
    const path = document.createElementNS(SVG, 'path');
    path.setAttribute('d', FLAG);
    flag.append(path);
    const button = el('button', { id: 'moderation-button', class: 'bar-button text-button moderation-button', type: 'button', title: t('moderation.button'), 'aria-haspopup': 'dialog' },
      [flag, el('span', { class: 'moderation-label', text: t('moderation.button') })]);
    button.addEventListener('click', () => {
      dialog ??= new ModerationDialog();
      dialog.open({ isAdmin });
    });
    $('account-button').before(button);
    countWaiting();
  } catch {
    if (checkedFor === key) checkedFor = null;  // try again next time the scene shows
  }
}

/** Asks `/api/account` in the shown class again: notices that came since (an approval, a
 *  rejection), and whether the student's post still waits (approval.js). Resolves to the
 *  answer, or null when the class or account changed meanwhile. */
export async function checkAccount() {
  const account = state.account;
  const slug = currentClass();
  if (!account) return null;
  const me = await fetchAccountIn(slug);
  if (state.account !== account || currentClass() !== slug) return null;
  showNewNotices(me.account, me.notices || []);
  noteAccount(me);
  if (me.can_moderate && $('moderation-button')) countWaiting();
  return me;
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
