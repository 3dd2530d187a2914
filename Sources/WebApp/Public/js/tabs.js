// The four tabs (Map, List, Search, Travel): which view shows, the tab bar's keyboard
// behaviour, and the refresh button, which reloads what the current tab shows.
import { state, loadWorld } from './state.js';
import { go } from './router.js';
import { classAddress, pageTitle } from './currentClass.js';
import { mapTabLeft, refreshAll } from './students.js';
import { LocationList } from './list.js';
import { SearchTab } from './search.js';
import { TravelTab } from './travel.js';
import { drawNearMe } from './nearMeView.js';
import { $ } from './dom.js';
import { t, onLanguageChange } from './i18n.js';

export const TABS = ['map', 'list', 'search', 'travel'];
/** Each tab's name, as its button and the page title say it. */
const TAB_NAMES = { map: () => t('tabs.map'), list: () => t('tabs.list'), search: () => t('tabs.search'), travel: () => t('tabs.travel') };
/** A pointer chose the Search tab: its field takes the focus. From the keyboard the focus
 *  stays on the tabs, so the arrow keys keep moving between them. */
let focusSearchField = true;

export function selectTab(tab) {
  // The address can be shown twice for one change (go() on the address already set, then
  // its hashchange): only the Search tab's opening moves the focus into its field.
  const opening = state.tab !== tab;
  state.tab = tab;
  if (tab !== 'map') mapTabLeft();
  for (const name of TABS) {
    const active = name === tab;
    $(`${name}-view`).hidden = !active;
    const button = $(`tab-${name}`);
    button.setAttribute('aria-selected', String(active));
    button.tabIndex = active ? 0 : -1;
  }
  document.title = tabPageTitle(tab);
  if (state.list) state.list.active = tab === 'list';
  if (state.search) state.search.active = tab === 'search';
  if (tab === 'map' && state.map) state.map.invalidateSize();
  if (tab === 'list' && state.list) state.list.fillIfVisible();
  if (tab === 'list') drawNearMe();
  if (tab === 'search' && opening && focusSearchField) $('search-input').focus({ preventScroll: true });
  focusSearchField = true;
  $('main-scene').dataset.tab = tab;
  if (tab === 'travel') ensureTravel().show();
  else if (state.travel) state.travel.hide();
}

/** "Map · On the Map", "Karte · Biologie 101 · On the Map": the tab's name in the page's
 *  language, and the class shown when it is not the default one. */
export function tabPageTitle(tab) {
  return pageTitle((TAB_NAMES[tab] || TAB_NAMES.map)());
}

function ensureTravel() {
  if (!state.travel) state.travel = new TravelTab({ configPromise: state.configPromise, loadWorld });
  return state.travel;
}

/** The refresh button: the Travel tab reloads pins; the others reload student locations. */
export async function refresh() {
  if (state.tab !== 'travel') return refreshAll();
  const button = $('refresh-button');
  button.classList.add('spinning');
  button.disabled = true;
  try {
    await ensureTravel().refresh();
  } finally {
    if (!state.refreshing) {
      button.classList.remove('spinning');
      button.disabled = false;
    }
  }
}

export function setUpTabs() {
  const tabs = $('tabs');
  tabs.addEventListener('click', (event) => {
    const button = event.target.closest('[data-tab]');
    if (!button) return;
    focusSearchField = event.detail > 0;
    // A click on the Search tab already shown still puts the focus in its field.
    if (button.dataset.tab === 'search' && state.tab === 'search' && focusSearchField) $('search-input').focus({ preventScroll: true });
    go(classAddress(button.dataset.tab));
  });
  tabs.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    // From the tab with the focus: a second press can come before the address changed.
    const from = event.target.closest('[data-tab]');
    const index = TABS.indexOf(from ? from.dataset.tab : state.tab);
    // The arrow toward the end of the row moves on: the right one, or the left one in Arabic.
    const forward = (event.key === 'ArrowRight') !== (document.documentElement.dir === 'rtl');
    const next = TABS[(index + (forward ? 1 : TABS.length - 1)) % TABS.length];
    focusSearchField = false;
    go(classAddress(next));
    $(`tab-${next}`).focus();
  });
  // Another language: the title says the tab in it (the tab buttons are data-i18n).
  onLanguageChange(() => {
    if (!$('main-scene').hidden) document.title = tabPageTitle(state.tab);
  });
  state.list = new LocationList($('student-list'), $('list-footer'), $('list-view'));
  state.search = new SearchTab({
    input: $('search-input'),
    list: $('search-results'),
    footer: $('search-footer'),
    scroller: $('search-view'),
  });
}
