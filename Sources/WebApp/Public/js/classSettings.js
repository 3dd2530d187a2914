// A class's settings page, `#/c/<slug>/settings`. Its teachers (and the server's
// administrators) change its name, who sees its map and who may join; copy, renew or revoke
// its invite link; choose where its students appear (their exact point, town, region or
// country: a coarser level moves everyone already on the map, so it is confirmed first);
// whether posts wait for a moderator's approval (none, a member's first, every post and move);
// and manage the roster (roles, removing, adding by email). At the end of term they archive
// the class (its map read-only for everyone, its posts kept) or reopen it, or delete it with
// its map for good once its address is typed again. For a class a course platform opens (LTI),
// its teachers also see the course's roster: who in the course is not on the map yet.
// Moderators see the roster; every member can leave the class.
import * as api from './api.js';
import { state } from './state.js';
import { go } from './router.js';
import { classAddress, currentClass, defaultClass, linkTo } from './currentClass.js';
import {
  ROLE_NAMES, PRECISIONS, PRECISION_PLACES, APPROVALS, isCoarser, classChanged, classMembershipChanged,
} from './classes.js';
import { showClassScene } from './classPages.js';
import { el, setBusy, confirmAction, showAlert, debounce, formFailureMessage, showFormMessage, formatCount, timeAgo } from './ui.js';
import { $ } from './dom.js';

const VISIBILITY = {
  members: 'only its members see its map',
  server: 'everyone with an account on this server sees its map',
  public: 'anyone sees its map, even without an account',
};
const JOINING = {
  invite: 'whoever has the invite link may join',
  open: 'anyone with an account here may join',
  closed: 'only its teachers add members',
};
const APPEARING = {
  exact: 'Students appear exactly where they post.',
  city: 'Students appear at their nearest town, never at their exact point.',
  region: 'Students appear at their region (state or province) only.',
  country: 'Students appear at their country only.',
};
const APPROVING = {
  off: '',
  'new-members': 'A member’s first post waits for a moderator’s approval.',
  all: 'Every post and move waits for a moderator’s approval.',
};
const ARCHIVED_INTRO = 'This class is archived: its map is read-only, with its posts kept.';
const END_OF_TERM = {
  open: 'At the end of term, archive the class: its map becomes read-only for everyone. Its posts stay to be seen, but nobody can post, move or delete a location in it, and nobody can join. You can reopen it at any time.',
  archived: 'The class is archived: its map is read-only for everyone. Its posts stay to be seen, but nobody can post, move or delete a location in it, and nobody can join. Reopen it to let its members post again.',
};
const COARSER_TITLES = { city: 'Show Students by Town?', region: 'Show Students by Region?', country: 'Show Students by Country?' };
/** How long a role select waits after a change before saving it: arrowing through the
 *  choices from the keyboard saves only the one the student stops on. */
const ROLE_SAVE_DELAY_MS = 500;
const MESSAGES = ['settings-error', 'class-form-error', 'class-form-done', 'invite-error', 'invite-done',
  'members-error', 'members-done', 'leave-error', 'archive-error', 'archive-done', 'delete-class-error'];

/** The class role a course's roles give (as the server reads them: Instructor and
 *  Administrator teach, a TeachingAssistant moderates, anyone else is a student). Full role
 *  IRIs and short names alike; the highest counts. */
function courseRole(roles) {
  const names = roles.map((role) => role.split(/[#/]/).pop());
  if (names.includes('TeachingAssistant')) return names.some((name) => name === 'Instructor' || name === 'Administrator') ? 'teacher' : 'moderator';
  if (names.some((name) => name === 'Instructor' || name === 'Administrator')) return 'teacher';
  return 'student';
}

/** "24 November 2026 at 06:38", in the browser's language. Made at first use: loading the
 *  locale's data would hold up the map's first draw (see formatCount in ui.js). */
let dateFormat = null;
function fullDate(time) {
  dateFormat ??= new Intl.DateTimeFormat(undefined, { dateStyle: 'long', timeStyle: 'short' });
  return dateFormat.format(time);
}

function memberName(member) {
  return `${member.first_name || ''} ${member.last_name || ''}`.trim() || member.email || 'A member';
}

class SettingsPage {
  constructor() {
    this.slug = null;
    this.view = null;
    this.me = null;
    this.members = [];
    this.attempt = 0;
    $('class-form').addEventListener('submit', (event) => {
      event.preventDefault();
      this.save();
    });
    $('invite-copy').addEventListener('click', () => this.copyInvite());
    $('invite-new').addEventListener('click', () => this.renewInvite());
    $('invite-revoke').addEventListener('click', () => this.revokeInvite());
    $('member-form').addEventListener('submit', (event) => {
      event.preventDefault();
      this.addMember();
    });
    $('members-list').addEventListener('click', (event) => {
      const button = event.target.closest('[data-remove]');
      if (button) this.removeMember(button.dataset.remove);
    });
    $('leave-button').addEventListener('click', () => this.leave());
    $('archive-button').addEventListener('click', () => this.changeArchived());
    $('delete-class-confirm').addEventListener('input', () => this.renderDeleteButton());
    // Enter with the Delete button still off submits nothing: it says what is missing.
    $('delete-class-confirm').addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && $('delete-class-button').disabled) {
        event.preventDefault();
        this.deleteClass();
      }
    });
    $('delete-class-form').addEventListener('submit', (event) => {
      event.preventDefault();
      this.deleteClass();
    });
  }

  get manages() { return Boolean(this.me && this.me.can_manage_class); }
  get moderates() { return Boolean(this.me && this.me.can_moderate); }

  async show(slug) {
    const attempt = ++this.attempt;
    this.slug = slug;
    for (const id of MESSAGES) showFormMessage(id, '');
    for (const id of ['class-form', 'invite-section', 'members-section', 'member-form', 'course-roster-section', 'leave-section', 'end-section']) $(id).hidden = true;
    $('delete-class-confirm').value = '';
    $('settings-title').textContent = 'Class settings';
    $('settings-intro').textContent = 'Loading the class…';
    // Back to the map as it was shown when it is this class's, else to this class's map.
    const shown = slug === currentClass() || (!currentClass() && slug === defaultClass());
    const back = shown ? classAddress(state.tab) : linkTo('map', slug);
    showClassScene('settings-view', { back, backLabel: 'Map', title: 'Class Settings' });
    let view, me;
    try {
      [view, me] = await Promise.all([api.fetchClass(slug), api.fetchAccountIn(slug)]);
    } catch (error) {
      if (attempt !== this.attempt) return;
      $('settings-intro').textContent = '';
      showFormMessage('settings-error', error.code === 'unknown_class' || error.status === 404
        ? `This server has no class “${slug}”.`
        : error.status === 403
          ? 'Only members of this class can see its settings. Open the invite link your teacher gave you to join it.'
          : formFailureMessage(error, 'Loading the class failed.'));
      return;
    }
    if (attempt !== this.attempt) return;
    this.view = view;
    this.me = me;
    classChanged(view);
    this.render();
    // Only the class's teachers (and the server's administrators) may read the course's roster.
    const roster = this.manages ? this.loadCourseRoster(attempt) : null;
    if (this.moderates) await this.loadMembers(attempt);
    await roster;
  }

  render() {
    const view = this.view;
    const role = this.me.class_role;
    $('settings-title').textContent = view.name;
    document.title = `Settings · ${view.name} · On the Map`;
    this.renderIntro();

    $('class-form').hidden = !this.manages;
    if (this.manages) {
      $('class-name-input').value = view.name;
      $('class-visibility').value = view.visibility;
      $('class-join').value = view.join;
      // A server without precision per class says none: the choice is not offered.
      const known = PRECISIONS.includes(view.precision);
      $('class-precision').hidden = !known;
      if (known) $('class-form').elements.precision.value = view.precision;
      // Approval likewise.
      const approves = APPROVALS.includes(view.approval);
      $('class-approval').hidden = !approves;
      if (approves) $('class-form').elements.approval.value = view.approval;
    }
    $('invite-section').hidden = !this.manages;
    if (this.manages) this.renderInvite();
    // Everyone is in the default class; leaving it is not a thing.
    $('leave-section').hidden = !role || view.slug === defaultClass();
    $('end-section').hidden = !this.manages;
    if (this.manages) this.renderEndOfTerm();
  }

  renderIntro() {
    const view = this.view;
    const role = this.me.class_role;
    const archived = view.archived ? ARCHIVED_INTRO : '';
    const who = role ? `You are ${role === 'student' ? 'a student' : `a ${role}`} in this class.`
      : this.manages ? 'You manage this class as an administrator of this server.' : '';
    const rules = `Its map is at /c/${view.slug}: ${VISIBILITY[view.visibility] || view.visibility}, and ${JOINING[view.join] || view.join}.`;
    const appearing = APPEARING[view.precision] || '';
    const approving = APPROVING[view.approval] || '';
    $('settings-intro').textContent = `${archived} ${who} ${rules} ${appearing} ${approving}`.replace(/\s+/g, ' ').trim();
  }

  renderEndOfTerm() {
    const archived = Boolean(this.view.archived);
    const about = $('archive-state');
    about.className = archived ? 'note' : 'class-hint';
    about.textContent = archived ? END_OF_TERM.archived : END_OF_TERM.open;
    $('archive-button').querySelector('.button-label').textContent = archived ? 'Reopen Class' : 'Archive Class';
    // The server's default class can be archived, never deleted.
    const deletable = this.view.slug !== defaultClass();
    $('delete-class-form').hidden = !deletable;
    $('delete-class-default').hidden = deletable;
    $('delete-class-slug').textContent = this.view.slug;
    this.renderDeleteButton();
  }

  /** The Delete button works only once the class's address is typed exactly. */
  renderDeleteButton() {
    const button = $('delete-class-button');
    if (button.classList.contains('busy')) return;
    button.disabled = !this.view || $('delete-class-confirm').value.trim() !== this.view.slug;
  }

  renderInvite() {
    const url = this.view.invite_url || (this.view.invite_path ? `${location.origin}${this.view.invite_path}` : null);
    $('invite-box').hidden = !url;
    $('invite-none').hidden = Boolean(url);
    $('invite-revoke').hidden = !url;
    $('invite-link').value = url || '';
    $('invite-new').querySelector('.button-label').textContent = url ? 'New Link' : 'Make a Link';
    $('invite-hint').textContent = this.view.join === 'closed'
      ? 'The class takes no new members now, so the link lets nobody join until you change who may join.'
      : 'Send this link to your students: opening it, they log in (or sign up) and join the class.';
  }

  // ---- about the class ----

  async save() {
    const changes = {
      name: $('class-name-input').value.trim(),
      visibility: $('class-visibility').value,
      join: $('class-join').value,
    };
    const before = this.view.precision;
    const precision = $('class-precision').hidden ? null : $('class-form').elements.precision.value;
    if (precision && PRECISIONS.includes(precision) && precision !== before) changes.precision = precision;
    const approval = $('class-approval').hidden ? null : $('class-form').elements.approval.value;
    if (approval && APPROVALS.includes(approval) && approval !== this.view.approval) changes.approval = approval;
    showFormMessage('class-form-done', '');
    if (!changes.name) {
      showFormMessage('class-form-error', 'Give the class a name.');
      $('class-name-input').focus();
      return;
    }
    showFormMessage('class-form-error', '');
    // Coarser moves everyone already on the map, and nothing brings their points back.
    const coarser = changes.precision && isCoarser(changes.precision, before);
    if (coarser) {
      const place = PRECISION_PLACES[changes.precision];
      const sure = await confirmAction(COARSER_TITLES[changes.precision],
        `Everyone already on this map moves to ${place}. This cannot be undone.`, 'Move Everyone');
      if (!sure) return;
    }
    const button = $('class-save');
    setBusy(button, true, 'Saving…');
    try {
      this.view = { ...this.view, ...(await api.updateClass(this.slug, changes)) };
      classChanged(this.view);
      this.render();
      showFormMessage('class-form-done', coarser
        ? `Saved. Everyone on this map has moved to ${PRECISION_PLACES[changes.precision]}.`
        : 'Saved.');
    } catch (error) {
      showFormMessage('class-form-error', formFailureMessage(error, 'Saving the class failed.'));
      if (error.code === 'invalid_name') $('class-name-input').select();
    } finally {
      setBusy(button, false);
    }
  }

  // ---- invite link ----

  async copyInvite() {
    const field = $('invite-link');
    let copied = false;
    try {
      await navigator.clipboard.writeText(field.value);
      copied = true;
    } catch {
      // No clipboard for this page (an insecure origin, or the browser said no): the old way.
      field.focus();
      field.select();
      try { copied = document.execCommand('copy'); } catch { copied = false; }
    }
    this.say('invite-done', copied ? 'Invite link copied. Paste it into a message to your students.' : '');
    showFormMessage('invite-error', copied ? '' : 'This browser did not let the page copy. The link is selected: press Ctrl+C (or ⌘C) to copy it.');
    if (!copied) {
      field.focus();
      field.select();
      return;
    }
    const label = $('invite-copy');
    label.textContent = 'Copied';
    clearTimeout(this.copiedTimer);
    this.copiedTimer = setTimeout(() => { label.textContent = 'Copy'; }, 2500);
  }

  async renewInvite() {
    const had = Boolean(this.view.invite_code);
    if (had) {
      const sure = await confirmAction('Make a New Invite Link?',
        'The current link stops working. Students who have not joined yet need the new one; members stay.', 'New Link');
      if (!sure) return;
    }
    await this.changeInvite({ revoke: false }, had ? 'New invite link made. The old one no longer works.' : 'Invite link made.');
  }

  async revokeInvite() {
    const sure = await confirmAction('Revoke the Invite Link?',
      'Nobody can join with a link until you make a new one. Members stay.', 'Revoke');
    if (!sure) return;
    await this.changeInvite({ revoke: true }, 'The invite link is revoked: it no longer works.');
  }

  async changeInvite({ revoke }, done) {
    const button = revoke ? $('invite-revoke') : $('invite-new');
    for (const id of ['invite-error', 'invite-done']) showFormMessage(id, '');
    setBusy(button, true, revoke ? 'Revoking…' : 'Making…');
    try {
      const view = await api.changeInvite(this.slug, { revoke });
      this.view = { ...view };
      setBusy(button, false);
      this.renderInvite();
      this.say('invite-done', done);
      // The Revoke button is gone with the link: the focus goes to the one that makes a new link.
      if (button.hidden || document.activeElement === document.body) $('invite-new').focus();
    } catch (error) {
      setBusy(button, false);
      showFormMessage('invite-error', formFailureMessage(error, 'Changing the invite link failed.'));
    }
  }

  // ---- members ----

  async loadMembers(attempt = this.attempt) {
    $('members-section').hidden = false;
    $('member-form').hidden = !this.manages;
    $('members-hint').textContent = 'Loading…';
    try {
      const members = await api.fetchMembers(this.slug);
      if (attempt !== this.attempt) return;
      this.renderMembers(members);
    } catch (error) {
      if (attempt !== this.attempt) return;
      $('members-hint').textContent = '';
      showFormMessage('members-error', formFailureMessage(error, 'Loading the members failed.'));
    }
  }

  renderMembers(members) {
    this.members = members;
    const count = members.length === 1 ? '1 member' : `${members.length} members`;
    $('members-hint').textContent = this.manages
      ? `${count}. A teacher changes the class and its roster; a moderator hides and deletes posts.`
      : `${count}. Only its teachers change roles.`;
    $('members-list').replaceChildren(...members.map((member) => this.memberRow(member)));
  }

  memberRow(member) {
    const name = memberName(member);
    const me = state.account && member.key === state.account.key;
    // Moderators see names and roles; the email addresses are for teachers.
    const who = el('span', { class: 'member-who' }, [
      el('strong', { text: me ? `${name} (you)` : name }),
      member.email ? el('span', { class: 'member-email', text: member.email }) : null,
    ]);
    if (!this.manages) {
      return el('li', { class: 'member-row', dataset: { key: member.key } }, [
        who, el('span', { class: 'badge member-role', text: ROLE_NAMES[member.role] || member.role }),
      ]);
    }
    const select = el('select', { class: 'member-role-select', 'aria-label': `Role of ${name}`, dataset: { key: member.key } },
      Object.entries(ROLE_NAMES).map(([value, label]) => el('option', { value, text: label })));
    select.value = member.role;
    const save = debounce(() => this.setRole(member, select, name), ROLE_SAVE_DELAY_MS);
    select.addEventListener('change', save);
    const remove = el('button', {
      class: 'button danger small', type: 'button', dataset: { remove: member.key }, 'aria-label': `Remove ${name}`, text: 'Remove',
    });
    return el('li', { class: 'member-row', dataset: { key: member.key } }, [who, el('span', { class: 'member-actions' }, [select, remove])]);
  }

  async setRole(member, select, name) {
    const role = select.value;
    if (role === member.role) return;
    for (const id of ['members-error', 'members-done']) showFormMessage(id, '');
    try {
      this.members = await api.setMemberRole(this.slug, member.key, role);
      member.role = role;
      this.say('members-done', `${name} is now ${role === 'student' ? 'a student' : `a ${role}`}.`);
      // Changing one's own role changes what this page may show.
      if (state.account && member.key === state.account.key) this.show(this.slug);
      else this.refreshCourseRoster();
    } catch (error) {
      select.value = member.role;
      showFormMessage('members-error', formFailureMessage(error, 'Changing the role failed.'));
    }
  }

  async removeMember(key) {
    const member = this.members.find((item) => item.key === key);
    if (!member) return;
    const name = memberName(member);
    const sure = await confirmAction(`Remove ${name}?`,
      `${name} leaves the class, and their location on its map is deleted.`, 'Remove');
    if (!sure) return;
    for (const id of ['members-error', 'members-done']) showFormMessage(id, '');
    const rows = [...$('members-list').children];
    const index = rows.findIndex((row) => row.dataset.key === key);
    try {
      await api.removeMember(this.slug, key);
      if (state.account && key === state.account.key) {
        // A teacher who took themselves off the roster has left the class.
        this.left(this.view.name);
        return;
      }
      this.renderMembers(await api.fetchMembers(this.slug));
      this.say('members-done', `${name} was removed from the class.`);
      this.refreshCourseRoster();
      // The focus goes to the next member's Remove button (or the list's heading).
      const next = $('members-list').children[Math.min(index, $('members-list').children.length - 1)];
      const target = next ? next.querySelector('[data-remove]') : null;
      if (target) target.focus();
      else $('members-title').focus();
    } catch (error) {
      showFormMessage('members-error', formFailureMessage(error, 'Removing the member failed.'));
    }
  }

  async addMember() {
    const email = $('member-email').value.trim();
    const role = $('member-role').value;
    for (const id of ['members-error', 'members-done']) showFormMessage(id, '');
    if (!email) {
      showFormMessage('members-error', 'Enter the email of the account to add.');
      $('member-email').focus();
      return;
    }
    const button = $('member-add');
    setBusy(button, true, 'Adding…');
    try {
      this.renderMembers(await api.addMember(this.slug, email, role));
      $('member-email').value = '';
      this.say('members-done', `${email} is now ${role === 'student' ? 'a student' : `a ${role}`} in the class.`);
      this.refreshCourseRoster();
    } catch (error) {
      showFormMessage('members-error', error.status === 404
        ? 'No account of this server has that email: they sign up first.'
        : formFailureMessage(error, 'Adding the member failed.'));
      $('member-email').select();
    } finally {
      setBusy(button, false);
      $('member-email').focus();
    }
  }

  // ---- the course's roster (a class a course platform opens) ----

  /** Asks for the course's roster and shows it when the class has one (a course opens the
   *  class); a class without, or an answer that fails, shows nothing. */
  async loadCourseRoster(attempt = this.attempt) {
    if (!this.manages) return;
    let roster;
    try {
      roster = await api.fetchCourseRoster(this.slug);
    } catch {
      if (attempt === this.attempt) $('course-roster-section').hidden = true;
      return;
    }
    if (attempt !== this.attempt) return;
    this.renderCourseRoster(roster);
  }

  /** After a change to the class's members: the course's roster shown says it too. */
  refreshCourseRoster() {
    if (!$('course-roster-section').hidden) this.loadCourseRoster();
  }

  renderCourseRoster({ synced_at: syncedAt, members }) {
    const section = $('course-roster-section');
    section.hidden = !syncedAt && members.length === 0;
    if (section.hidden) return;

    const synced = $('course-roster-synced');
    const time = syncedAt ? Date.parse(syncedAt) : NaN;
    if (Number.isFinite(time)) {
      synced.replaceChildren(
        'Last synced with the course ',
        el('time', { datetime: new Date(time).toISOString(), title: fullDate(time), text: timeAgo(time) }),
        ` (${fullDate(time)}). It syncs again each time a teacher opens OnTheMap from the course.`);
    } else {
      synced.textContent = 'Not synced with the course yet: these are the course’s members who have opened OnTheMap from it. The whole course shows once a teacher opens OnTheMap from the course with its roster service on.';
    }

    const byName = (a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' });
    const missing = members.filter((member) => !member.on_map).sort(byName);
    const onMap = members.filter((member) => member.on_map).sort(byName);
    const total = members.length;
    $('course-roster-count').textContent = total === 0
      ? 'The course gave no members.'
      : `${formatCount(onMap.length)} of ${formatCount(total)} course ${total === 1 ? 'member is' : 'members are'} on the map.`;

    $('course-roster-missing').replaceChildren(...missing.map((member) => this.courseRosterRow(member)));
    $('course-roster-missing').hidden = missing.length === 0;
    $('course-roster-missing-title').hidden = total === 0;
    $('course-roster-everyone').hidden = missing.length > 0 || total === 0;

    $('course-roster-on-map-box').hidden = onMap.length === 0;
    $('course-roster-on-map-title').textContent = `On the map (${formatCount(onMap.length)})`;
    $('course-roster-on-map').replaceChildren(...onMap.map((member) => this.courseRosterRow(member)));
  }

  courseRosterRow(member) {
    const role = member.role || courseRole(member.roles);
    const status = member.on_map ? 'on the map' : member.member ? 'no location yet' : 'not in the class yet';
    return el('li', { class: 'member-row course-roster-row' }, [
      el('span', { class: 'member-who' }, [
        el('strong', { dir: 'auto', text: member.name || 'A course member' }),
        el('span', { class: 'course-roster-status', text: status }),
      ]),
      el('span', { class: 'badge member-role', text: ROLE_NAMES[role] || role }),
    ]);
  }

  // ---- end of term ----

  async changeArchived() {
    const archive = !this.view.archived;
    const name = this.view.name;
    if (archive) {
      const sure = await confirmAction(`Archive ${name}?`,
        'Its map becomes read-only for everyone: its posts stay, but nobody can post, move or delete a location, and nobody can join. You can reopen it at any time.',
        'Archive');
      if (!sure) return;
    }
    for (const id of ['archive-error', 'archive-done']) showFormMessage(id, '');
    const attempt = this.attempt;
    const button = $('archive-button');
    setBusy(button, true, archive ? 'Archiving…' : 'Reopening…');
    try {
      const view = await api.updateClass(this.slug, { archived: archive });
      classChanged(view);
      setBusy(button, false);
      if (attempt !== this.attempt) return;
      this.view = { ...this.view, ...view };
      // Only what archiving changes: a half-edited form above keeps what was typed.
      this.renderIntro();
      this.renderEndOfTerm();
      this.say('archive-done', archive
        ? `${name} is archived: its map is read-only, and its posts stay.`
        : `${name} is open again: its members can post.`);
    } catch (error) {
      setBusy(button, false);
      if (attempt !== this.attempt) return;
      showFormMessage('archive-error', formFailureMessage(error, archive ? 'Archiving the class failed.' : 'Reopening the class failed.'));
    }
    // Busy, the button lost the focus: it comes back to it (now Reopen, or Archive).
    button.focus();
  }

  async deleteClass() {
    const button = $('delete-class-button');
    if (button.classList.contains('busy')) return;
    const field = $('delete-class-confirm');
    const typed = field.value.trim();
    const slug = this.view.slug;
    showFormMessage('delete-class-error', '');
    if (typed !== slug) {
      showFormMessage('delete-class-error', `Type the class’s address, ${slug}, exactly as shown to delete it.`);
      field.focus();
      return;
    }
    const name = this.view.name;
    const attempt = this.attempt;
    setBusy(button, true, 'Deleting…');
    try {
      await api.deleteClass(slug, typed);
      setBusy(button, false);
      field.value = '';
      this.renderDeleteButton();
      // Gone from the list of classes either way; away from its page only while it shows.
      if (attempt !== this.attempt) classMembershipChanged(slug);
      else {
        await this.offTheClass(slug, 'Class Deleted',
          `${name} is deleted, with every location on its map, its memberships, its reports and its invite link.`);
      }
    } catch (error) {
      setBusy(button, false);
      if (attempt !== this.attempt) return;
      this.renderDeleteButton();
      showFormMessage('delete-class-error', error.code === 'confirm_slug'
        ? `Type the class’s address, ${slug}, exactly as shown to delete it.`
        : formFailureMessage(error, 'Deleting the class failed.'));
      field.focus();
      field.select();
    }
  }

  // ---- leaving ----

  async leave() {
    const name = this.view.name;
    const sure = await confirmAction(`Leave ${name}?`,
      'Your location on its map is deleted, and you need an invite link to come back.', 'Leave');
    if (!sure) return;
    showFormMessage('leave-error', '');
    const button = $('leave-button');
    setBusy(button, true, 'Leaving…');
    try {
      await api.leaveClass(this.slug);
      setBusy(button, false);
      await this.left(name);
    } catch (error) {
      setBusy(button, false);
      showFormMessage('leave-error', error.code === 'last_teacher'
        ? 'You are its only teacher: make another member a teacher first.'
        : formFailureMessage(error, 'Leaving the class failed.'));
    }
  }

  /** Off the roster: back to the default class's map, saying so. */
  async left(name) {
    await this.offTheClass(this.slug, 'You Left the Class', `You are no longer in ${name}.`);
  }

  /** Off the class (left it, or deleted it): back to the default class's map, saying so in an
   *  alert; once it is dismissed, the focus goes to the class button. */
  async offTheClass(slug, title, message) {
    classMembershipChanged(slug);
    go(classAddress(state.tab, null));
    await showAlert(title, message);
    if (!$('main-scene').hidden) $('class-button').focus();
  }

  /** Shows a confirmation in its status box so that screen readers say it even when the same
   *  words come twice in a row (copying the link again). */
  say(id, message) {
    showFormMessage(id, '');
    if (message) requestAnimationFrame(() => showFormMessage(id, message));
  }
}

let page = null;

export function showSettings(slug) {
  page ??= new SettingsPage();
  return page.show(slug);
}
