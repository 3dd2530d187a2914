// A list of student locations, most recent first, that loads 100 more rows
// (limit/skip) whenever its end scrolls into view. Used by the List and Search tabs.
import { fetchLocations } from './api.js';
import { isOwn, isWaiting, waitingBadge } from './approval.js';
import { el, fullName, initials, hueFor, safeURL, linkHost, timeAgo, describeFailure, showAlert } from './ui.js';

export const PAGE_SIZE = 100;

export function studentRow(location, now = Date.now()) {
  const own = isOwn(location);
  const href = safeURL(location.mediaURL);
  const avatar = el('span', { class: 'avatar', 'aria-hidden': 'true', text: initials(location) });
  avatar.style.setProperty('--hue', String(hueFor(location.uniqueKey || fullName(location))));
  const metaParts = [];
  if (location.mapString) metaParts.push(el('span', { class: 'row-place', text: location.mapString }));
  metaParts.push(el('span', { class: href ? 'row-host' : 'row-host muted', text: href ? linkHost(href) : 'no link' }));
  const updated = location.updatedAt || location.createdAt;
  const time = el('time', { class: 'row-time', datetime: updated || null, text: updated ? `updated ${timeAgo(updated, now)}` : '' });
  const main = el('span', { class: 'row-main' }, [
    el('span', { class: 'row-top' }, [el('span', { class: 'row-name', text: fullName(location) }), time]),
    el('span', { class: 'row-meta' }, metaParts),
    // The student's own post, while it waits for a moderator (approval.js keeps it up to date).
    own && isWaiting() ? waitingBadge() : null,
    href ? el('span', { class: 'visually-hidden', text: '(opens in a new tab)' }) : null,
  ]);
  const body = href
    ? el('a', { class: 'row', href, target: '_blank', rel: 'noopener noreferrer', title: `Open ${href}` }, [avatar, main])
    : el('div', { class: 'row no-link' }, [avatar, main]);
  // Handled by moderation.js; outside the link so it does not open it.
  const report = location.objectId
    ? el('button', { class: 'report-button text-button', type: 'button', title: 'Report this post', dataset: { reportId: location.objectId }, text: 'Report' })
    : null;
  return el('li', { class: 'student', dataset: own ? { objectId: location.objectId || '', own: 'true' } : { objectId: location.objectId || '' } }, [body, report]);
}

export class LocationList {
  /**
   * @param {HTMLElement} listElement   the <ol> rows go in
   * @param {HTMLElement} footer        status line after the rows; also the infinite-scroll sentinel
   * @param {HTMLElement} scroller      the element that scrolls
   */
  constructor(listElement, footer, scroller, { emptyText = 'No students yet. Be the first to add your location!' } = {}) {
    this.listElement = listElement;
    this.footer = footer;
    this.scroller = scroller;
    this.emptyText = emptyText;
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
    if (this.rowCount === 0) this.setFooter('Loading…', 'loading');
    try {
      const { results } = await fetchLocations({ limit: PAGE_SIZE, skip: 0, where });
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
      if (this.rowCount === 0) this.setFooter('Could not load students. Use the refresh button to try again.', 'error');
      else this.updateFooter();
      if (alertOnFailure) {
        const { title, message } = describeFailure(error, 'downloading student locations');
        await showAlert(title, message);
      }
      return false;
    }
  }

  /** Clears the rows without asking the server (search with an empty query). */
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
    this.setFooter('Loading more…', 'loading');
    this.loading = (async () => {
      try {
        const { results } = await fetchLocations({ limit: PAGE_SIZE, skip: this.loaded, where: this.where });
        if (generation !== this.generation) return;
        this.loaded += results.length;
        this.done = results.length < PAGE_SIZE;
        this.listElement.append(...this.newRows(results));
        this.updateFooter();
      } catch (error) {
        if (generation !== this.generation) return;
        this.failedMore = true;
        const { title, message } = describeFailure(error, 'downloading more student locations');
        this.setFooter('', 'error');
        this.footer.replaceChildren(
          el('span', { text: error.kind === 'network' ? 'Cannot reach the server.' : 'The server had a problem.' }),
          ' ',
          el('button', { class: 'retry text-button', type: 'button', text: 'Try again' }),
        );
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
    else if (this.done) this.setFooter(this.rowCount === 1 ? '1 student' : `${this.rowCount} students`, 'end');
    else this.setFooter('', 'more');
  }

  setFooter(text, state) {
    this.footer.textContent = text;
    this.footer.dataset.state = state;
  }
}
