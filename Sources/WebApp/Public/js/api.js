// Talks to the same public API every other client uses: the Udacity-style session
// routes, our account routes, and the Parse-style StudentLocation class.

import { FROM_CACHE_HEADER, noteAnswer, noteNoAnswer } from './connection.js';
import { readCookie } from './cookies.js';
import { sessionEpoch, sessionRefused } from './sessionEvents.js';
import { classPath } from './currentClass.js';
import { keptPinsChanged, keptLocationsChanged } from './keptSession.js';
import { language, t } from './i18n.js';

/** The shown class's StudentLocation class (currentClass.js). */
const locations = () => classPath('/parse/classes/StudentLocation');
const UDACITY_PREFIX = ")]}'";

/** Why a call failed: `network` (no answer at all), `server` (5xx), `auth` (401/403),
 *  `notFound` (404) or `client` (any other 4xx). */
export class ApiError extends Error {
  /** `retryAfter`: the seconds the server's `Retry-After` asked to wait (a 429 or 503), or null. */
  constructor(kind, message, status = 0, code = null, retryAfter = null) {
    super(message);
    this.name = 'ApiError';
    this.kind = kind;
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
  get isNetwork() { return this.kind === 'network'; }
}

function messageFrom(body) {
  if (!body || typeof body !== 'object') return null;
  if (typeof body.error === 'string') return body.error;
  if (body.error && typeof body.error.message === 'string') return body.error.message;
  if (typeof body.message === 'string') return body.message;
  return null;
}

/** `Retry-After` in seconds (the server sends whole seconds), or null. */
function retryAfterOf(response) {
  const seconds = Number(response.headers.get('Retry-After'));
  return response.headers.has('Retry-After') && Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
}

function codeFrom(body) {
  if (!body || typeof body !== 'object') return null;
  if (body.error && typeof body.error === 'object') return body.error.code ?? null;
  return body.code ?? null;
}

/** One HTTP call to our own API; every request of the web app goes through here, so the
 *  XSRF header, the offline banner (connection.js) and a 401 ending the session
 *  (sessionEvents.js) work the same for all. Resolves to the parsed JSON answer (null when
 *  empty); rejects with an ApiError. `udacity: true` strips the 5-byte anti-JSON-hijacking
 *  prefix. */
export async function request(path, { method = 'GET', body, headers = {}, udacity = false, signal } = {}) {
  const epoch = sessionEpoch();
  // Accept-Language: our own API's error messages come back in the language the student reads.
  const init = { method, headers: { Accept: 'application/json', 'Accept-Language': language(), ...headers }, credentials: 'same-origin', signal };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  if (method !== 'GET') {
    const xsrf = readCookie('XSRF-TOKEN');
    if (xsrf) init.headers['X-XSRF-TOKEN'] = xsrf;
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    if (error && error.name === 'AbortError') throw error;
    noteNoAnswer();
    throw new ApiError('network', t('error.network'));
  }
  noteAnswer(response.headers.get(FROM_CACHE_HEADER));
  let text;
  try {
    text = await response.text();
  } catch (error) {
    if (error && error.name === 'AbortError') throw error;
    throw new ApiError('network', t('api.error.connectionLost'));
  }
  if (udacity && text.startsWith(UDACITY_PREFIX)) text = text.slice(5);
  let json = null;
  if (text) {
    try { json = JSON.parse(text); } catch { json = null; }
  }
  if (!response.ok) {
    const status = response.status;
    // Our API answers 401 only when the request has no live session (ended, expired, or
    // never started): whatever this device kept for the account must go (session.js).
    if (status === 401) sessionRefused(epoch);
    const kind = status >= 500 ? 'server' : status === 401 || status === 403 ? 'auth' : status === 404 ? 'notFound' : 'client';
    const message = messageFrom(json) || t('api.error.status', { status: `${status} ${response.statusText || ''}`.trim() });
    throw new ApiError(kind, message, status, codeFrom(json), retryAfterOf(response));
  }
  if (json === null && text) throw new ApiError('server', t('api.error.unreadable'), response.status);
  return json;
}

// ---- session and accounts -------------------------------------------------

/** Logs in; resolves to `{ key, expiresAt }`: the account key, and when the session ends
 *  (an ISO date, or null when the server did not say). */
export async function logIn(email, password, { sharedComputer = false } = {}) {
  // `shared_computer` (only when chosen): the session's cookies end when the browser closes.
  const login = { udacity: { username: email, password } };
  if (sharedComputer) login.shared_computer = true;
  const body = await request('/api/session', { method: 'POST', udacity: true, body: login });
  const key = body && body.account && body.account.key;
  if (!key) throw new ApiError('server', t('api.error.noAccount'));
  const expiration = body.session && typeof body.session.expiration === 'string' ? new Date(body.session.expiration) : null;
  return { key: String(key), expiresAt: expiration && !Number.isNaN(expiration.getTime()) ? expiration.toISOString() : null };
}

/** Ends this session, or with `everywhere` every session of the account (this one too). */
export async function logOut({ everywhere = false } = {}) {
  await request(everywhere ? '/api/session?all=1' : '/api/session', { method: 'DELETE', udacity: true });
}

/** Changes the password; resolves to how many other sessions the server ended. */
export async function changePassword(currentPassword, newPassword) {
  const body = await request('/api/account/password', {
    method: 'POST',
    body: { current_password: currentPassword, new_password: newPassword },
  });
  return Number(body && body.ended_sessions) || 0;
}

/** Public user data: resolves to { key, firstName, lastName }. */
export async function fetchUser(key) {
  const body = await request(`/api/users/${encodeURIComponent(key)}`, { udacity: true });
  const user = (body && body.user) || body || {};
  return {
    key: String(body.key ?? user.key ?? key),
    firstName: String(body.first_name ?? user.first_name ?? ''),
    lastName: String(body.last_name ?? user.last_name ?? ''),
  };
}

/** Sets a new password with the token of a reset link (reset.html); the server ends every
 *  session of the account. */
export async function resetPassword(token, newPassword) {
  await request('/api/password-reset', { method: 'POST', body: { token, new_password: newPassword } });
}

/** "Forgot password?": asks the server to email a reset link to `email`. The answer is the
 *  same whether or not an account has the address; fails with code `email_not_set_up` (503)
 *  when the server sends no email, and with status 429 when asked too often. */
export async function requestPasswordReset(email) {
  await request('/api/password-reset/request', { method: 'POST', body: { email } });
}

/** Creates an account; resolves to its key. */
export async function signUp({ email, password, firstName, lastName }) {
  const body = await request('/api/users', {
    method: 'POST',
    body: { email, password, first_name: firstName, last_name: lastName },
  });
  return body && body.account ? String(body.account.key) : null;
}

// ---- student locations ----------------------------------------------------

/** One page of StudentLocation results, most recent first. */
export async function fetchLocations({ limit = 100, skip = 0, where = null, count = false, keys = null, signal } = {}) {
  const params = new URLSearchParams();
  params.set('limit', String(limit));
  if (skip) params.set('skip', String(skip));
  params.set('order', '-updatedAt');
  if (where) params.set('where', JSON.stringify(where));
  if (count) params.set('count', '1');
  if (keys) params.set('keys', keys.join(','));
  const body = await request(`${locations()}?${params}`, { headers: await parseHeaders(), signal });
  if (!body || !Array.isArray(body.results)) throw new ApiError('server', t('api.error.unexpectedLocations'));
  return { results: body.results, count: typeof body.count === 'number' ? body.count : null };
}

/** One page of the class's students whose name or place matches `text` (the server folds
 *  case, accents and width, and finds a place written in any language), newest first. */
export async function searchLocations(text, { limit = 100, skip = 0, signal } = {}) {
  const params = new URLSearchParams({ q: text, limit: String(limit) });
  if (skip) params.set('skip', String(skip));
  const body = await request(`${classPath('/api/locations/search')}?${params}`, { signal });
  if (!body || !Array.isArray(body.results)) throw new ApiError('server', t('api.error.unexpectedLocations'));
  return { results: body.results, count: null };
}

/** The signed-in student's own location, or null. */
export async function fetchOwnLocation(accountKey) {
  const { results } = await fetchLocations({ limit: 1, where: { uniqueKey: accountKey } });
  return results[0] || null;
}

// Each write of the student's own post or pins changes what the device kept to match
// (keptSession.js), so that the app opened without the server shows it as it is.

export async function createLocation(location) {
  const prefix = classPath('');
  const created = await request(locations(), { method: 'POST', headers: await parseHeaders(), body: location });
  if (created && typeof created.objectId === 'string') {
    const at = typeof created.createdAt === 'string' ? created.createdAt : new Date().toISOString();
    keptLocationsChanged(prefix, { location: { ...location, objectId: created.objectId, createdAt: at, updatedAt: at } });
  }
  return created;
}

export async function updateLocation(objectId, location) {
  const prefix = classPath('');
  const updated = await request(`${locations()}/${encodeURIComponent(objectId)}`, { method: 'PUT', headers: await parseHeaders(), body: location });
  const at = updated && typeof updated.updatedAt === 'string' ? updated.updatedAt : new Date().toISOString();
  keptLocationsChanged(prefix, { location: { ...location, objectId, updatedAt: at } });
  return updated;
}

/** Deletes one of the student's own posts, in class `slug` (the shown class by default). */
export async function deleteLocation(objectId, slug = undefined) {
  const path = classPath('/parse/classes/StudentLocation', slug);
  const answer = await request(`${path}/${encodeURIComponent(objectId)}`, { method: 'DELETE', headers: await parseHeaders() });
  keptLocationsChanged(classPath('', slug), { deleted: objectId });
  return answer;
}

/** The student's own post in class `slug` (null: the default class), or null. */
export async function fetchOwnLocationIn(slug, accountKey) {
  const params = new URLSearchParams({ limit: '1', where: JSON.stringify({ uniqueKey: accountKey }) });
  const body = await request(`${classPath('/parse/classes/StudentLocation', slug)}?${params}`, { headers: await parseHeaders() });
  return body && Array.isArray(body.results) ? body.results[0] || null : null;
}

/** Changes the account's first and last name (and every post of theirs); resolves to the
 *  names as kept: `{ first_name, last_name }`. */
export async function renameAccount(firstName, lastName) {
  return request('/api/account/name', { method: 'PUT', body: { first_name: firstName, last_name: lastName } });
}

/** "Download My Data": the zip (`/api/account/data.zip`: a page to read, the JSON and
 *  GeoJSON, the photos) as a Blob. Fails as request() does (a 401 ends the session). */
export async function downloadMyData() {
  const epoch = sessionEpoch();
  let response;
  try {
    response = await fetch('/api/account/data.zip', { headers: { 'Accept-Language': language() }, credentials: 'same-origin' });
  } catch {
    noteNoAnswer();
    throw new ApiError('network', t('error.network'));
  }
  noteAnswer(response.headers.get(FROM_CACHE_HEADER));
  if (!response.ok) {
    let json = null;
    try { json = await response.json(); } catch { json = null; }
    const status = response.status;
    if (status === 401) sessionRefused(epoch);
    const kind = status >= 500 ? 'server' : status === 401 || status === 403 ? 'auth' : status === 404 ? 'notFound' : 'client';
    throw new ApiError(kind, messageFrom(json) || t('api.error.status', { status: `${status} ${response.statusText || ''}`.trim() }), status, codeFrom(json), retryAfterOf(response));
  }
  try {
    return await response.blob();
  } catch {
    throw new ApiError('network', t('api.error.connectionLost'));
  }
}

// ---- classes (classes.js, classPages.js, classSettings.js) ----------------

const classURL = (slug, rest = '') => `/api/classes/${encodeURIComponent(slug)}${rest}`;

/** `{ classes, joinable, default_class, can_create }`: my classes with my role in each, the
 *  ones I could join (open ones, and any that invited my email address: `invited: true`), and
 *  whether I may create one. */
export async function fetchClasses() {
  const body = await request('/api/classes');
  return {
    classes: Array.isArray(body && body.classes) ? body.classes : [],
    joinable: Array.isArray(body && body.joinable) ? body.joinable : [],
    default_class: body && typeof body.default_class === 'string' ? body.default_class : null,
    can_create: Boolean(body && body.can_create),
  };
}

/** A class as I see it (`{ slug, name, visibility, join, precision, approval, archived, role, invite_url? }`);
 *  `code` is an invite link's, which lets a non-member see the class it invites to. */
export async function fetchClass(slug, code = null) {
  return request(classURL(slug, code ? `?code=${encodeURIComponent(code)}` : ''));
}

export async function createClass({ slug, name, visibility, join, precision, approval }) {
  return request('/api/classes', { method: 'POST', body: { slug, name, visibility, join, precision, approval } });
}

/** Changes `{ name?, visibility?, join?, precision?, approval?, archived? }` (teachers);
 *  resolves to the class. A coarser precision moves the class's posts at once, for good; an
 *  archived class is read-only for everyone until `archived: false`. */
export async function updateClass(slug, changes) {
  return request(classURL(slug), { method: 'PATCH', body: changes });
}

/** Deletes the class for good, with its locations, roster, reports and invite link
 *  (teachers). `confirm` is its slug typed again: anything else is refused (`confirm_slug`),
 *  and so is the server's default class (`default_class`). */
export async function deleteClass(slug, confirm) {
  await request(classURL(slug), { method: 'DELETE', body: { confirm } });
}

/** A new invite link (the old one stops working), or with `revoke` none at all. */
export async function changeInvite(slug, { revoke = false } = {}) {
  return request(classURL(slug, '/invite'), { method: revoke ? 'DELETE' : 'POST' });
}

export async function joinClass(slug, code = null) {
  return request(classURL(slug, '/join'), { method: 'POST', body: code ? { code } : {} });
}

export async function leaveClass(slug) {
  return request(classURL(slug, '/leave'), { method: 'POST' });
}

/** The roster and who is invited, from a members answer: `{ members: [{ key, email, first_name,
 *  last_name, role, joined_at }], invitations: [{ email, role, invited_at }] }` (the
 *  invitations are for teachers; moderators get none). */
function rosterFrom(body) {
  const invitations = Array.isArray(body && body.invitations) ? body.invitations : [];
  return {
    members: Array.isArray(body && body.members) ? body.members : [],
    invitations: invitations.filter((item) => item && typeof item === 'object' && typeof item.email === 'string'),
  };
}

/** The roster and the invitations (`rosterFrom`). */
export async function fetchMembers(slug) {
  return rosterFrom(await request(classURL(slug, '/members')));
}

/** Adds by email: a member's address changes their role; any other address is invited (the
 *  answer is the same whether an account has it or not), and they join the class themself.
 *  Resolves to the roster and the invitations (`rosterFrom`). */
export async function addMember(slug, email, role) {
  return rosterFrom(await request(classURL(slug, '/members'), { method: 'POST', body: { email, role } }));
}

/** Takes back the invitation of `email`; resolves to the roster and the invitations left
 *  (`rosterFrom`). 404 when the address has none (withdrawn, or accepted, meanwhile). */
export async function withdrawInvitation(slug, email) {
  return rosterFrom(await request(classURL(slug, `/invitations/${encodeURIComponent(email)}`), { method: 'DELETE' }));
}

export async function setMemberRole(slug, key, role) {
  const body = await request(classURL(slug, `/members/${encodeURIComponent(key)}`), { method: 'PUT', body: { role } });
  return Array.isArray(body && body.members) ? body.members : [];
}

export async function removeMember(slug, key) {
  await request(classURL(slug, `/members/${encodeURIComponent(key)}`), { method: 'DELETE' });
}

/** Whether the class's teachers can remind those not on the map yet:
 *  `{ email, last_sent_at, next_at, waiting_members }` (teachers; anyone else gets 403).
 *  `email` false: the server has no email; `next_at`: not before then (once a day). */
export async function fetchReminders(slug) {
  const body = await request(classURL(slug, '/reminders'));
  return {
    email: Boolean(body && body.email),
    last_sent_at: body && typeof body.last_sent_at === 'string' ? body.last_sent_at : null,
    next_at: body && typeof body.next_at === 'string' ? body.next_at : null,
    waiting_members: body && Number.isInteger(body.waiting_members) ? body.waiting_members : 0,
  };
}

/** Emails each member with no post in the class: `{ reminded, next_at }`. 429
 *  `reminded_recently` (with its `Retry-After`) when they were reminded today. */
export async function sendReminders(slug) {
  return request(classURL(slug, '/reminders'), { method: 'POST' });
}

/** Where the class's map downloads as `format` (csv or geojson), for its teachers. */
export function exportURL(slug, format) {
  return classURL(slug, `/export.${format === 'geojson' ? 'geojson' : 'csv'}`);
}

/** The course's members, for a class that a course platform opens (teachers and the server's
 *  administrators; anyone else gets 403): `{ synced_at, members: [{ name, roles, role?, member,
 *  on_map }] }`. `synced_at` is null before the first sync with the course, and a class that no
 *  course opens has no members. */
export async function fetchCourseRoster(slug) {
  const body = await request(classURL(slug, '/course-roster'));
  const members = Array.isArray(body && body.members) ? body.members : [];
  return {
    synced_at: body && typeof body.synced_at === 'string' ? body.synced_at : null,
    members: members.filter((member) => member && typeof member === 'object').map((member) => ({
      name: typeof member.name === 'string' ? member.name : '',
      roles: Array.isArray(member.roles) ? member.roles.filter((role) => typeof role === 'string') : [],
      role: typeof member.role === 'string' ? member.role : null,
      // What the course's roles make them here (the server's one mapping).
      course_role: typeof member.course_role === 'string' ? member.course_role : null,
      member: Boolean(member.member),
      on_map: Boolean(member.on_map),
    })),
  };
}

/** Who I am in class `slug` (null: the default class's plain route): `{ account, notices,
 *  class_role, can_moderate, can_manage_class }`. */
export async function fetchAccountIn(slug) {
  return request(classPath('/api/account', slug));
}

// ---- geocoding and page configuration ------------------------------------

/** Where the shown class would show a point: `{ precision, name?, latitude, longitude }`.
 *  Below `exact` the point and `name` are the town's (or region's, or country's) the server
 *  stores instead of what was sent; in an `exact` class there is no name and the point is
 *  the one sent. Rejects with code `no_place_nearby` (422) where no town is near. */
export async function placement(latitude, longitude, { signal } = {}) {
  const params = new URLSearchParams({ latitude: String(latitude), longitude: String(longitude) });
  return request(`${classPath('/api/locations/placement')}?${params}`, { signal });
}

export async function geocode(query, { signal } = {}) {
  const body = await request(`/api/geocode?q=${encodeURIComponent(query)}&limit=5`, { signal });
  return body && Array.isArray(body.results) ? body.results : [];
}

/** Places whose names start with what was typed, for the type-ahead (best first). */
export async function suggestPlaces(query, { signal, limit = 6 } = {}) {
  const params = new URLSearchParams({ q: query, limit: String(limit) });
  const body = await request(`/api/geocode/suggest?${params}`, { signal });
  return body && Array.isArray(body.results) ? body.results : [];
}

/** The town (or place) nearest a point, as a one-result list; empty where none is near. */
export async function reverseGeocode(latitude, longitude, { signal } = {}) {
  const params = new URLSearchParams({ lat: String(latitude), lon: String(longitude) });
  const body = await request(`/api/geocode/reverse?${params}`, { signal });
  return body && Array.isArray(body.results) ? body.results : [];
}

/** The bundled country outlines for the basemaps, or null when they cannot be had. */
export async function fetchWorld() {
  try {
    const response = await fetch('/world.geojson');
    return response.ok ? await response.json() : null;
  } catch {
    return null;
  }
}

/** Region and city names for the offline basemap's labels, or null when they cannot be had. */
export async function fetchPlaces() {
  try {
    const response = await fetch('/places.json');
    return response.ok ? await response.json() : null;
  } catch {
    return null;
  }
}

/** The page's configuration from /config.json (the tile server, and the Parse keys this
 *  server checks), asked for once and shared by every caller. Offline the service worker
 *  answers with the copy it kept. An answer without the Parse keys (no connection and no
 *  kept copy yet) is not kept, so the next caller asks again. */
let configRequest = null;

export function fetchConfig() {
  if (!configRequest) {
    configRequest = request('/config.json').then((body) => body || {}, () => ({}));
    configRequest.then((config) => {
      if (!parseKeysIn(config)) configRequest = null;
    });
  }
  return configRequest;
}

function parseKeysIn(config) {
  return typeof config.parseApplicationID === 'string' && typeof config.parseRESTAPIKey === 'string';
}

/** The headers every Parse call carries, with the keys the server gave in /config.json (a
 *  host may set its own with --parse-app-id and --parse-rest-key). Without them the call is
 *  made anyway and the server's refusal says why. */
async function parseHeaders() {
  const config = await fetchConfig();
  if (!parseKeysIn(config)) return {};
  return { 'X-Parse-Application-Id': config.parseApplicationID, 'X-Parse-REST-API-Key': config.parseRESTAPIKey };
}

// ---- travel: pins and their photo albums (session cookie) ------------------

/** The signed-in account's pins. */
export async function fetchPins({ signal } = {}) {
  const body = await request('/api/pins', { signal });
  if (!body || !Array.isArray(body.results)) throw new ApiError('server', t('api.error.unexpectedPins'));
  return body.results;
}

/** Drops a pin; the server starts fetching its album at once. Resolves to the Pin. */
export async function createPin(latitude, longitude) {
  const pin = await request('/api/pins', { method: 'POST', body: { latitude, longitude } });
  if (pin && pin.id !== undefined) keptPinsChanged({ pin });
  return pin;
}

export async function movePin(id, latitude, longitude) {
  try {
    const pin = await request(`/api/pins/${encodeURIComponent(id)}`, { method: 'PATCH', body: { latitude, longitude } });
    if (pin && pin.id !== undefined) keptPinsChanged({ pin });
    return pin;
  } catch (error) {
    if (error.kind === 'notFound') keptPinsChanged({ deleted: id });
    throw error;
  }
}

/** Deletes a pin; one already gone (404) is forgotten here too. */
export async function deletePin(id) {
  try {
    await request(`/api/pins/${encodeURIComponent(id)}`, { method: 'DELETE' });
  } catch (error) {
    if (error.kind === 'notFound') keptPinsChanged({ deleted: id });
    throw error;
  }
  keptPinsChanged({ deleted: id });
}

/** `{ pin, album, photos }`: the kept photos, no download. */
export async function fetchAlbum(pinId, { signal } = {}) {
  return request(`/api/pins/${encodeURIComponent(pinId)}/photos`, { signal });
}

/** Replaces the album with another set; resolves to the new `{ pin, album, photos }`. */
export async function newCollection(pinId) {
  return request(`/api/pins/${encodeURIComponent(pinId)}/collection`, { method: 'POST' });
}

export function albumEventsURL(pinId) {
  return `/api/pins/${encodeURIComponent(pinId)}/events`;
}

export async function deletePhoto(id) {
  await request(`/api/photos/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

export async function retryPhoto(id) {
  return request(`/api/photos/${encodeURIComponent(id)}/retry`, { method: 'POST' });
}

// ---- sign-in with other accounts (providers.js) ------------------------------

/** The providers this server offers: [{ id, name, kind }], empty when none. */
export async function fetchProviders() {
  const body = await request('/api/auth/providers');
  return Array.isArray(body && body.providers) ? body.providers : [];
}

/** Who this session belongs to: { key, first_name, last_name, email, provider }. */
export async function fetchMe() {
  return request('/api/auth/me');
}

/** Ends this session; says whether to sign out of the provider too (provider_logout_url)
 *  or whether the provider's token was revoked (provider_token_revoked). */
export async function endSession() {
  return request('/api/auth/logout', { method: 'POST' });
}

/** The account's sign-in methods: { has_password, identities: [{ provider, name, email, linked }] }. */
export async function fetchIdentities() {
  return request('/api/account/identities');
}

/** Starts linking a provider; resolves to the provider's address to go to. */
export async function startLink(provider) {
  const body = await request(`/api/auth/${encodeURIComponent(provider)}/link`, { method: 'POST' });
  return body && body.location;
}

export async function unlink(provider) {
  await request(`/api/account/identities/${encodeURIComponent(provider)}`, { method: 'DELETE' });
}
