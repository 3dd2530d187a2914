// js/localTime.js: the time where a student is, from their place's IANA zone, in the
// reader's language, on a fixed clock.
// Run: node --test Tests/JS
import test from 'node:test';
import assert from 'node:assert/strict';
import { localTime, wallClock, now } from '../../Sources/WebApp/Public/js/localTime.js';

// 15 January 2026, 12:00 UTC: 13:00 in Berlin (CET), 21:00 in Tokyo; 15 July: 14:00 in Berlin (CEST).
const winter = Date.UTC(2026, 0, 15, 12, 0);
const summer = Date.UTC(2026, 6, 15, 12, 0);

test('the wall clock follows the zone and its summer time', () => {
  assert.equal(wallClock('Asia/Tokyo', winter), '2026-01-15T21:00');
  assert.equal(wallClock('Europe/Berlin', winter), '2026-01-15T13:00');
  assert.equal(wallClock('Europe/Berlin', summer), '2026-07-15T14:00');
  assert.equal(wallClock('America/New_York', winter), '2026-01-15T07:00');
  assert.equal(wallClock('Asia/Kolkata', winter), '2026-01-15T17:30');
});

test('formatted the reader\'s way', () => {
  assert.equal(localTime('Europe/Berlin', 'de', winter), '13:00');
  assert.equal(localTime('Asia/Tokyo', 'en', winter).replace(/\s/g, ' '), '9:00 PM');
  assert.equal(localTime('Asia/Tokyo', 'de', winter), '21:00');
  assert.equal(localTime('Asia/Tokyo', 'zh-Hans', winter), new Intl.DateTimeFormat('zh-Hans', { hour: 'numeric', minute: '2-digit', timeZone: 'Asia/Tokyo' }).format(winter));
  const arabic = localTime('Asia/Tokyo', 'ar', winter);
  assert.equal(arabic, new Intl.DateTimeFormat('ar', { hour: 'numeric', minute: '2-digit', timeZone: 'Asia/Tokyo' }).format(winter));
});

test('no zone, or one the browser does not know: no time rather than a wrong one', () => {
  assert.equal(localTime(null, 'en', winter), null);
  assert.equal(localTime('', 'en', winter), null);
  assert.equal(localTime('Mars/Olympus', 'en', winter), null);
  assert.equal(wallClock('Mars/Olympus', winter), null);
});

test('a test clock, when set, is the clock', () => {
  globalThis.onthemapTestClock = winter;
  try {
    assert.equal(now(), winter);
    assert.equal(wallClock('Asia/Tokyo'), '2026-01-15T21:00');
  } finally {
    delete globalThis.onthemapTestClock;
  }
  assert.ok(Math.abs(now() - Date.now()) < 1000);
});
