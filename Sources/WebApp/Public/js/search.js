// The search tab: filters by name or place as you type, on the server, with a Parse
// `where` of case-insensitive `$regex` clauses joined by `$or`.
import { LocationList } from './list.js';
import { debounce } from './ui.js';
import { t } from './i18n.js';

const SEARCH_DELAY_MS = 300;

/** The user's text as a literal inside a regular expression. */
export function escapeRegex(text) {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

/** `{"$or":[{"firstName":{"$regex":…,"$options":"i"}}, …]}` for the typed text. */
export function searchWhere(text) {
  const query = text.trim().replace(/\s+/g, ' ');
  if (!query) return null;
  const contains = (value) => ({ $regex: escapeRegex(value), $options: 'i' });
  const clauses = [
    { firstName: contains(query) },
    { lastName: contains(query) },
    { mapString: contains(query) },
  ];
  const space = query.indexOf(' ');
  if (space > 0) {
    // "Ada Love" matches first name "Ada…" with last name "Love…".
    clauses.push({ firstName: contains(query.slice(0, space)), lastName: contains(query.slice(space + 1)) });
  }
  return { $or: clauses };
}

export class SearchTab {
  constructor({ input, list, footer, scroller }) {
    this.input = input;
    this.results = new LocationList(list, footer, scroller, { emptyText: () => t('search.empty') });
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
