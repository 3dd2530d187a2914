// Form messages that follow the page's language: a message remembers how it was made (a
// function that words it in the current language) and is worded again when the language
// changes, as long as it still shows what it said.
import { onLanguageChange } from './i18n.js';
import { showFormMessage } from './ui.js';

/** Message box id → { render, text } of what it shows. */
const shown = new Map();

/** Shows `render()` in the form's message box (by id), and again in each new language;
 *  without `render` (or with '') hides the box. `render` may be a message text when the
 *  words do not depend on the language (the server's own). */
export function showTranslatedMessage(id, render) {
  if (!render) {
    shown.delete(id);
    showFormMessage(id, '');
    return;
  }
  const make = typeof render === 'function' ? render : () => render;
  const text = make();
  shown.set(id, { render: make, text });
  showFormMessage(id, text);
}

onLanguageChange(() => {
  for (const [id, entry] of shown) {
    const box = document.getElementById(id);
    // Hidden, or rewritten by another module since: no longer ours to word.
    if (!box || box.hidden || box.textContent !== entry.text) {
      shown.delete(id);
      continue;
    }
    entry.text = entry.render();
    box.textContent = entry.text;
  }
});
