// The search tab: filters by name or place as you type, on the server's search
// (`/api/locations/search`: case, accents and width folded, a place found in any language).
// When the server cannot be reached it searches the students last loaded (the map's and the
// list's, a kept copy offline) and says so in one line above the results.
import { searchLocations } from './api.js';
import { LocationList } from './list.js';
import { debounce } from './ui.js';
import { t } from './i18n.js';
import { state } from './state.js';
import { searchKept } from './keptData.js';
import { $ } from './dom.js';

/** Whether `error` means the server could not be reached (no answer, or a proxy's). */
function unreachable(error) {
  return Boolean(error) && (error.kind === 'network' || (error.kind === 'server' && error.status >= 502 && error.status <= 504));
}

/** The students shown: the list's rows (with their dates) first, then the map's. */
function loadedLocations() {
  const seen = new Set();
  const found = [];
  const add = (location) => {
    if (!location) return;
    if (location.objectId) {
      if (seen.has(location.objectId)) return;
      seen.add(location.objectId);
    }
    found.push(location);
  };
  if (state.list) for (const row of state.list.listElement.children) add(row.studentLocation);
  if (state.map) for (const location of state.map.locations) add(location);
  return found;
}

const SEARCH_DELAY_MS = 300;

/** What the search asks the server for the typed text, or null for nothing typed. */
export function searchWhere(text) {
  const query = text.trim().replace(/\s+/g, ' ');
  return query ? { text: query } : null;
}

export class SearchTab {
  constructor({ input, list, footer, scroller }) {
    this.input = input;
    this.results = new LocationList(list, footer, scroller, {
      emptyText: () => t('search.empty'),
      fetchPage: (page) => this.fetchPage(page),
    });
    this.lastQuery = null;
    this.showHint();
    const run = debounce(() => this.run(), SEARCH_DELAY_MS);
    input.addEventListener('input', run);
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') {
        run.cancel();
        this.run(true);
      }
    });
  }

  /** One page of results: the server's, or without the server the loaded students'. */
  async fetchPage({ limit, skip, where }) {
    try {
      const page = await searchLocations(where.text, { limit, skip });
      this.showKept(false);
      return page;
    } catch (error) {
      if (!unreachable(error)) throw error;
      this.showKept(true);
      return { results: searchKept(loadedLocations(), where.text).slice(skip, skip + limit), count: null };
    }
  }

  /** The line saying that the results are the loaded students', not the server's. */
  showKept(kept) {
    const note = $('search-kept');
    if (note) note.hidden = !kept;
  }

  set active(value) {
    this.results.active = value;
  }

  async run(force = false) {
    const text = this.input.value;
    const where = searchWhere(text);
    const key = where ? JSON.stringify(where) : '';
    if (!force && key === this.lastQuery) return;
    this.lastQuery = key;
    if (!where) {
      this.showHint();
      return;
    }
    this.results.setFooter(() => t('search.searching'), 'loading');
    const ok = await this.results.reload(where);
    if (!ok) this.lastQuery = null;
  }

  /** No query: no rows, and the footer says what to type. */
  showHint() {
    this.showKept(false);
    this.results.clear(() => t('search.hint'));
  }

  /** Re-runs the current search (the refresh button). */
  refresh() {
    if (this.results.where) return this.results.reload(this.results.where);
    return Promise.resolve(true);
  }
}
