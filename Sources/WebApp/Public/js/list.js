// A list of student locations, most recent first, that loads 100 more rows
// (limit/skip) whenever its end scrolls into view. Used by the List and Search tabs.
import { fetchLocations } from './api.js';
import { isOwn, isWaiting, waitingBadge } from './approval.js';
import { el, fullName, initials, hueFor, safeURL, linkHost, timeAgo, describeFailure, showAlert } from './ui.js';
import { t, onLanguageChange } from './i18n.js';
import { youBadge, ownActions } from './myPin.js';
import { localTimeElement } from './nearMeView.js';

export const PAGE_SIZE = 100;

export function studentRow(location, now = Date.now()) {
  const own = isOwn(location);
  const href = safeURL(location.mediaURL);
  const avatar = el('span', { class: 'avatar', 'aria-hidden': 'true', text: initials(location) });
  avatar.style.setProperty('--hue', String(hueFor(location.uniqueKey || fullName(location))));
  const metaParts = [];
  if (location.mapString) metaParts.push(el('span', { class: 'row-place', dir: 'auto', text: location.mapString }));
  metaParts.push(href
    ? el('span', { class: 'row-host', dir: 'ltr', text: linkHost(href) })
    : el('span', { class: 'row-host muted', text: t('list.noLink') }));
  // The time where the student is, when the map's snapshot knows their place's time zone.
  const localTime = localTimeElement(location, 'local-time row-local-time');
  const updated = location.updatedAt || location.createdAt;
  const time = el('time', { class: 'row-time', datetime: updated || null, text: updated ? t('list.updated', { time: timeAgo(updated, now) }) : '' });
  const name = el('span', { class: 'row-name', dir: 'auto', text: fullName(location) });
  const main = el('span', { class: 'row-main' }, [
    el('span', { class: 'row-top' }, [name, own ? youBadge() : null, time]),
    el('span', { class: 'row-meta' }, metaParts),
    localTime,
    // The student's own post, while it waits for a moderator (approval.js keeps it up to date).
    own && isWaiting() ? waitingBadge() : null,
    location.objectId ? el('span', { class: 'visually-hidden', text: t('mine.showOnMap') }) : null,
  ]);
  // The row shows the student on the map (myPin.js); their link is a button of its own.
  const body = location.objectId
    ? el('button', { class: 'row', type: 'button', title: t('mine.showOnMap'), dataset: { showId: location.objectId } }, [avatar, main])
    : el('div', { class: 'row no-link' }, [avatar, main]);
  const link = href
    ? el('a', { class: 'row-link', href, target: '_blank', rel: 'noopener noreferrer', title: t('list.openLink', { url: href }) }, [
      el('span', { class: 'row-link-icon', 'aria-hidden': 'true', text: '↗' }),
      el('span', { class: 'visually-hidden', text: `${t('list.openLink', { url: href })} ${t('list.opensInNewTab')}` }),
    ])
    : null;
  // Report is handled by moderation.js, never on one's own post; Edit and Remove by myPin.js.
  const report = location.objectId && !own
    ? el('button', { class: 'report-button text-button', type: 'button', title: t('list.reportTitle'), dataset: { reportId: location.objectId }, text: t('list.report') })
    : null;
  const row = el('li', { class: 'student', dataset: own ? { objectId: location.objectId || '', own: 'true' } : { objectId: location.objectId || '' } }, [
    body,
    el('span', { class: 'row-actions' }, [link, report]),
    own && location.objectId ? ownActions(location) : null,
  ]);
  // Kept for drawing the row again in another language.
  row.studentLocation = location;
  return row;
}

/** Every LocationList shown, for a change of language. */
const lists = new Set();
onLanguageChange(() => {
  for (const list of lists) list.translate();
});

export class LocationList {
  /**
   * @param {HTMLElement} listElement   the <ol> rows go in
   * @param {HTMLElement} footer        status line after the rows; also the infinite-scroll sentinel
   * @param {HTMLElement} scroller      the element that scrolls
   */
  /** `emptyText`: what the footer says with no rows (a function, so that it follows the language). */
  constructor(listElement, footer, scroller, { emptyText = () => t('list.empty'), fetchPage = fetchLocations } = {}) {
    /** Reads one page: `({ limit, skip, where })` to `{ results }` (the class's list by default). */
    this.fetchPage = fetchPage;
    this.listElement = listElement;
    this.footer = footer;
    this.scroller = scroller;
    this.emptyText = emptyText;
    /** What the footer shows: a function drawing it, called again in another language. */
    this.footerContent = null;
    lists.add(this);
    this.where = null;
    this.loaded = 0;
    this.seen = new Set();
    this.done = false;
    this.loading = null;
    this.generation = 0;
    this.active = false;
    this.failedMore = false;
    this.observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) this.loadMore();
    }, { root: scroller, rootMargin: '0px 0px 600px 0px' });
    this.observer.observe(footer);
    footer.addEventListener('click', (event) => {
      if (event.target.closest('.retry')) {
        this.failedMore = false;
        this.loadMore();
      }
    });
  }

  get rowCount() {
    return this.listElement.children.length;
  }

  /** Loads the first page for `where` and swaps it in; on failure keeps the rows shown and alerts. */
  async reload(where = this.where, { alertOnFailure = true } = {}) {
    const generation = ++this.generation;
    this.lastError = null;
    if (this.rowCount === 0) this.setFooter(() => t('list.loading'), 'loading');
    try {
      const { results } = await this.fetchPage({ limit: PAGE_SIZE, skip: 0, where });
      if (generation !== this.generation) return false;
      this.where = where;
      this.seen = new Set();
      this.loaded = results.length;
      this.done = results.length < PAGE_SIZE;
      this.failedMore = false;
      this.listElement.replaceChildren(...this.newRows(results));
      this.scroller.scrollTop = 0;
      this.updateFooter();
      this.loading = null;
      // A tall screen may show the footer right away: keep filling it.
      requestAnimationFrame(() => this.fillIfVisible());
      return true;
    } catch (error) {
      if (generation !== this.generation) return false;
      this.lastError = error;
      if (this.rowCount === 0) this.setFooter(() => t('list.error.loading'), 'error');
      else this.updateFooter();
      if (alertOnFailure) {
        const { title, message } = describeFailure(error, t('list.failure.loading'));
        await showAlert(title, message);
      }
      return false;
    }
  }

  /** Clears the rows without asking the server (search with an empty query); `text` (a
   *  function giving it, to follow the language) is the footer's. */
  clear(text = '') {
    this.generation += 1;
    this.where = null;
    this.loaded = 0;
    this.done = true;
    this.listElement.replaceChildren();
    this.setFooter(text, 'hint');
  }

  fillIfVisible() {
    if (!this.active || this.done || this.loading || this.failedMore) return;
    const footerTop = this.footer.getBoundingClientRect().top;
    const bottom = this.scroller.getBoundingClientRect().bottom;
    if (footerTop < bottom + 600) this.loadMore();
  }

  /** Appends the next 100 rows. */
  loadMore() {
    if (!this.active || this.done || this.loading || this.failedMore || this.loaded === 0) return this.loading;
    const generation = this.generation;
    this.setFooter(() => t('list.loadingMore'), 'loading');
    this.loading = (async () => {
      try {
        const { results } = await this.fetchPage({ limit: PAGE_SIZE, skip: this.loaded, where: this.where });
        if (generation !== this.generation) return;
        this.loaded += results.length;
        this.done = results.length < PAGE_SIZE;
        this.listElement.append(...this.newRows(results));
        this.updateFooter();
      } catch (error) {
        if (generation !== this.generation) return;
        this.failedMore = true;
        const { title, message } = describeFailure(error, t('list.failure.loadingMore'));
        const network = error.kind === 'network';
        this.setFooter(() => [
          el('span', { text: network ? t('list.error.network') : t('list.error.server') }),
          ' ',
          el('button', { class: 'retry text-button', type: 'button', text: t('list.retry') }),
        ], 'error');
        showAlert(title, message);
      } finally {
        if (generation === this.generation) this.loading = null;
      }
      requestAnimationFrame(() => this.fillIfVisible());
    })();
    return this.loading;
  }

  /** Live hook: a created or updated location goes to the top (most recent first), in the
   *  whole list only (a search's rows stay as found); what the user is reading stays put. */
  upsertLive(location) {
    if (this.where || this.generation === 0) return;
    const existing = this.rowFor(location.objectId);
    const row = studentRow(location);
    row.classList.add('live-new');
    this.keepingScroll(() => {
      if (existing) existing.remove();
      else this.loaded += 1;  // one more row before the next page's offset
      this.listElement.prepend(row);
    });
    this.seen.add(location.objectId);
    this.updateFooter();
  }

  /** Live hook: a deleted location's row goes. */
  removeLive(objectId) {
    const row = this.rowFor(objectId);
    if (!row) return;
    this.keepingScroll(() => row.remove());
    this.loaded = Math.max(0, this.loaded - 1);
    this.seen.delete(objectId);
    this.updateFooter();
  }

  rowFor(objectId) {
    for (const row of this.listElement.children) if (row.dataset.objectId === objectId) return row;
    return null;
  }

  /** Runs a change to the rows without moving what is on screen: rows added or removed
   *  above the visible ones shift the scroll position by their height. */
  keepingScroll(change) {
    const top = this.scroller.scrollTop;
    const anchor = top > 0 ? [...this.listElement.children].find((row) => row.offsetTop + row.offsetHeight > top) : null;
    const before = anchor ? anchor.offsetTop : 0;
    change();
    if (anchor && anchor.isConnected) this.scroller.scrollTop = top + (anchor.offsetTop - before);
  }

  /** Rows for the records not shown yet (pages can overlap when someone posts meanwhile). */
  newRows(results) {
    const now = Date.now();
    const rows = [];
    for (const location of results) {
      if (this.seen.has(location.objectId)) continue;
      this.seen.add(location.objectId);
      rows.push(studentRow(location, now));
    }
    return rows;
  }

  updateFooter() {
    if (this.rowCount === 0) this.setFooter(this.emptyText, 'empty');
    else if (this.done) this.setFooter(() => t('students.count', { count: this.rowCount }), 'end');
    else this.setFooter('', 'more');
  }

  /** The footer's words: a text, or a function giving the text (or nodes) in the page's
   *  language, which draws them again when the language changes. */
  setFooter(content, state) {
    this.footerContent = typeof content === 'function' ? content : null;
    this.drawFooter(content);
    this.footer.dataset.state = state;
  }

  drawFooter(content) {
    const drawn = typeof content === 'function' ? content() : content;
    if (Array.isArray(drawn)) this.footer.replaceChildren(...drawn);
    else this.footer.textContent = drawn || '';
  }

  /** Another language: the rows and the footer again, in it (what has the focus keeps it). */
  translate() {
    if (this.footerContent) {
      const retryFocused = this.footer.contains(document.activeElement);
      this.drawFooter(this.footerContent);
      if (retryFocused) this.footer.querySelector('button')?.focus();
    }
    const now = Date.now();
    for (const row of [...this.listElement.children]) {
      if (!row.studentLocation) continue;
      const active = document.activeElement;
      const focused = row.contains(active)
        ? ['.report-button', '.row-link', '.edit-own', '.remove-own'].find((css) => active.closest(css)) || '.row'
        : null;
      const fresh = studentRow(row.studentLocation, now);
      row.replaceWith(fresh);
      if (focused) fresh.querySelector(focused)?.focus();
    }
  }
}
