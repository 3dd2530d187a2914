// The search tab: filters by name or place as you type, on the server's search
// (`/api/locations/search`: case, accents and width folded, a place found in any language).
import { searchLocations } from './api.js';
import { LocationList } from './list.js';
import { debounce } from './ui.js';
import { t } from './i18n.js';

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
      fetchPage: ({ limit, skip, where }) => searchLocations(where.text, { limit, skip }),
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
    this.results.clear(() => t('search.hint'));
  }

  /** Re-runs the current search (the refresh button). */
  refresh() {
    if (this.results.where) return this.results.reload(this.results.where);
    return Promise.resolve(true);
  }
}
