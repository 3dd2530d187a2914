// Class settings, for teachers: the code that shows a public class's map on another site (the
// school's website): an iframe of `/embed/<slug>` (js/embed.js), with Copy. Only a public
// class has one: the server frames no other class's page (it answers 404), since anyone who
// visits that site would see the map.
import { el } from './ui.js';
import { t } from './i18n.js';
import { $, copyFieldText } from './dom.js';

/** The snippet for class `slug` named `name`, served from `origin`. */
export function embedSnippet(origin, slug, name) {
  const attribute = (text) => String(text).replace(/[&<>"]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[char]);
  return `<iframe src="${attribute(`${origin}/embed/${slug}`)}" title="${attribute(name)}" width="100%" height="450" `
    + 'style="border:0" loading="lazy" referrerpolicy="no-referrer"></iframe>';
}

let copiedTimer = null;

function section() {
  let found = $('embed-section');
  if (found) return found;
  const code = el('textarea', { id: 'embed-code', class: 'embed-code', rows: '3', dir: 'ltr', readonly: true, spellcheck: 'false' });
  const copy = el('button', { id: 'embed-copy', class: 'button secondary', type: 'button' });
  copy.addEventListener('click', () => copyCode());
  found = el('section', { id: 'embed-section', class: 'class-section', 'aria-labelledby': 'embed-title', hidden: true }, [
    el('h2', { id: 'embed-title' }),
    el('p', { id: 'embed-hint', class: 'class-hint' }),
    el('div', { id: 'embed-box', class: 'embed-box' }, [
      el('label', { class: 'field', for: 'embed-code' }, [el('span', { id: 'embed-code-label', class: 'field-label' })]),
      code,
      el('div', { class: 'embed-actions' }, [copy]),
    ]),
    el('p', { id: 'embed-error', class: 'form-error', role: 'alert', hidden: true }),
    el('div', { role: 'status' }, [el('p', { id: 'embed-done', class: 'form-success', hidden: true })]),
  ]);
  const after = $('export-section');
  if (after) after.after(found);
  return found;
}

/** Shows (for a teacher, `manages`) or hides the embed code of class `view`, in the page's
 *  language; called again after every change of the class or of the language. */
export function renderEmbedCode(view, manages) {
  const box = section();
  box.hidden = !manages || !view;
  if (box.hidden) return;
  const isPublic = view.visibility === 'public';
  $('embed-title').textContent = t('settings.embed.title');
  $('embed-hint').textContent = isPublic ? t('settings.embed.hint') : t('settings.embed.publicOnly');
  $('embed-code-label').textContent = t('settings.embed.code');
  $('embed-box').hidden = !isPublic;
  $('embed-code').value = isPublic ? embedSnippet(location.origin, view.slug, view.name) : '';
  if (!copiedTimer) $('embed-copy').textContent = t('settings.invite.copy');
  if (!isPublic) {
    $('embed-done').hidden = true;
    $('embed-error').hidden = true;
  }
}

async function copyCode() {
  const field = $('embed-code');
  const copied = await copyFieldText(field);
  $('embed-done').hidden = !copied;
  $('embed-done').textContent = copied ? t('settings.embed.copied') : '';
  $('embed-error').hidden = copied;
  $('embed-error').textContent = copied ? '' : t('settings.embed.copyFailed');
  if (!copied) {
    field.focus();
    field.select();
    return;
  }
  const button = $('embed-copy');
  button.textContent = t('settings.invite.copied');
  clearTimeout(copiedTimer);
  copiedTimer = setTimeout(() => {
    copiedTimer = null;
    button.textContent = t('settings.invite.copy');
  }, 2500);
}
