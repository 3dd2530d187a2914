// The pure part of the location field's type-ahead (the WAI-ARIA combobox pattern with a
// listbox popup, https://www.w3.org/WAI/ARIA/apg/patterns/combobox/): which text is worth
// asking about, what a key does to the list, and the debounced, cancellable asking itself.
// No DOM here, so that `node --test Tests/JS` runs it; placeSuggestions.js draws it.

/** How long typing pauses before the server is asked (ms). */
export const SUGGEST_DELAY = 200;

/** Han, kana and Hangul: one such character can be a place's name (北, 京). */
const IDEOGRAPHIC = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** The text to ask suggestions for ('' when there is nothing worth asking): trimmed, its
 *  runs of spaces made one; at least two characters, or one ideograph. */
export function suggestQuery(text) {
  const query = String(text ?? '').trim().replace(/\s+/gu, ' ');
  if (!query) return '';
  if ([...query].length >= 2) return query;
  return IDEOGRAPHIC.test(query) ? query : '';
}

/** The list as the keyboard sees it: `{ open, count, active }`, `active` the index of the
 *  option with the visual focus or -1 (the focus stays in the field: aria-activedescendant). */
export const CLOSED = Object.freeze({ open: false, count: 0, active: -1 });

/** The list once `count` suggestions came: open when there are any, none active yet. */
export function showing(count) {
  return count > 0 ? { open: true, count, active: -1 } : CLOSED;
}

/**
 * What `key` (a KeyboardEvent's `key`) does: `{ state, action, handled }`. `action` is
 * 'pick' (the active option is chosen), 'close' (the list closes, nothing chosen) or null;
 * `handled` says the page must prevent the key's default (and, for Escape, keep it from
 * closing the dialog too). ArrowDown and ArrowUp move through the options and wrap (they
 * open a closed list that has options); Enter picks the active option and otherwise is
 * the form's (Find); Escape closes an open list; Tab closes it and moves on as usual.
 * Arrows are up and down in right-to-left pages too: the list is vertical.
 */
export function comboboxKey(state, key) {
  const { open, count, active } = state;
  switch (key) {
    case 'ArrowDown':
    case 'Down':
      if (count === 0) return { state, action: null, handled: false };
      if (!open) return { state: { open: true, count, active: 0 }, action: null, handled: true };
      return { state: { open, count, active: active + 1 >= count ? 0 : active + 1 }, action: null, handled: true };
    case 'ArrowUp':
    case 'Up':
      if (count === 0) return { state, action: null, handled: false };
      if (!open) return { state: { open: true, count, active: count - 1 }, action: null, handled: true };
      return { state: { open, count, active: active <= 0 ? count - 1 : active - 1 }, action: null, handled: true };
    case 'Enter':
      if (open && active >= 0) return { state: { open: false, count, active: -1 }, action: 'pick', handled: true };
      return { state: open ? { open: false, count, active: -1 } : state, action: open ? 'close' : null, handled: false };
    case 'Escape':
    case 'Esc':
      if (open) return { state: { open: false, count, active: -1 }, action: 'close', handled: true };
      return { state, action: null, handled: false };
    case 'Tab':
      return { state: open ? { open: false, count, active: -1 } : state, action: open ? 'close' : null, handled: false };
    default:
      return { state, action: null, handled: false };
  }
}

/**
 * Asks for suggestions as the student types: once typing pauses for `delay` ms, never
 * while an input method composes a word (CJK: only the composed text is asked about, at
 * `compositionEnd`), the previous question cancelled (AbortController) when a new one is
 * asked, and an answer for text that is no longer in the field never delivered.
 *
 * `ask(query, signal)` resolves to the results; `deliver(query, results)` receives them
 * (`deliver('', [])` when there is nothing to suggest). `timers` is for tests.
 */
export class Suggester {
  constructor({ ask, deliver, delay = SUGGEST_DELAY, timers = globalThis }) {
    this.ask = ask;
    this.deliver = deliver;
    this.delay = delay;
    this.timers = timers;
    this.timer = null;
    this.controller = null;
    this.composing = false;
    /** The query the next delivery must be for. */
    this.wanted = '';
  }

  /** The field's text changed (an `input` event); `composing` from the event's isComposing. */
  input(text, composing = false) {
    if (composing || this.composing) return;
    this.schedule(text);
  }

  compositionStart() {
    this.composing = true;
    this.stopWaiting();
  }

  /** The input method gave its text: asked about as typed text is. */
  compositionEnd(text) {
    this.composing = false;
    this.schedule(text);
  }

  /** Nothing more is asked or delivered (the field lost focus, the form was sent). */
  cancel() {
    this.wanted = '';
    this.stopWaiting();
  }

  schedule(text) {
    const query = suggestQuery(text);
    this.stopWaiting();
    this.wanted = query;
    if (!query) {
      this.deliver('', []);
      return;
    }
    this.timer = this.timers.setTimeout(() => {
      this.timer = null;
      this.run(query);
    }, this.delay);
  }

  stopWaiting() {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    if (this.controller) this.controller.abort();
    this.controller = null;
  }

  async run(query) {
    const controller = new AbortController();
    this.controller = controller;
    let results;
    try {
      results = await this.ask(query, controller.signal);
    } catch {
      // A cancelled or failed suggestion is no suggestion: Find still works.
      results = [];
    }
    if (controller.signal.aborted || this.wanted !== query) return;
    this.controller = null;
    this.deliver(query, Array.isArray(results) ? results : []);
  }
}
