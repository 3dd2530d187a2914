// languages.json, the app's one list of its languages, against everything that follows it:
// each language's catalogues (the web app's and the server's), its web app manifest, its
// direction and plural categories as Intl has them; and js/i18n.js, which reads it.
// Run: node --test Tests/JS
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';

const PUBLIC = new URL('../../Sources/WebApp/Public/', import.meta.url);
const read = (path) => readFileSync(new URL(path, PUBLIC), 'utf8');
const languages = JSON.parse(read('languages.json'));

test('every language has a tag, a name in itself, a direction and plural categories; English first', () => {
  assert.equal(languages[0].tag, 'en');
  assert.equal(new Set(languages.map(({ tag }) => tag)).size, languages.length);
  for (const language of languages) {
    assert.deepEqual(Object.keys(language).sort(), ['dir', 'name', 'plurals', 'tag'], language.tag);
    assert.equal(Intl.getCanonicalLocales(language.tag)[0], language.tag);
    assert.ok(language.name.trim(), language.tag);
    assert.equal(language.dir, new Intl.Locale(language.tag).textInfo.direction, language.tag);
    assert.deepEqual([...language.plurals].sort(), new Intl.PluralRules(language.tag).resolvedOptions().pluralCategories.sort(), language.tag);
  }
});

test('every language has its catalogues and, but English, its web app manifest', () => {
  for (const { tag } of languages) {
    assert.ok(existsSync(new URL(`locales/${tag}.json`, PUBLIC)), `locales/${tag}.json`);
    assert.ok(existsSync(new URL(`../../Localization/Catalogues/${tag}.json`, PUBLIC)), `Localization/Catalogues/${tag}.json`);
    if (tag === 'en') continue;
    const manifest = JSON.parse(read(`manifest.${tag}.webmanifest`));
    assert.equal(manifest.lang, tag);
  }
});

test('the service worker and i18n.js name no language of their own', () => {
  for (const file of ['sw.js', 'js/i18n.js']) {
    const code = read(file);
    for (const { tag } of languages.filter(({ tag }) => tag !== 'en')) {
      assert.ok(!code.includes(`'${tag}'`), `${file} names '${tag}': it should read languages.json`);
    }
  }
});

test('i18n.js picks and orients languages from languages.json', async () => {
  // Just enough of a browser for the module to load: languages.json from disk, no catalogue.
  globalThis.fetch = async (url) => (String(url) === '/languages.json'
    ? new Response(read('languages.json'))
    : new Response('{}', { status: 404 }));
  globalThis.document = {
    readyState: 'complete', cookie: '', querySelectorAll: () => [],
    documentElement: { lang: '', dir: '', classList: { remove() {} } },
  };
  globalThis.location = { protocol: 'http:' };
  globalThis.localStorage = { getItem: () => null, setItem() {} };
  Object.defineProperty(globalThis, 'navigator', { value: { languages: ['pt-PT', 'en'] }, configurable: true });
  const originalWarn = console.warn;
  console.warn = () => {};
  try {
    const i18n = await import('../../Sources/WebApp/Public/js/i18n.js');
    await i18n.ready;
    assert.deepEqual(i18n.LANGUAGES, languages);
    assert.equal(i18n.pickLanguage(null, ['pt-PT', 'en']), 'pt-BR');
    assert.equal(i18n.pickLanguage(null, ['zh-TW']), 'zh-Hans');
    assert.equal(i18n.pickLanguage('PT-br', []), 'pt-BR');
    assert.equal(i18n.pickLanguage(null, ['ja', 'de-AT']), 'de');
    assert.equal(i18n.pickLanguage(null, ['ja']), 'en');
    assert.equal(i18n.isRTL('ar'), true);
    assert.equal(i18n.isRTL('ar-EG'), true);
    assert.equal(i18n.isRTL('he'), false);
    assert.equal(i18n.isRTL('fr'), false);
  } finally {
    console.warn = originalWarn;
  }
});
