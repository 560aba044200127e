// Accounts (001 §5.1.1, §5.9): the <dialog id="accounts"> that lists the mail accounts, adds one
// (a provider's servers filled in from the address, the login tried before anything is saved, each
// problem shown at the field to fix), changes its sync window, display name and default sender,
// unlocks the password store, and removes an account with everything local of it. On a first start
// with no account at all it opens by itself, with a short welcome.

import { getJSON, sendJSON } from './api.js';
import { el, clear } from './dom.js';

const WINDOW_WORDS = { 7: 'last 7 days', 14: 'last 14 days', 30: 'last 30 days', 60: 'last 60 days', 90: 'last 90 days' };
const STATE_WORDS = {
  idle: 'waiting', connecting: 'connecting', authenticating: 'logging in', syncingFolders: 'reading folders',
  syncingHeaders: 'fetching headers', syncingBodies: 'fetching mail', indexing: 'indexing', listening: 'up to date', error: 'error',
};

export class Accounts {
  constructor({ onChange = () => {}, onError = () => {} } = {}) {
    this.onChange = onChange;
    this.onError = onError;
    this.dialog = document.getElementById('accounts');
    this.list = this.dialog.querySelector('.account-list');
    this.none = this.dialog.querySelector('.accounts-none');
    this.welcome = this.dialog.querySelector('.welcome');
    this.storeLine = this.dialog.querySelector('.secret-store');
    this.unlockForm = this.dialog.querySelector('.secret-unlock');
    this.form = this.dialog.querySelector('.account-form');
    this.problem = this.form.querySelector('.account-problem');
    this.state = this.form.querySelector('.account-state');
    this.presetNote = this.form.querySelector('.preset-note');
    this.presets = [];
    this.page = null;
    this.serversTouched = false;

    this.dialog.querySelector('.accounts-close').addEventListener('click', () => this.dialog.close());
    document.getElementById('accounts-button')?.addEventListener('click', () => this.open());
    this.form.elements.email.addEventListener('input', () => this.fillFromPreset());
    for (const name of ['imapHost', 'imapPort', 'imapSecurity', 'smtpHost', 'smtpPort', 'smtpSecurity']) {
      this.form.elements[name].addEventListener('input', () => { this.serversTouched = true; });
    }
    this.form.addEventListener('input', (event) => this.clearProblem(event.target?.name));
    this.form.querySelector('.account-test').addEventListener('click', () => this.submit('test'));
    this.form.addEventListener('submit', (event) => { event.preventDefault(); this.submit('add'); });
    this.unlockForm.addEventListener('submit', (event) => { event.preventDefault(); this.unlock(); });
  }

  get isOpen() { return this.dialog.open; }

  /** Opens the dialog when there is no account at all (a first start), with the welcome. */
  async welcomeIfNew() {
    try {
      await this.load();
      if (this.page.accounts.length === 0) this.open({ welcome: true });
    } catch {
      // The page works without it; opening the dialog by hand says what failed.
    }
  }

  async open({ welcome = false } = {}) {
    this.welcome.hidden = !welcome;
    if (!this.dialog.open) this.dialog.showModal();
    try {
      await this.load();
    } catch (error) {
      this.onError(error);
    }
    this.form.elements.email.focus();
  }

  async load() {
    this.page = await getJSON('/api/accounts');
    this.presets = this.page.presets || [];
    this.render();
  }

  render() {
    const { accounts, secretStore } = this.page;
    clear(this.list);
    this.none.hidden = accounts.length > 0;
    for (const account of accounts) this.list.append(this.item(account));
    if (!secretStore) {
      this.storeLine.textContent = 'This server has no password store: add accounts with `mailsearch account add` on the command line.';
    } else {
      this.storeLine.textContent = `Passwords you type here are kept in ${secretStore.summary}${secretStore.unlocked ? '' : ' (locked)'}, never in the mail database.`;
    }
    this.unlockForm.hidden = !secretStore || secretStore.unlocked;
    if (secretStore && !secretStore.unlocked) {
      this.unlockForm.querySelector('label').textContent = secretStore.needsNewPassphrase
        ? 'Choose a passphrase for the password store (8 characters or more)' : 'Passphrase of the password store';
      this.unlockForm.querySelector('.secret-unlock-note').textContent = secretStore.needsNewPassphrase
        ? 'It encrypts the passwords you add here. MailSearch asks for it again each time it starts; it cannot be recovered.'
        : 'Accounts whose password is kept there sync once it is unlocked.';
    }
  }

  item(account) {
    const detail = [];
    if (account.email) detail.push(account.email);
    if (account.imap) {
      detail.push(`${account.imap.host}:${account.imap.port}`);
      detail.push(account.imap.syncWindowDays ? WINDOW_WORDS[account.imap.syncWindowDays] || `last ${account.imap.syncWindowDays} days` : 'all mail');
      if (account.imap.smtpHost) detail.push(`sends through ${account.imap.smtpHost}`);
    } else {
      detail.push('imported mail');
    }
    detail.push(`${account.emails.toLocaleString()} emails`);
    const sync = account.sync;
    const syncText = sync ? `Sync: ${STATE_WORDS[sync.state] || sync.state}${sync.messagesTotal ? ` (${sync.messagesDone} of ${sync.messagesTotal})` : ''}` : '';
    const controls = [];
    if (account.imap) {
      const window = el('select', { 'aria-label': `Sync window of ${account.name}`, onchange: (event) => this.change(account, { syncWindowDays: Number(event.target.value) }) },
        ...[7, 14, 30, 60, 90, 0].map((days) => el('option', { value: String(days), selected: (account.imap.syncWindowDays || 0) === days, text: days ? WINDOW_WORDS[days] : 'all mail' })));
      controls.push(window);
      if (account.imap.smtpHost) {
        controls.push(el('label', { class: 'small' },
          el('input', { type: 'radio', name: 'default-sender', checked: account.isDefaultSender, onchange: () => this.change(account, { isDefaultSender: true }) }),
          ' Send from this by default'));
      }
    }
    controls.push(el('button', { type: 'button', class: 'secondary small', onclick: () => this.remove(account) }, 'Remove…'));
    return el('li', { class: 'account-item', dataset: { account: account.name } },
      el('div', { class: 'account-main' },
        el('div', { class: 'account-name', text: account.displayName ? `${account.name} · ${account.displayName}` : account.name }),
        el('div', { class: 'account-detail', text: detail.join(' · ') }),
        syncText ? el('div', { class: 'account-detail account-sync', text: syncText }) : null,
        sync?.lastError ? el('div', { class: 'account-error', text: sync.lastError }) : null),
      ...controls);
  }

  // ---- The form ------------------------------------------------------------------------

  /** The provider's servers for the address typed, unless the person has set them. */
  fillFromPreset() {
    const address = this.form.elements.email.value.trim().toLowerCase();
    const domain = address.includes('@') ? address.split('@').pop() : '';
    const preset = this.presets.find((p) => p.domains.includes(domain));
    this.presetNote.textContent = preset ? `${preset.name}: ${preset.passwordNote}` : '';
    if (this.serversTouched) return;
    const f = this.form.elements;
    if (preset) {
      f.imapHost.value = preset.imapHost; f.imapPort.value = preset.imapPort; f.imapSecurity.value = preset.imapSecurity;
      f.smtpHost.value = preset.smtpHost; f.smtpPort.value = preset.smtpPort; f.smtpSecurity.value = preset.smtpSecurity;
    } else if (domain) {
      f.imapHost.value = `imap.${domain}`; f.imapPort.value = 993; f.imapSecurity.value = 'tls';
      f.smtpHost.value = `smtp.${domain}`; f.smtpPort.value = 587; f.smtpSecurity.value = 'startTLS';
    }
  }

  formBody() {
    const f = this.form.elements;
    const text = (name) => f[name].value.trim() || undefined;
    const number = (name) => (f[name].value ? Number(f[name].value) : undefined);
    return {
      email: f.email.value.trim(), password: f.password.value, displayName: text('displayName'), username: text('username'),
      imapHost: text('imapHost'), imapPort: number('imapPort'), imapSecurity: f.imapSecurity.value,
      smtpHost: text('smtpHost'), smtpPort: number('smtpPort'), smtpSecurity: f.smtpSecurity.value,
      syncWindowDays: Number(f.syncWindowDays.value), caFile: text('caFile'),
    };
  }

  clearProblem(field) {
    this.problem.hidden = true;
    for (const node of this.form.querySelectorAll('.field-problem')) {
      if (field && node.dataset.for !== field) continue;
      node.hidden = true;
      this.form.elements[node.dataset.for]?.removeAttribute('aria-invalid');
    }
  }

  showProblem(problem) {
    const text = problem.hint ? `${problem.message}. ${problem.hint.charAt(0).toUpperCase()}${problem.hint.slice(1)}.` : problem.message;
    const at = problem.field && this.form.querySelector(`.field-problem[data-for="${problem.field}"]`);
    if (at) {
      if (at.closest('details')) at.closest('details').open = true;
      at.textContent = text;
      at.hidden = false;
      const input = this.form.elements[problem.field];
      input?.setAttribute('aria-invalid', 'true');
      input?.focus();
    }
    this.problem.textContent = (problem.service === 'smtp' ? 'Sending (SMTP): ' : 'Receiving (IMAP): ') + text;
    this.problem.hidden = false;
  }

  async submit(kind) {
    this.clearProblem();
    const body = this.formBody();
    if (!body.email.includes('@')) return this.showProblem({ service: 'imap', message: 'Enter your email address', field: 'email' });
    if (!body.password) return this.showProblem({ service: 'imap', message: 'Enter the password', field: 'password' });
    this.state.textContent = kind === 'test' ? 'Trying the servers…' : 'Trying the servers, then adding…';
    for (const button of this.form.querySelectorAll('button')) button.disabled = true;
    try {
      if (kind === 'test') {
        const check = await sendJSON('POST', '/api/accounts/test', body);
        this.state.textContent = check.ok ? `Both servers accepted the login${check.smtp ? '' : ' (no SMTP server: this account will only receive)'}.` : '';
        if (!check.ok) this.showProblem(check.imap.problem || check.smtp.problem);
        return;
      }
      const outcome = await sendJSON('POST', '/api/accounts', body);
      this.state.textContent = `Added ${outcome.account?.name || body.email}: its mail is being synced.`;
      this.form.reset();
      this.serversTouched = false;
      this.presetNote.textContent = '';
      await this.load();
      this.onChange();
    } catch (error) {
      this.state.textContent = '';
      const check = error.body?.check;
      if (check && !check.ok) this.showProblem(check.imap.problem || check.smtp.problem);
      else this.showProblem({ service: 'imap', message: error.message, hint: error.hint });
    } finally {
      for (const button of this.form.querySelectorAll('button')) button.disabled = false;
    }
  }

  async change(account, change) {
    try {
      await sendJSON('PATCH', `/api/accounts/${account.id}`, change);
      await this.load();
      this.onChange();
    } catch (error) {
      this.onError(error);
    }
  }

  async remove(account) {
    const typed = window.prompt(`Remove "${account.name}" and its ${account.emails} emails from this computer? `
      + 'Nothing on the mail server is deleted. Type the account\'s name to confirm.');
    if (typed === null) return;
    if (typed.trim() !== account.name) {
      this.onError({ message: 'The account was not removed', hint: `Type its name exactly: ${account.name}` });
      return;
    }
    try {
      await sendJSON('DELETE', `/api/accounts/${account.id}?confirm=${encodeURIComponent(account.name)}`);
      await this.load();
      this.onChange();
    } catch (error) {
      this.onError(error);
    }
  }

  async unlock() {
    const input = this.unlockForm.querySelector('input');
    try {
      await sendJSON('POST', '/api/secrets/unlock', { passphrase: input.value });
      input.value = '';
      await this.load();
    } catch (error) {
      this.unlockForm.querySelector('.secret-unlock-note').textContent = error.hint ? `${error.message}. ${error.hint}` : error.message;
    }
  }
}
