// The invite link's ways out, at the top of a class's settings (teachers): a QR code of the
// link for a classroom's projector (drawn here, by js/qrCode.js: no other service sees the
// link) and Send by email (addresses one per line or separated by commas, at most 200 at a
// time; the server writes one email per address, `POST /api/classes/<slug>/invite/email`).
// On a server without email the button says so and sends nothing.
import * as api from './api.js';
import { encodeQR, qrSVG } from './qrCode.js';
import { $ } from './dom.js';
import { t } from './i18n.js';
import { setBusy, formFailureMessage } from './ui.js';
import { showTranslatedMessage } from './formMessages.js';
import { isolated } from './bidi.js';

export const MAX_ADDRESSES = 200;

/** The addresses in what was typed: split at new lines, commas, semicolons and spaces, each
 *  once (letter case aside), in order. */
export function readAddresses(text) {
  const seen = new Set();
  const out = [];
  for (const part of String(text).split(/[\s,;]+/)) {
    const address = part.replace(/^<|>$/g, '').trim();
    if (!address || seen.has(address.toLowerCase())) continue;
    seen.add(address.toLowerCase());
    out.push(address);
  }
  return out;
}

/** Near enough to an address to send: something@something.something, no spaces. */
export function looksLikeAddress(text) {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text) && text.length <= 254;
}

let shown = { slug: null, url: null, email: false };
let ready = false;

function setUp() {
  if (ready) return;
  ready = true;
  $('invite-email-form').addEventListener('submit', (event) => {
    event.preventDefault();
    send();
  });
}

/** Draws the QR code and the email form for `view` (a class as its teacher sees it) and its
 *  link `url` (null: the class has none). Called again in a new language. */
export function renderInviteShare(view, url) {
  setUp();
  shown = { slug: view.slug, url, email: view.invite_email === true };
  const box = $('invite-qr');
  if (box.dataset.url !== (url || '')) {
    box.innerHTML = url ? qrSVG(encodeQR(url)) : '';
    box.dataset.url = url || '';
  }
  box.setAttribute('aria-label', t('settings.invite.qrLabel'));
  $('invite-email-form').hidden = !url;
  const button = $('invite-email-send');
  button.disabled = !shown.email;
  $('invite-emails').disabled = !shown.email;
  $('invite-email-off').hidden = shown.email;
  if (!button.classList.contains('busy')) {
    button.querySelector('.button-label').textContent = shown.email
      ? t('settings.invite.email.send') : t('settings.invite.email.notSetUp');
  }
}

/** Clears what the form said (another class's settings, say). */
export function resetInviteShare() {
  showTranslatedMessage('invite-email-error', '');
  showTranslatedMessage('invite-email-done', '');
  $('invite-emails').value = '';
}

function failure(error) {
  switch (error.code) {
    case 'email_not_set_up': return () => t('settings.invite.email.notSetUpHint');
    case 'too_many_invitations': return () => t('settings.invite.email.tooManyToday');
    case 'too_many_addresses': return () => t('settings.invite.email.tooMany');
    case 'invalid_email': return () => t('settings.invite.email.invalidServer');
    default: return () => formFailureMessage(error, t('settings.invite.email.failed'));
  }
}

async function send() {
  if (!shown.email || !shown.slug) return;
  const field = $('invite-emails');
  const addresses = readAddresses(field.value);
  showTranslatedMessage('invite-email-done', '');
  const wrong = addresses.find((address) => !looksLikeAddress(address));
  const problem = addresses.length === 0 ? () => t('settings.invite.email.missing')
    : wrong ? () => t('settings.invite.email.invalid', { email: isolated(wrong) })
      : addresses.length > MAX_ADDRESSES ? () => t('settings.invite.email.tooMany') : null;
  showTranslatedMessage('invite-email-error', problem);
  if (problem) {
    field.focus();
    return;
  }
  const button = $('invite-email-send');
  setBusy(button, true, t('settings.invite.email.sending'));
  const slug = shown.slug;
  try {
    const answer = await api.request(`/api/classes/${encodeURIComponent(slug)}/invite/email`, {
      method: 'POST', body: { emails: addresses },
    });
    const count = Number(answer && answer.sent) || addresses.length;
    if (slug === shown.slug) {
      field.value = '';
      showTranslatedMessage('invite-email-done', () => t('settings.invite.email.sent', { count }));
    }
  } catch (error) {
    if (slug === shown.slug) showTranslatedMessage('invite-email-error', failure(error));
  } finally {
    setBusy(button, false);
    button.disabled = !shown.email;
    if (slug === shown.slug) {
      button.querySelector('.button-label').textContent = shown.email
        ? t('settings.invite.email.send') : t('settings.invite.email.notSetUp');
    }
  }
}
