// The location field's type-ahead logic (js/combobox.js): the keyboard's state machine and
// the debounced, cancellable asking. Run: node --test Tests/JS
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLOSED, comboboxKey, showing, suggestQuery, Suggester } from '../../Sources/WebApp/Public/js/combobox.js';

test('only text worth asking about is asked', () => {
  assert.equal(suggestQuery(''), '');
  assert.equal(suggestQuery('   '), '');
  assert.equal(suggestQuery('B'), '');
  assert.equal(suggestQuery(' Be '), 'Be');
  assert.equal(suggestQuery('New   York '), 'New York');
  assert.equal(suggestQuery('北'), '北');
  assert.equal(suggestQuery('القاهرة'), 'القاهرة');
  assert.equal(suggestQuery(null), '');
});

test('arrows move through the options and wrap; a closed list opens', () => {
  let state = showing(3);
  assert.deepEqual(state, { open: true, count: 3, active: -1 });
  const press = (key) => {
    const step = comboboxKey(state, key);
    state = step.state;
    return step;
  };
  assert.equal(press('ArrowDown').handled, true);
  assert.equal(state.active, 0);
  press('ArrowDown');
  press('ArrowDown');
  assert.equal(state.active, 2);
  press('ArrowDown');
  assert.equal(state.active, 0, 'wraps to the first');
  press('ArrowUp');
  assert.equal(state.active, 2, 'wraps to the last');
  assert.deepEqual(press('Escape'), { state: { open: false, count: 3, active: -1 }, action: 'close', handled: true });
  press('ArrowUp');
  assert.deepEqual(state, { open: true, count: 3, active: 2 }, 'ArrowUp opens on the last');
  press('Escape');
  press('ArrowDown');
  assert.deepEqual(state, { open: true, count: 3, active: 0 }, 'ArrowDown opens on the first');
});

test('Enter picks the active option, else it is the form\'s', () => {
  assert.deepEqual(comboboxKey({ open: true, count: 2, active: 1 }, 'Enter'),
    { state: { open: false, count: 2, active: -1 }, action: 'pick', handled: true });
  const none = comboboxKey({ open: true, count: 2, active: -1 }, 'Enter');
  assert.equal(none.handled, false, 'Enter with no active option sends the form');
  assert.equal(none.action, 'close');
  assert.equal(comboboxKey(CLOSED, 'Enter').handled, false);
});

test('Escape on a closed list and keys with nothing to move are left alone', () => {
  assert.equal(comboboxKey(CLOSED, 'Escape').handled, false, 'Escape then closes the dialog as usual');
  assert.equal(comboboxKey(CLOSED, 'ArrowDown').handled, false);
  assert.equal(comboboxKey(showing(0), 'ArrowUp').handled, false);
  assert.deepEqual(comboboxKey({ open: true, count: 2, active: 0 }, 'Tab').state, { open: false, count: 2, active: -1 });
  assert.equal(comboboxKey({ open: true, count: 2, active: 0 }, 'Tab').handled, false);
  assert.equal(comboboxKey({ open: true, count: 2, active: 0 }, 'a').handled, false);
});

/** Timers the test moves by hand. */
function fakeTimers() {
  let now = 0;
  let next = 1;
  const pending = new Map();
  return {
    setTimeout(fn, ms) { pending.set(next, { at: now + ms, fn }); return next++; },
    clearTimeout(id) { pending.delete(id); },
    advance(ms) {
      now += ms;
      for (const [id, { at, fn }] of [...pending].sort((a, b) => a[1].at - b[1].at)) {
        if (at <= now) { pending.delete(id); fn(); }
      }
    },
    get pending() { return pending.size; },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('typing is debounced: one question once typing pauses', async () => {
  const timers = fakeTimers();
  const asked = [];
  const delivered = [];
  const suggester = new Suggester({
    ask: async (query) => { asked.push(query); return [{ name: query }]; },
    deliver: (query, results) => delivered.push([query, results.length]),
    delay: 200, timers,
  });
  suggester.input('B');
  suggester.input('Be');
  timers.advance(150);
  suggester.input('Ber');
  timers.advance(150);
  suggester.input('Berl');
  assert.deepEqual(asked, []);
  timers.advance(200);
  await settle();
  assert.deepEqual(asked, ['Berl']);
  assert.deepEqual(delivered, [['', 0], ['Berl', 1]], 'the one-letter text cleared the list');
});

test('a newer question aborts the older one and its late answer is dropped', async () => {
  const timers = fakeTimers();
  const signals = [];
  const answers = [];
  const delivered = [];
  const suggester = new Suggester({
    ask: (query, signal) => {
      signals.push(signal);
      return new Promise((resolve) => answers.push(() => resolve([{ name: query }])));
    },
    deliver: (query) => delivered.push(query),
    delay: 200, timers,
  });
  suggester.input('Ber');
  timers.advance(200);
  suggester.input('Berl');
  assert.equal(signals[0].aborted, true, 'the first question is cancelled');
  timers.advance(200);
  answers[0]();
  answers[1]();
  await settle();
  assert.deepEqual(delivered, ['Berl']);
});

test('nothing is asked while an input method composes; its text is asked at the end', async () => {
  const timers = fakeTimers();
  const asked = [];
  const suggester = new Suggester({ ask: async (query) => { asked.push(query); return []; }, deliver: () => {}, delay: 200, timers });
  suggester.compositionStart();
  suggester.input('b', true);
  suggester.input('bei', true);
  suggester.input('北京', false); // some browsers send the last input before compositionend
  timers.advance(500);
  assert.deepEqual(asked, []);
  suggester.compositionEnd('北京');
  timers.advance(200);
  await settle();
  assert.deepEqual(asked, ['北京']);
});

test('cancel stops a pending question and a failed one suggests nothing', async () => {
  const timers = fakeTimers();
  const delivered = [];
  const suggester = new Suggester({
    ask: async () => { throw new Error('offline'); },
    deliver: (query, results) => delivered.push([query, results.length]),
    delay: 200, timers,
  });
  suggester.input('Lagos');
  suggester.cancel();
  assert.equal(timers.pending, 0);
  suggester.input('Lagos');
  timers.advance(200);
  await settle();
  assert.deepEqual(delivered, [['Lagos', 0]]);
});
