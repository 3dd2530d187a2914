// A class's settings page, `#/c/<slug>/settings`. Its teachers (and the server's
// administrators) change its name, who sees its map and who may join; copy, renew or revoke
// its invite link; choose where its students appear (their exact point, town, region or
// country: a coarser level moves everyone already on the map, so it is confirmed first);
// whether posts wait for a moderator's approval (none, a member's first, every post and move);
// and manage the roster (roles, removing; adding by email invites the address, and the person
// joins the class themself; an invitation not taken yet can be withdrawn). The roster says who
// is on the map (on it, waiting for approval, not yet; their last post's date), how many of
// them, sorted by name, that or their last post; its teachers remind those with no post by
// email (once a day, when the server has email) and download the map as CSV or GeoJSON. At the end of term they archive
// the class (its map read-only for everyone, its posts kept) or reopen it, or delete it with
// its map for good once its address is typed again. For a class a course platform opens (LTI),
// its teachers also see the course's roster: who in the course is not on the map yet.
// Moderators see the roster; every member can leave the class.
import * as api from './api.js';
import { renderEmbedCode } from './embedCode.js';
import { state } from './state.js';
import { go } from './router.js';
import { classAddress, currentClass, defaultClass, linkTo } from './currentClass.js';
import {
  ROLE_NAMES, PRECISIONS, APPROVALS, isCoarser, classChanged, classMembershipChanged,
} from './classes.js';
import { showClassScene } from './classPages.js';
import { el, setBusy, confirmAction, showAlert, debounce, formFailureMessage, showFormMessage, timeAgo } from './ui.js';
import { $, copyFieldText } from './dom.js';
import { t, language, isRTL, formatDate, onLanguageChange } from './i18n.js';
import { isolatedBeside, withParts } from './bidi.js';
import { renderInviteShare, resetInviteShare } from './inviteShare.js';
import { showNotices } from './classNotices.js';

/** How long a role select waits after a change before saving it: arrowing through the
 *  choices from the keyboard saves only the one the student stops on. */
const ROLE_SAVE_DELAY_MS = 500;
const MESSAGES = ['settings-error', 'class-form-error', 'class-form-done', 'invite-error', 'invite-done',
  'members-error', 'members-done', 'leave-error', 'archive-error', 'archive-done', 'delete-class-error',
  'remind-error', 'remind-done'];
/** The roster's order by where each member is with the map: not yet first. */
const STATUS_ORDER = { not_yet: 0, waiting: 1, on_map: 2 };
/** Each column's first direction: names A to Z, not yet first, the newest post first. */
const FIRST_DIRECTION = { name: 'ascending', status: 'ascending', last: 'descending' };

/** "24 November 2026 at 06:38", in the page's language. */
function fullDate(time) {
  return formatDate(time, { dateStyle: 'long', timeStyle: 'short' });
}

function memberName(member) {
  return `${member.first_name || ''} ${member.last_name || ''}`.trim() || member.email || t('settings.members.unnamed');
}

function roleName(role) {
  return ROLE_NAMES[role] || role;
}

/** Text someone typed (a name, an address, an email) inside a sentence of the page's
 *  language, set apart where the two may run in opposite directions: an Arabic page, or a
 *  right-to-left name (bidi.js). */
function isolated(text) {
  return isolatedBeside(text, isRTL(language()));
}

/** The message for `key` with elements in it: each of `elements` ({name: element}) where its
 *  placeholder is, as a list of texts and elements for replaceChildren. */
function withElements(key, params, elements) {
  return withParts((marked) => t(key, marked), params, elements);
}

class SettingsPage {
  constructor() {
    this.slug = null;
    this.view = null;
    this.me = null;
    this.members = [];
    this.invitations = [];
    this.attempt = 0;
    this.sort = { key: 'status', direction: 'ascending' };
    this.reminders = null;
    $('members-head').addEventListener('click', (event) => {
      const button = event.target.closest('[data-sort]');
      if (button) this.sortBy(button.dataset.sort);
    });
    $('remind-button').addEventListener('click', () => this.remind());
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
    $('invitations-list').addEventListener('click', (event) => {
      const button = event.target.closest('[data-withdraw]');
      if (button) this.withdrawInvitation(button.dataset.withdraw);
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
    // Another language: what this page wrote says it again (the form keeps what was typed).
    onLanguageChange(() => {
      if (!$('settings-view').hidden) this.retranslate();
    });
  }

  /** The texts this page wrote, in the page's language now (data-i18n did the rest). */
  retranslate() {
    $('class-back-label').textContent = t('settings.back');
    if (!this.view || !this.me || this.view.slug !== this.slug) {
      $('settings-title').textContent = t('settings.heading');
      document.title = t('settings.loadingPageTitle');
      if ($('settings-intro').textContent) $('settings-intro').textContent = t('settings.loading');
      return;
    }
    document.title = t('settings.pageTitle', { name: isolated(this.view.name) });
    this.renderIntro();
    if (this.manages) {
      this.renderInvite();
      this.renderEndOfTerm();
    }
    renderEmbedCode(this.view, this.manages);
    if (!$('members-section').hidden && this.membersLoaded) this.renderRoster({ members: this.members, invitations: this.invitations });
    else if (!$('members-section').hidden && $('members-hint').textContent) $('members-hint').textContent = t('settings.members.loading');
    if (this.roster && !$('course-roster-section').hidden) this.renderCourseRoster(this.roster);
    if (this.reminders && !$('remind-box').hidden) this.renderReminders();
  }

  get manages() { return Boolean(this.me && this.me.can_manage_class); }
  get moderates() { return Boolean(this.me && this.me.can_moderate); }

  async show(slug) {
    const attempt = ++this.attempt;
    this.slug = slug;
    for (const id of MESSAGES) showFormMessage(id, '');
    resetInviteShare();
    showNotices(slug, false); // hidden until the class's answer says whether the caller moderates
    for (const id of ['class-form', 'invite-section', 'members-section', 'member-form', 'course-roster-section', 'leave-section', 'end-section',
      'export-section', 'remind-box', 'members-count']) $(id).hidden = true;
    renderEmbedCode(null, false);
    this.reminders = null;
    $('delete-class-confirm').value = '';
    this.membersLoaded = false;
    this.invitations = [];
    $('invitations-box').hidden = true;
    this.roster = null;
    $('settings-title').textContent = t('settings.heading');
    $('settings-intro').textContent = t('settings.loading');
    // Back to the map as it was shown when it is this class's, else to this class's map.
    const shown = slug === currentClass() || (!currentClass() && slug === defaultClass());
    const back = shown ? classAddress(state.tab) : linkTo('map', slug);
    showClassScene('settings-view', { back, backLabel: t('settings.back'), title: t('settings.sceneTitle') });
    document.title = t('settings.loadingPageTitle');
    let view, me;
    try {
      [view, me] = await Promise.all([api.fetchClass(slug), api.fetchAccountIn(slug)]);
    } catch (error) {
      if (attempt !== this.attempt) return;
      $('settings-intro').textContent = '';
      showFormMessage('settings-error', error.code === 'unknown_class' || error.status === 404
        ? t('settings.error.unknownClass', { slug: isolated(slug) })
        : error.status === 403
          ? t('settings.error.notMember')
          : formFailureMessage(error, t('settings.error.loadFailed')));
      return;
    }
    if (attempt !== this.attempt) return;
    this.view = view;
    this.me = me;
    classChanged(view);
    this.render();
    showNotices(slug, this.moderates);
    // Only the class's teachers (and the server's administrators) may read the course's roster.
    const roster = this.manages ? this.loadCourseRoster(attempt) : null;
    const reminders = this.manages ? this.loadReminders(attempt) : null;
    if (this.moderates) await this.loadMembers(attempt);
    await roster;
    await reminders;
  }

  render() {
    const view = this.view;
    const role = this.me.class_role;
    $('settings-title').textContent = view.name;
    document.title = t('settings.pageTitle', { name: isolated(view.name) });
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
    // The class's map as files: what its members see, for its teachers.
    $('export-section').hidden = !this.manages;
    if (this.manages) {
      $('export-csv').href = api.exportURL(view.slug, 'csv');
      $('export-geojson').href = api.exportURL(view.slug, 'geojson');
    }
    // A public class's map on another site: its embed code (js/embedCode.js).
    renderEmbedCode(view, this.manages);
  }

  renderIntro() {
    const view = this.view;
    const role = this.me.class_role;
    const sentences = [
      view.archived ? t('settings.intro.archived') : '',
      role ? t('settings.intro.role', { role }) : this.manages ? t('settings.intro.admin') : '',
      t('settings.intro.rules', { address: isolated(`/c/${view.slug}`), visibility: String(view.visibility), join: String(view.join) }),
      PRECISIONS.includes(view.precision) ? t('settings.intro.precision', { precision: view.precision }) : '',
      APPROVALS.includes(view.approval) ? t('settings.intro.approval', { approval: view.approval }) : '',
    ].filter(Boolean);
    // Sentences in Chinese follow one another with no space.
    $('settings-intro').textContent = sentences.join(language().startsWith('zh') ? '' : ' ');
  }

  renderEndOfTerm() {
    const archived = Boolean(this.view.archived);
    const about = $('archive-state');
    about.className = archived ? 'note' : 'class-hint';
    about.textContent = archived ? t('settings.end.archived') : t('settings.end.open');
    const archiveButton = $('archive-button');
    if (!archiveButton.classList.contains('busy')) {
      archiveButton.querySelector('.button-label').textContent = archived ? t('settings.end.reopen') : t('settings.end.archive');
    }
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
    if (!$('invite-new').classList.contains('busy')) {
      $('invite-new').querySelector('.button-label').textContent = url ? t('settings.invite.new') : t('settings.invite.make');
    }
    $('invite-hint').textContent = this.view.join === 'closed' ? t('settings.invite.hintClosed') : t('settings.invite.hint');
    renderInviteShare(this.view, url);
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
      showFormMessage('class-form-error', t('settings.form.nameMissing'));
      $('class-name-input').focus();
      return;
    }
    showFormMessage('class-form-error', '');
    // Coarser moves everyone already on the map, and nothing brings their points back.
    const coarser = changes.precision && isCoarser(changes.precision, before);
    if (coarser) {
      const sure = await confirmAction(t('settings.coarser.title', { precision: changes.precision }),
        t('settings.coarser.message', { precision: changes.precision }), t('settings.coarser.ok'));
      if (!sure) return;
    }
    const button = $('class-save');
    setBusy(button, true, t('settings.form.saving'));
    try {
      this.view = { ...this.view, ...(await api.updateClass(this.slug, changes)) };
      classChanged(this.view);
      this.render();
      showFormMessage('class-form-done', coarser
        ? t('settings.form.savedMoved', { precision: changes.precision })
        : t('settings.form.saved'));
    } catch (error) {
      showFormMessage('class-form-error', formFailureMessage(error, t('settings.form.failed')));
      if (error.code === 'invalid_name') $('class-name-input').select();
    } finally {
      setBusy(button, false);
    }
  }

  // ---- invite link ----

  async copyInvite() {
    const field = $('invite-link');
    const copied = await copyFieldText(field);
    this.say('invite-done', copied ? t('settings.invite.copiedDone') : '');
    showFormMessage('invite-error', copied ? '' : t('settings.invite.copyFailed'));
    if (!copied) {
      field.focus();
      field.select();
      return;
    }
    const label = $('invite-copy');
    label.textContent = t('settings.invite.copied');
    clearTimeout(this.copiedTimer);
    this.copiedTimer = setTimeout(() => { label.textContent = t('settings.invite.copy'); }, 2500);
  }

  async renewInvite() {
    const had = Boolean(this.view.invite_code);
    if (had) {
      const sure = await confirmAction(t('settings.invite.renewTitle'), t('settings.invite.renewMessage'), t('settings.invite.new'));
      if (!sure) return;
    }
    await this.changeInvite({ revoke: false }, had ? t('settings.invite.renewed') : t('settings.invite.made'));
  }

  async revokeInvite() {
    const sure = await confirmAction(t('settings.invite.revokeTitle'), t('settings.invite.revokeMessage'), t('settings.invite.revokeOk'));
    if (!sure) return;
    await this.changeInvite({ revoke: true }, t('settings.invite.revoked'));
  }

  async changeInvite({ revoke }, done) {
    const button = revoke ? $('invite-revoke') : $('invite-new');
    for (const id of ['invite-error', 'invite-done']) showFormMessage(id, '');
    setBusy(button, true, revoke ? t('settings.invite.revoking') : t('settings.invite.making'));
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
      showFormMessage('invite-error', formFailureMessage(error, t('settings.invite.failed')));
    }
  }

  // ---- members ----

  async loadMembers(attempt = this.attempt) {
    $('members-section').hidden = false;
    $('member-form').hidden = !this.manages;
    $('members-hint').textContent = t('settings.members.loading');
    try {
      const roster = await api.fetchMembers(this.slug);
      if (attempt !== this.attempt) return;
      this.renderRoster(roster);
    } catch (error) {
      if (attempt !== this.attempt) return;
      $('members-hint').textContent = '';
      showFormMessage('members-error', formFailureMessage(error, t('settings.members.loadFailed')));
    }
  }

  /** The members, then who is invited and has not joined yet (teachers only). */
  renderRoster({ members, invitations }) {
    this.renderMembers(members);
    this.renderInvitations(this.manages ? invitations : []);
  }

  renderMembers(members) {
    this.members = members;
    this.membersLoaded = true;
    const count = members.length;
    $('members-hint').textContent = this.manages
      ? t('settings.members.hintManager', { count })
      : t('settings.members.hintModerator', { count });
    const onMap = members.filter((member) => member.map_status === 'on_map').length;
    $('members-count').hidden = count === 0;
    $('members-count').textContent = t('settings.members.onMapCount', { onMap, total: count });
    for (const header of $('members-head').querySelectorAll('[data-column]')) {
      const column = header.dataset.column;
      header.setAttribute('aria-sort', column === this.sort.key ? this.sort.direction : 'none');
    }
    $('members-list').replaceChildren(...this.sorted(members).map((member) => this.memberRow(member)));
  }

  /** The members in the chosen order; ties by name. */
  sorted(members) {
    const collator = new Intl.Collator(language(), { sensitivity: 'base' });
    const byName = (a, b) => collator.compare(memberName(a), memberName(b));
    const posted = (member) => (member.last_post_at ? Date.parse(member.last_post_at) || 0 : 0);
    const compare = {
      name: byName,
      status: (a, b) => (STATUS_ORDER[a.map_status] ?? 0) - (STATUS_ORDER[b.map_status] ?? 0),
      last: (a, b) => posted(a) - posted(b),
    }[this.sort.key] || byName;
    const sign = this.sort.direction === 'descending' ? -1 : 1;
    return [...members].sort((a, b) => sign * compare(a, b) || byName(a, b));
  }

  /** A column's sort button: that column, or the other way round when it is the one sorted. */
  sortBy(key) {
    if (!FIRST_DIRECTION[key]) return;
    const again = this.sort.key === key;
    const flip = (direction) => (direction === 'ascending' ? 'descending' : 'ascending');
    this.sort = { key, direction: again ? flip(this.sort.direction) : FIRST_DIRECTION[key] };
    if (this.membersLoaded) this.renderMembers(this.members);
  }

  /** Where the member is with the map, and their last post's date. */
  statusCells(member) {
    const status = STATUS_ORDER[member.map_status] === undefined ? 'not_yet' : member.map_status;
    const text = { on_map: t('settings.members.status.onMap'), waiting: t('settings.members.status.waiting'), not_yet: t('settings.members.status.notYet') }[status];
    const time = member.last_post_at ? Date.parse(member.last_post_at) : NaN;
    const last = Number.isFinite(time)
      ? el('time', { datetime: new Date(time).toISOString(), title: fullDate(time), text: timeAgo(time) })
      : el('span', { text: t('settings.members.noPost') });
    return [
      el('span', { class: `member-status status-${status.replace('_', '-')}`, role: 'cell', text }),
      el('span', { class: 'member-last', role: 'cell' }, [last]),
    ];
  }

  memberRow(member) {
    const name = memberName(member);
    const me = state.account && member.key === state.account.key;
    // Moderators see names and roles; the email addresses are for teachers.
    const nameText = el('span', { dir: 'auto', text: name });
    const who = el('span', { class: 'member-who', role: 'cell' }, [
      el('strong', {}, me ? withElements('settings.members.you', {}, { name: nameText }) : [nameText]),
      member.email ? el('span', { class: 'member-email', dir: 'auto', text: member.email }) : null,
    ]);
    if (!this.manages) {
      return el('li', { class: 'member-row', role: 'row', dataset: { key: member.key } }, [
        who, ...this.statusCells(member),
        el('span', { class: 'member-actions', role: 'cell' }, [el('span', { class: 'badge member-role', text: roleName(member.role) })]),
      ]);
    }
    const select = el('select', { class: 'member-role-select', 'aria-label': t('settings.members.roleOf', { name: isolated(name) }), dataset: { key: member.key } },
      Object.entries(ROLE_NAMES).map(([value, label]) => el('option', { value, text: label })));
    select.value = member.role;
    const save = debounce(() => this.setRole(member, select, name), ROLE_SAVE_DELAY_MS);
    select.addEventListener('change', save);
    const remove = el('button', {
      class: 'button danger small', type: 'button', dataset: { remove: member.key },
      'aria-label': t('settings.members.removeLabel', { name: isolated(name) }), text: t('settings.members.remove'),
    });
    return el('li', { class: 'member-row', role: 'row', dataset: { key: member.key } }, [
      who, ...this.statusCells(member), el('span', { class: 'member-actions', role: 'cell' }, [select, remove]),
    ]);
  }

  renderInvitations(invitations) {
    this.invitations = invitations;
    $('invitations-box').hidden = invitations.length === 0;
    $('invitations-list').replaceChildren(...invitations.map((invitation) => this.invitationRow(invitation)));
  }

  invitationRow(invitation) {
    const withdraw = el('button', {
      class: 'button secondary small', type: 'button', dataset: { withdraw: invitation.email },
      'aria-label': t('settings.invitations.withdrawLabel', { email: isolated(invitation.email) }),
      text: t('settings.invitations.withdraw'),
    });
    return el('li', { class: 'member-row invitation-row', dataset: { email: invitation.email } }, [
      el('span', { class: 'member-who' }, [el('span', { class: 'member-email', dir: 'auto', text: invitation.email })]),
      el('span', { class: 'member-actions' }, [el('span', { class: 'badge member-role', text: roleName(invitation.role) }), withdraw]),
    ]);
  }

  async setRole(member, select, name) {
    const role = select.value;
    if (role === member.role) return;
    for (const id of ['members-error', 'members-done']) showFormMessage(id, '');
    try {
      this.members = await api.setMemberRole(this.slug, member.key, role);
      member.role = role;
      this.say('members-done', t('settings.members.roleChanged', { role, name: isolated(name) }));
      // Changing one's own role changes what this page may show.
      if (state.account && member.key === state.account.key) this.show(this.slug);
      else this.refreshCourseRoster();
    } catch (error) {
      select.value = member.role;
      showFormMessage('members-error', formFailureMessage(error, t('settings.members.roleFailed')));
    }
  }

  async removeMember(key) {
    const member = this.members.find((item) => item.key === key);
    if (!member) return;
    const name = memberName(member);
    const sure = await confirmAction(t('settings.members.removeTitle', { name: isolated(name) }),
      t('settings.members.removeMessage', { name: isolated(name) }), t('settings.members.remove'));
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
      this.renderRoster(await api.fetchMembers(this.slug));
      this.say('members-done', t('settings.members.removed', { name: isolated(name) }));
      this.refreshCourseRoster();
      // The focus goes to the next member's Remove button (or the list's heading).
      const next = $('members-list').children[Math.min(index, $('members-list').children.length - 1)];
      const target = next ? next.querySelector('[data-remove]') : null;
      if (target) target.focus();
      else $('members-title').focus();
    } catch (error) {
      showFormMessage('members-error', formFailureMessage(error, t('settings.members.removeFailed')));
    }
  }

  async addMember() {
    const email = $('member-email').value.trim();
    const role = $('member-role').value;
    for (const id of ['members-error', 'members-done']) showFormMessage(id, '');
    if (!email) {
      showFormMessage('members-error', t('settings.add.missing'));
      $('member-email').focus();
      return;
    }
    const button = $('member-add');
    setBusy(button, true, t('settings.add.busy'));
    try {
      const roster = await api.addMember(this.slug, email, role);
      this.renderRoster(roster);
      $('member-email').value = '';
      // A member's address changed their role; any other is invited, whether an account has
      // it or not (the answer never tells).
      const address = email.toLowerCase();
      const member = roster.members.some((item) => typeof item.email === 'string' && item.email.toLowerCase() === address);
      this.say('members-done', member
        ? t('settings.add.done', { role, email: isolated(email) })
        : t('settings.add.invited', { email: isolated(email) }));
      if (member) this.refreshCourseRoster();
    } catch (error) {
      showFormMessage('members-error', formFailureMessage(error, t('settings.add.failed')));
      $('member-email').select();
    } finally {
      setBusy(button, false);
      $('member-email').focus();
    }
  }

  /** Takes back an invitation, unconfirmed (nothing is lost: inviting the address again
   *  makes it anew). The focus goes to the next invitation's Withdraw button, or to the
   *  email field once none is left. */
  async withdrawInvitation(email) {
    if (!this.invitations.some((item) => item.email === email)) return;
    for (const id of ['members-error', 'members-done']) showFormMessage(id, '');
    const rows = [...$('invitations-list').children];
    const index = rows.findIndex((row) => row.dataset.email === email);
    try {
      this.renderRoster(await api.withdrawInvitation(this.slug, email));
      this.say('members-done', t('settings.invitations.withdrawn', { email: isolated(email) }));
    } catch (error) {
      showFormMessage('members-error', formFailureMessage(error, t('settings.invitations.withdrawFailed')));
      // Gone meanwhile (withdrawn by another teacher, or accepted): the list says how it is now.
      if (error.status !== 404) return;
      try {
        this.renderRoster(await api.fetchMembers(this.slug));
      } catch {
        return;
      }
    }
    const left = $('invitations-list').children;
    const next = left[Math.min(index, left.length - 1)];
    const target = next && !$('invitations-box').hidden ? next.querySelector('[data-withdraw]') : null;
    if (target) target.focus();
    else $('member-email').focus();
  }

  // ---- reminding those not on the map yet ----

  /** Whether the class's members can be reminded now (teachers only); an answer that fails
   *  shows nothing. */
  async loadReminders(attempt = this.attempt) {
    if (!this.manages) return;
    let reminders;
    try {
      reminders = await api.fetchReminders(this.slug);
    } catch {
      return;
    }
    if (attempt !== this.attempt) return;
    this.reminders = reminders;
    this.renderReminders();
  }

  renderReminders() {
    const reminders = this.reminders;
    $('remind-box').hidden = false;
    const button = $('remind-button');
    // A server without email offers no button: it says so.
    button.hidden = !reminders.email;
    const next = reminders.next_at ? Date.parse(reminders.next_at) : NaN;
    const later = Number.isFinite(next) && next > Date.now();
    const count = reminders.waiting_members;
    if (!button.classList.contains('busy')) button.disabled = later || count === 0 || Boolean(this.view.archived);
    $('remind-hint').textContent = !reminders.email
      ? t('settings.remind.noEmail')
      : later
        ? t('settings.remind.nextAt', { date: fullDate(next) })
        : count === 0
          ? t('settings.remind.nobody')
          : t('settings.remind.hint', { count });
  }

  async remind() {
    const count = this.reminders ? this.reminders.waiting_members : 0;
    const sure = await confirmAction(t('settings.remind.confirmTitle', { count }),
      t('settings.remind.confirmMessage', { name: isolated(this.view.name) }), t('settings.remind.ok'));
    if (!sure) return;
    for (const id of ['remind-error', 'remind-done']) showFormMessage(id, '');
    const attempt = this.attempt;
    const button = $('remind-button');
    setBusy(button, true, t('settings.remind.busy'));
    try {
      const answer = await api.sendReminders(this.slug);
      if (attempt !== this.attempt) return;
      this.say('remind-done', t('settings.remind.done', { count: Number(answer && answer.reminded) || 0 }));
    } catch (error) {
      if (attempt !== this.attempt) return;
      showFormMessage('remind-error', error.status === 429
        ? t('settings.remind.tooSoon')
        : formFailureMessage(error, t('settings.remind.failed')));
    } finally {
      setBusy(button, false);
    }
    await this.loadReminders(attempt);
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

  renderCourseRoster(roster) {
    this.roster = roster;
    const { synced_at: syncedAt, members } = roster;
    const section = $('course-roster-section');
    section.hidden = !syncedAt && members.length === 0;
    if (section.hidden) return;

    const synced = $('course-roster-synced');
    const time = syncedAt ? Date.parse(syncedAt) : NaN;
    if (Number.isFinite(time)) {
      const stamp = el('time', { datetime: new Date(time).toISOString(), title: fullDate(time), text: timeAgo(time) });
      synced.replaceChildren(...withElements('settings.roster.synced', { date: fullDate(time) }, { time: stamp }));
    } else {
      synced.textContent = t('settings.roster.notSynced');
    }

    const byName = (a, b) => String(a.name || '').localeCompare(String(b.name || ''), language(), { sensitivity: 'base' });
    const missing = members.filter((member) => !member.on_map).sort(byName);
    const onMap = members.filter((member) => member.on_map).sort(byName);
    const total = members.length;
    $('course-roster-count').textContent = total === 0
      ? t('settings.roster.none')
      : t('settings.roster.count', { onMap: onMap.length, total });

    $('course-roster-missing').replaceChildren(...missing.map((member) => this.courseRosterRow(member)));
    $('course-roster-missing').hidden = missing.length === 0;
    $('course-roster-missing-title').hidden = total === 0;
    $('course-roster-everyone').hidden = missing.length > 0 || total === 0;

    $('course-roster-on-map-box').hidden = onMap.length === 0;
    $('course-roster-on-map-title').textContent = t('settings.roster.onMapTitle', { count: onMap.length });
    $('course-roster-on-map').replaceChildren(...onMap.map((member) => this.courseRosterRow(member)));
  }

  courseRosterRow(member) {
    // Their role in the class, else what the course's roles make them (the server's answer).
    const role = member.role || member.course_role;
    const status = member.on_map ? t('settings.roster.onMap') : member.member ? t('settings.roster.noLocation') : t('settings.roster.notInClass');
    return el('li', { class: 'member-row course-roster-row' }, [
      el('span', { class: 'member-who' }, [
        el('strong', { dir: 'auto', text: member.name || t('settings.roster.unnamed') }),
        el('span', { class: 'course-roster-status', text: status }),
      ]),
      el('span', { class: 'badge member-role', text: roleName(role) }),
    ]);
  }

  // ---- end of term ----

  async changeArchived() {
    const archive = !this.view.archived;
    const name = this.view.name;
    if (archive) {
      const sure = await confirmAction(t('settings.archive.confirmTitle', { name: isolated(name) }),
        t('settings.archive.confirmMessage'), t('settings.archive.ok'));
      if (!sure) return;
    }
    for (const id of ['archive-error', 'archive-done']) showFormMessage(id, '');
    const attempt = this.attempt;
    const button = $('archive-button');
    setBusy(button, true, archive ? t('settings.archive.busy') : t('settings.reopen.busy'));
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
        ? t('settings.archive.done', { name: isolated(name) })
        : t('settings.reopen.done', { name: isolated(name) }));
    } catch (error) {
      setBusy(button, false);
      if (attempt !== this.attempt) return;
      showFormMessage('archive-error', formFailureMessage(error, archive ? t('settings.archive.failed') : t('settings.reopen.failed')));
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
      showFormMessage('delete-class-error', t('settings.delete.typeSlug', { slug: isolated(slug) }));
      field.focus();
      return;
    }
    const name = this.view.name;
    const attempt = this.attempt;
    setBusy(button, true, t('settings.delete.busy'));
    try {
      await api.deleteClass(slug, typed);
      setBusy(button, false);
      field.value = '';
      this.renderDeleteButton();
      // Gone from the list of classes either way; away from its page only while it shows.
      if (attempt !== this.attempt) classMembershipChanged(slug);
      else {
        await this.offTheClass(slug, t('settings.delete.doneTitle'), t('settings.delete.doneMessage', { name: isolated(name) }));
      }
    } catch (error) {
      setBusy(button, false);
      if (attempt !== this.attempt) return;
      this.renderDeleteButton();
      showFormMessage('delete-class-error', error.code === 'confirm_slug'
        ? t('settings.delete.typeSlug', { slug: isolated(slug) })
        : formFailureMessage(error, t('settings.delete.failed')));
      field.focus();
      field.select();
    }
  }

  // ---- leaving ----

  async leave() {
    const name = this.view.name;
    const sure = await confirmAction(t('settings.leave.confirmTitle', { name: isolated(name) }),
      t('settings.leave.confirmMessage'), t('settings.leave.ok'));
    if (!sure) return;
    showFormMessage('leave-error', '');
    const button = $('leave-button');
    setBusy(button, true, t('settings.leave.busy'));
    try {
      await api.leaveClass(this.slug);
      setBusy(button, false);
      await this.left(name);
    } catch (error) {
      setBusy(button, false);
      showFormMessage('leave-error', error.code === 'last_teacher'
        ? t('settings.leave.lastTeacher')
        : formFailureMessage(error, t('settings.leave.failed')));
    }
  }

  /** Off the roster: back to the default class's map, saying so. */
  async left(name) {
    await this.offTheClass(this.slug, t('settings.leave.doneTitle'), t('settings.leave.doneMessage', { name: isolated(name) }));
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
