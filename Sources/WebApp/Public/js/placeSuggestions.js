// Type-ahead for the add-location sheet's place field: the WAI-ARIA combobox pattern (the
// field is role=combobox with aria-autocomplete=list, aria-expanded and aria-controls naming
// a listbox; the option with the visual focus is the field's aria-activedescendant; the focus
// itself never leaves the field). Suggestions come from GET /api/geocode/suggest, asked by
// combobox.js's Suggester (debounced, cancelled by the next question, never mid-composition).
// A polite live region says how many there are. Picking one (Enter on it, or a click or tap)
// fills the field with its name and hands its result to `onPick`.
import { comboboxKey, showing, CLOSED, Suggester } from './combobox.js';
import { el } from './ui.js';
import { t } from './i18n.js';

export class PlaceSuggestions {
  /**
   * @param {HTMLInputElement} input    the combobox
   * @param {HTMLElement} listbox       its popup (role=listbox)
   * @param {HTMLElement} status        a polite live region
   * @param {(query: string, signal: AbortSignal) => Promise<object[]>} ask
   * @param {(results: object[]) => string[]} labels  what each option says (the place's name)
   * @param {(result: object) => string} nameOf  what a picked option puts in the field
   * @param {(result: object, text: string) => void} onPick
   */
  constructor({ input, listbox, status, ask, labels, nameOf, onPick }) {
    this.input = input;
    this.listbox = listbox;
    this.status = status;
    this.labels = labels;
    this.nameOf = nameOf;
    this.onPick = onPick;
    this.results = [];
    this.texts = [];
    this.state = CLOSED;
    this.suggester = new Suggester({ ask, deliver: (query, results) => this.show(query, results) });

    input.setAttribute('role', 'combobox');
    input.setAttribute('aria-autocomplete', 'list');
    input.setAttribute('aria-expanded', 'false');
    input.setAttribute('aria-controls', listbox.id);
    input.addEventListener('input', (event) => this.suggester.input(input.value, event.isComposing));
    input.addEventListener('compositionstart', () => this.suggester.compositionStart());
    input.addEventListener('compositionend', () => this.suggester.compositionEnd(input.value));
    input.addEventListener('keydown', (event) => this.key(event));
    input.addEventListener('blur', () => this.close());
    // A press on an option keeps the focus in the field (mouse and touch); the click picks.
    listbox.addEventListener('pointerdown', (event) => event.preventDefault());
    listbox.addEventListener('mousedown', (event) => event.preventDefault());
    listbox.addEventListener('click', (event) => {
      const option = event.target.closest('[role="option"]');
      if (!option) return;
      this.pick(Number(option.dataset.index));
    });
  }

  /** Closes the list and stops asking (the form was sent, the sheet closed, the field left). */
  close() {
    this.suggester.cancel();
    this.setState(this.state.open ? { ...this.state, open: false, active: -1 } : this.state);
  }

  /** Forgets the suggestions (a new sheet). */
  reset() {
    this.suggester.cancel();
    this.results = [];
    this.texts = [];
    this.listbox.replaceChildren();
    this.status.textContent = '';
    this.setState(CLOSED);
  }

  show(query, results) {
    // Only for the field as it is now, and only while the student is in it.
    if (document.activeElement !== this.input) return;
    this.results = query ? results : [];
    this.texts = this.labels(this.results);
    this.listbox.replaceChildren(...this.results.map((result, index) => el('li', {
      id: `${this.listbox.id}-${index}`,
      class: 'suggestion',
      role: 'option',
      dir: 'auto',
      'aria-selected': 'false',
      dataset: { index: String(index) },
      text: this.texts[index],
    })));
    this.setState(showing(this.results.length));
    this.status.textContent = query ? t('add.suggestions.count', { count: this.results.length }) : '';
  }

  key(event) {
    if (event.isComposing || event.keyCode === 229) return;
    const { state, action, handled } = comboboxKey(this.state, event.key);
    const active = this.state.active;
    if (handled) {
      event.preventDefault();
      // Escape closes the list, not the dialog around it.
      event.stopPropagation();
    }
    if (action === 'pick') {
      this.pick(active);
      return;
    }
    if (action === 'close') this.suggester.cancel();
    this.setState(state);
  }

  pick(index) {
    const result = this.results[index];
    if (!result) return;
    const text = this.nameOf(result);
    this.suggester.cancel();
    this.input.value = text;
    this.setState({ open: false, count: this.results.length, active: -1 });
    this.status.textContent = '';
    this.onPick(result, text);
  }

  setState(state) {
    this.state = state;
    this.listbox.hidden = !state.open;
    this.input.setAttribute('aria-expanded', String(state.open));
    const options = this.listbox.children;
    for (let index = 0; index < options.length; index += 1) {
      options[index].setAttribute('aria-selected', String(state.open && index === state.active));
    }
    const option = state.open && state.active >= 0 ? options[state.active] : null;
    if (option) {
      this.input.setAttribute('aria-activedescendant', option.id);
      option.scrollIntoView({ block: 'nearest' });
    } else {
      this.input.removeAttribute('aria-activedescendant');
    }
  }
}
