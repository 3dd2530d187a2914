// A class's options, the one list of them in the web app: who sees its map, who may join,
// where its students appear and which posts wait for approval, each choice with its message
// keys (English beside them until the catalogue is in), and what a new class starts with (the
// server's MapClass.NewClass, what POST /api/classes makes without them; ClassOptionsTests
// holds the choices and the defaults here to the server's). The form that sets them is
// written once, here, and drawn into both the new class's page and a class's settings
// (index.html's `data-class-options` places).
import { ready, translateDocument } from './i18n.js';

/** Each option: its form field's name, its choices (values in order, each with its message
 *  keys and English), and a new class's choice. */
export const CLASS_OPTIONS = {
  visibility: {
    label: ['classOptions.visibility.label', 'Who sees its map'],
    default: 'members',
    choices: [
      { value: 'members', text: ['classOptions.visibility.members', 'Its members only'] },
      { value: 'server', text: ['classOptions.visibility.server', 'Everyone with an account here'] },
      { value: 'public', text: ['classOptions.visibility.public', 'Anyone, even without an account'] },
    ],
  },
  join: {
    label: ['classOptions.join.label', 'Who may join'],
    default: 'invite',
    choices: [
      { value: 'invite', text: ['classOptions.join.invite', 'Whoever has the invite link'] },
      { value: 'open', text: ['classOptions.join.open', 'Anyone with an account here'] },
      { value: 'closed', text: ['classOptions.join.closed', 'Nobody: teachers invite members'] },
    ],
  },
  precision: {
    label: ['classOptions.precision.label', 'Where students appear'],
    default: 'city',
    choices: [
      { value: 'exact', title: ['classOptions.precision.exact.title', 'Exact point'],
        detail: ['classOptions.precision.exact.detail', 'Where each student puts their pin, down to the street.'] },
      { value: 'city', title: ['classOptions.precision.city.title', 'Town'],
        detail: ['classOptions.precision.city.detail', 'At the centre of their nearest town, never their street.'] },
      { value: 'region', title: ['classOptions.precision.region.title', 'Region'],
        detail: ['classOptions.precision.region.detail', 'Only their state, province or region.'] },
      { value: 'country', title: ['classOptions.precision.country.title', 'Country'],
        detail: ['classOptions.precision.country.detail', 'Only their country.'] },
    ],
  },
  approval: {
    label: ['classOptions.approval.label', 'Posts wait for approval'],
    default: 'off',
    choices: [
      { value: 'off', title: ['classOptions.approval.off.title', 'Off'],
        detail: ['classOptions.approval.off.detail', 'Posts show on the map at once.'] },
      { value: 'new-members', title: ['classOptions.approval.newMembers.title', 'New members’ first post'],
        detail: ['classOptions.approval.newMembers.detail', 'A member’s first post waits for a moderator; after that, their posts show at once.'] },
      { value: 'all', title: ['classOptions.approval.all.title', 'Every post and move'],
        detail: ['classOptions.approval.all.detail', 'Every post, and every move of one, waits for a moderator before classmates see it.'] },
    ],
  },
};

/** A class's location precision, finest first: where its students appear on its map. */
export const PRECISIONS = CLASS_OPTIONS.precision.choices.map(({ value }) => value);
/** Whether posts in a class wait for a moderator's approval: never, a member's first, every one. */
export const APPROVALS = CLASS_OPTIONS.approval.choices.map(({ value }) => value);
/** What a new class starts with ({visibility, join, precision, approval}). */
export const NEW_CLASS = Object.fromEntries(Object.entries(CLASS_OPTIONS).map(([name, option]) => [name, option.default]));

/** What each form says under its precision and approval choices. */
const HINTS = {
  class: {
    precision: ['settings.precision.hint', 'A coarser level moves everyone already on the map at once, for good: their exact points are not kept, so a finer level later applies to new posts only.'],
    approval: ['settings.approval.hint', 'A waiting post is seen only by its author and the class’s moderators, who approve or reject it under Moderate. Teachers’ and moderators’ own posts never wait. Turning approval off does not approve the posts already waiting.'],
  },
  create: {
    precision: ['create.precisionHint', 'Below Exact point, each post is moved to its town, region or country as it is made, and the exact point is never kept. You can change this later in the class’s settings.'],
    approval: ['create.approvalHint', 'A waiting post is seen only by its author and the class’s moderators, who approve or reject it under Moderate. Teachers’ and moderators’ own posts never wait. You can change this later in the class’s settings.'],
  },
};

function element(name, attributes = {}, children = []) {
  const node = document.createElement(name);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === true) node.setAttribute(key, '');
    else if (value !== false && value != null) node.setAttribute(key, value);
  }
  node.append(...children);
  return node;
}

/** A text element of a message key, in English until translated. */
function said(name, [key, english], attributes = {}) {
  return element(name, { ...attributes, 'data-i18n': key }, [english]);
}

function select(prefix, name, option, chooseDefault) {
  return element('label', { class: 'field' }, [
    said('span', option.label, { class: 'field-label' }),
    element('select', { id: `${prefix}-${name}`, name }, option.choices.map((choice) =>
      said('option', choice.text, { value: choice.value, selected: chooseDefault && choice.value === option.default }))),
  ]);
}

function choices(prefix, name, option, hint, chooseDefault) {
  const id = `${prefix}-${name}`;
  return element('fieldset', { id, class: 'field choices', 'aria-describedby': `${id}-hint` }, [
    said('legend', option.label, { class: 'field-label' }),
    ...option.choices.map((choice) => {
      const each = `${id}-${choice.value}`;
      return element('label', { class: 'choice' }, [
        element('input', {
          type: 'radio', name, value: choice.value, checked: chooseDefault && choice.value === option.default,
          'aria-labelledby': `${each}-title`, 'aria-describedby': each,
        }),
        element('span', { class: 'choice-text' }, [
          said('span', choice.title, { id: `${each}-title`, class: 'choice-title' }),
          said('span', choice.detail, { id: each, class: 'choice-detail' }),
        ]),
      ]);
    }),
    said('p', hint, { id: `${id}-hint`, class: 'class-hint choices-hint' }),
  ]);
}

/** The options' fields for a form: ids `<prefix>-visibility`, `-join`, `-precision` (radios
 *  named precision), `-approval`; `create` starts on a new class's choices, `class` (a
 *  class's settings) on none until its class is shown. */
export function classOptionFields(form) {
  const prefix = form;
  const fresh = form === 'create';
  return [
    select(prefix, 'visibility', CLASS_OPTIONS.visibility, fresh),
    select(prefix, 'join', CLASS_OPTIONS.join, fresh),
    choices(prefix, 'precision', CLASS_OPTIONS.precision, HINTS[form].precision, fresh),
    choices(prefix, 'approval', CLASS_OPTIONS.approval, HINTS[form].approval, fresh),
  ];
}

/** Draws the options into every `data-class-options="create|class"` place of the page. */
export function drawClassOptions(root = document) {
  for (const place of root.querySelectorAll('[data-class-options]')) {
    const fields = classOptionFields(place.dataset.classOptions);
    place.replaceWith(...fields);
    // In the page's language (apply() translates the page it finds; this may come after).
    ready.then(() => { for (const field of fields) translateDocument(field); });
  }
}

drawClassOptions();
