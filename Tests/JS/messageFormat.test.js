// The web app's message formatter against the cases every reader of the catalogues shares
// (Tests/MessageFormat/cases.json). Run: node --test Tests/JS
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { formatMessage } from '../../Sources/WebApp/Public/js/messageFormat.js';

const cases = JSON.parse(readFileSync(new URL('../MessageFormat/cases.json', import.meta.url), 'utf8'));

test('every shared case formats as expected', () => {
  assert.ok(cases.format.length > 20);
  for (const { message, arguments: params, language, expected } of cases.format) {
    assert.equal(formatMessage(message, params, language), expected, `${JSON.stringify(message)} in ${language}`);
  }
});

test('every shared broken message is refused', () => {
  for (const message of cases.refused) {
    assert.throws(() => formatMessage(message, {}, 'en'), SyntaxError, JSON.stringify(message));
  }
});
