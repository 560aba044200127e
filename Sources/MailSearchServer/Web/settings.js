// Settings (001 §5.8): the <dialog id="settings">. What the server applies (the undo-send delay) goes
// through /api/settings; what only this page uses (the theme, the category badges shown) is kept in
// localStorage and applied at once, here and at every start (applyLocalSettings). Notifications: one
// checkbox per IMAP account (notify.js shows them; the browser's permission is asked at the first one).
// The AI model: how many emails can be searched by meaning (/api/status), read every second while that
// grows. Data: what each account takes (/api/storage), its export (/api/export) and "Clear caches".

import { getJSON, sendJSON, setSession, needsHeaders, download } from './api.js';
import { el } from './dom.js';
import { enabledAccounts, permission, askPermission } from './notify.js';
import { embeddingPace } from './sync.js';

const THEME_KEY = 'mailsearch.theme';
const HIDDEN_KEY = 'mailsearch.hiddenCategories';
const BADGE_CATEGORIES = ['social', 'promotions', 'updates', 'forums'];

/** The theme and hidden category badges, from localStorage, on <html> (style.css reads them). */
export function applyLocalSettings() {
  const theme = localStorage.getItem(THEME_KEY) || 'system';
  if (theme === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  document.documentElement.dataset.hideCategories = localStorage.getItem(HIDDEN_KEY) || '';
}

const megabytes = (bytes) => `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB`;
const count = (n) => (n ?? 0).toLocaleString();
const plural = (n, one, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;

/** 0 bytes, 12 KB, 3.4 MB, 250 MB, 2.1 GB (powers of 1000, as the rest of the page). */
export function size(bytes) {
  if (!bytes) return '0 bytes';
  if (bytes < 1e3) return `${bytes} bytes`;
  if (bytes < 1e6) return `${Math.round(bytes / 1e3)} KB`;
  if (bytes < 1e9) return megabytes(bytes);
  return `${(bytes / 1e9).toFixed(1)} GB`;
}

/**
 * How much of the mail can be searched by meaning, in words, from `/api/status` and `/api/model`:
 * {state, text, embedded, emails, busy}. `busy`: the number can still grow by itself (the model is
 * there, background embedding is on, mail waits), so the dialog reads the status again.
 */
export function embeddingWords(status, model) {
  const emails = status.emails ?? 0;
  const embedded = Math.min(status.embeddedEmails ?? 0, emails);
  const e = status.embedding || {};
  const background = e.background !== false;
  const installed = model ? model.state === 'installed' : e.state !== 'modelMissing';
  const words = { embedded, emails, busy: false };
  if (emails === 0) return { ...words, state: 'empty', text: 'No mail yet.' };
  if (!installed) {
    const downloading = model?.state === 'downloading';
    return { ...words, state: 'modelMissing', busy: downloading,
      text: (embedded > 0 ? `${count(embedded)} of ${count(emails)} emails have their vector, but without the model ` : `Without the model, the ${count(emails)} emails `)
        + (embedded > 0 ? 'search is by keyword only.' : 'are searched by keyword only.')
        + (downloading ? ' They are embedded once the download ends.' : '') };
  }
  if (e.state === 'running' && embedded < emails) {
    return { ...words, state: 'running', busy: true,
      text: `${count(embedded)} of ${count(emails)} emails can be searched by meaning. Embedding the rest, newest first${embeddingPace(e)}.` };
  }
  const off = ' Background embedding is off (mailsearch serve --no-background-embedding):';
  if (embedded >= emails) {
    return { ...words, state: 'done',
      text: `All ${count(emails)} emails can be searched by meaning.` + (background ? '' : `${off} new mail is searched by keyword until \`mailsearch index embed\` runs.`) };
  }
  const text = `${count(embedded)} of ${count(emails)} emails can be searched by meaning.`;
  if (!background) return { ...words, state: 'off', text: `${text}${off} \`mailsearch index embed\` embeds the other ${count(emails - embedded)}.` };
  if (e.state === 'failed') {
    return { ...words, state: 'failed', text: `${text} Embedding stopped: ${e.lastError || 'an error'}. It is tried again when mail arrives, or run \`mailsearch index embed\`.` };
  }
  return { ...words, state: 'waiting', busy: true, text: `${text} The other ${count(emails - embedded)} are embedded next.` };
}

export class Settings {
  constructor({ openAccounts = () => {}, onError = () => {}, notifier = null } = {}) {
    this.openAccounts = openAccounts;
    this.notifier = notifier;
    this.onError = onError;
    this.dialog = document.getElementById('settings');
    this.undo = this.dialog.querySelector('#settings-undo');
    this.theme = this.dialog.querySelector('#settings-theme');
    document.getElementById('settings-button')?.addEventListener('click', () => this.open());
    this.dialog.querySelector('.settings-close').addEventListener('click', () => this.dialog.close());
    this.dialog.addEventListener('keydown', (event) => { if (event.key !== 'Escape') event.stopPropagation(); });
    this.dialog.querySelector('.settings-open-accounts').addEventListener('click', () => {
      this.dialog.close();
      this.openAccounts();
    });
    this.undo.addEventListener('change', () => this.save({ undoSeconds: Number(this.undo.value) }));
    this.theme.addEventListener('change', () => {
      localStorage.setItem(THEME_KEY, this.theme.value);
      applyLocalSettings();
    });
    const fieldset = this.dialog.querySelector('.settings-categories');
    const hidden = () => (localStorage.getItem(HIDDEN_KEY) || '').split(' ').filter(Boolean);
    for (const name of BADGE_CATEGORIES) {
      const box = el('input', {
        type: 'checkbox', name: `show-${name}`, checked: !hidden().includes(name),
        onchange: (event) => {
          const now = new Set(hidden());
          if (event.target.checked) now.delete(name); else now.add(name);
          localStorage.setItem(HIDDEN_KEY, [...now].join(' '));
          applyLocalSettings();
        },
      });
      fieldset.append(el('label', { class: 'small settings-category' }, box, ` ${name.charAt(0).toUpperCase()}${name.slice(1)}`));
    }
    this.dialog.querySelector('.settings-lock-form').addEventListener('submit', (event) => { event.preventDefault(); this.setLock(); });
    this.dialog.querySelector('.settings-lock-remove').addEventListener('click', () => this.removeLock());
    this.dialog.querySelector('.settings-model-download').addEventListener('click', () => this.model('install'));
    this.dialog.querySelector('.settings-model-delete').addEventListener('click', () => this.model('delete'));
    this.dialog.querySelector('.settings-clear-caches').addEventListener('click', () => this.clearCaches());
    this.dialog.addEventListener('close', () => {
      clearTimeout(this.modelTimer);
      clearTimeout(this.embeddingTimer);
    });
    this.dialog.querySelector('.settings-clear-recent').addEventListener('click', async () => {
      const state = this.dialog.querySelector('.settings-data-state');
      try {
        await sendJSON('DELETE', '/api/recent');
        state.textContent = 'Recent searches cleared.';
      } catch (error) {
        state.textContent = error.message;
      }
    });
  }

  get isOpen() { return this.dialog.open; }

  async open() {
    if (!this.dialog.open) this.dialog.showModal();
    this.theme.value = localStorage.getItem(THEME_KEY) || 'system';
    try {
      const [settings, status, accounts] = await Promise.all([getJSON('/api/settings'), getJSON('/api/status'),
                                                               getJSON('/api/accounts')]);
      const undo = String(settings.undoSeconds);
      if (![...this.undo.options].some((o) => o.value === undo)) this.undo.append(el('option', { value: undo, text: `${undo} seconds` }));
      this.undo.value = undo;
      this.dialog.querySelector('.settings-version').textContent = `MailSearch ${settings.version}.`;
      this.showStorage(settings, status);
      this.showNotifications(accounts.accounts || []);
      await this.showModel();
      this.showEmbedding(status);
      await this.showLock();
      await this.showAccountsStorage();
    } catch (error) {
      this.onError(error);
    }
    this.undo.focus();
  }

  /** One checkbox per IMAP account; what the browser allows said under them. */
  showNotifications(accounts) {
    const fieldset = this.dialog.querySelector('.settings-notify');
    const imap = accounts.filter((a) => a.kind === 'imap');
    const enabled = new Set(enabledAccounts());
    fieldset.querySelectorAll('label').forEach((label) => label.remove());
    for (const account of imap) {
      const box = el('input', {
        type: 'checkbox', name: `notify-${account.id}`, checked: enabled.has(account.name),
        onchange: () => this.setNotify(account.name, box),
      });
      fieldset.append(el('label', { class: 'small settings-notify-account', dataset: { account: account.name } },
        box, ` Notify me of new mail in ${account.name}`));
    }
    fieldset.hidden = imap.length === 0;
    this.dialog.querySelector('.settings-notify-none').hidden = imap.length > 0;
    const state = this.dialog.querySelector('.settings-notify-state');
    const anyOn = imap.some((a) => enabled.has(a.name));
    state.textContent = anyOn ? this.permissionWords(permission()) : '';
  }

  /** What to tell the person about the browser's answer ('' when notifications can be shown). */
  permissionWords(answer) {
    if (answer === 'granted') return '';
    if (answer === 'unsupported') return 'This browser cannot show notifications.';
    if (answer === 'denied') return "Notifications are blocked for this page in your browser's settings: allow them there (the icon at the left of the address), then check the box again.";
    return 'The browser was not allowed to show notifications: check the box again to be asked again.';
  }

  async setNotify(name, box) {
    const state = this.dialog.querySelector('.settings-notify-state');
    if (box.checked) {
      const answer = await askPermission();
      state.textContent = this.permissionWords(answer);
      if (answer !== 'granted') {
        box.checked = false;
        return;
      }
    }
    this.notifier?.setEnabled(name, box.checked);
  }

  showStorage(settings, status) {
    const sizes = status.sizes || {};
    const parts = [];
    for (const [key, words] of [['mailDatabase', 'mail'], ['fts5', 'search index'], ['embeddings', 'vectors'], ['model', 'AI model']]) {
      if (typeof sizes[key] === 'number') parts.push(`${words} ${megabytes(sizes[key])}`);
    }
    const emails = typeof status.emails === 'number' ? `${status.emails.toLocaleString()} emails` : '';
    this.dialog.querySelector('.settings-storage').textContent =
      [`In ${settings.dataDirectory}`, emails, parts.join(', ')].filter(Boolean).join(' · ');
  }

  async showLock() {
    const lock = await getJSON('/api/lock');
    this.dialog.querySelector('.settings-lock-text').textContent = lock.enabled
      ? 'On: opening MailSearch in a browser asks for the passcode, and the server answers nothing else until it is given. '
        + 'Only a key derived from it is kept (scrypt), never the passcode.'
      : 'Off: anyone who can open this page on this computer can read your mail. A passcode locks the page and the server\'s API.';
    this.dialog.querySelector('.settings-lock-remove').hidden = !lock.enabled;
    this.dialog.querySelector('.settings-lock-set').textContent = lock.enabled ? 'Change the passcode' : 'Lock with this passcode';
  }

  async setLock() {
    const field = this.dialog.querySelector('#settings-passcode');
    const state = this.dialog.querySelector('.settings-lock-state');
    if (field.value.length < 4) {
      state.textContent = 'A passcode needs 4 characters or more.';
      field.focus();
      return;
    }
    try {
      const answer = await sendJSON('POST', '/api/lock', { passcode: field.value });
      setSession(answer.session);
      field.value = '';
      state.textContent = 'Locked: the passcode is asked for each time MailSearch is opened.';
      await this.showLock();
    } catch (error) {
      state.textContent = error.message;
    }
  }

  async removeLock() {
    const state = this.dialog.querySelector('.settings-lock-state');
    try {
      await sendJSON('DELETE', '/api/lock');
      setSession(null);
      state.textContent = 'The lock is removed.';
      await this.showLock();
    } catch (error) {
      state.textContent = error.message;
    }
  }

  async showModel() {
    const model = await getJSON('/api/model');
    const downloadEnded = this.model?.state === 'downloading' && model.state !== 'downloading';
    this.model = model;
    if (downloadEnded) this.readEmbedding();
    const text = this.dialog.querySelector('.settings-model-text');
    const state = this.dialog.querySelector('.settings-model-state');
    text.textContent = `${model.model} (${model.license}), ${megabytes(model.sizeBytes)}: search by meaning, summaries and suggested replies. `
      + (model.state === 'installed' ? 'Installed.' : model.state === 'downloading' ? 'Downloading…' : 'Not installed: keyword search only.');
    this.dialog.querySelector('.settings-model-download').hidden = model.state !== 'missing' && model.state !== 'failed' || !model.downloadable;
    this.dialog.querySelector('.settings-model-delete').hidden = model.state !== 'installed';
    state.textContent = model.state === 'downloading' ? `${megabytes(model.downloadedBytes || 0)} so far`
      : model.state === 'failed' ? `The download failed: ${model.message}` : '';
    clearTimeout(this.modelTimer);
    if (model.state === 'downloading' && this.isOpen) this.modelTimer = setTimeout(() => this.showModel().catch(() => {}), 1000);
  }

  /** The embedding line and bar; read again every second while the number can still grow. */
  showEmbedding(status) {
    const words = embeddingWords(status, this.model);
    const box = this.dialog.querySelector('.settings-embedding');
    const bar = box.querySelector('.settings-embedding-bar');
    box.dataset.state = words.state;
    box.dataset.embedded = String(words.embedded);
    box.dataset.emails = String(words.emails);
    box.querySelector('.settings-embedding-text').textContent = words.text;
    bar.hidden = words.emails === 0;
    bar.max = Math.max(1, words.emails);
    bar.value = words.embedded;
    clearTimeout(this.embeddingTimer);
    if (words.busy && this.isOpen) this.embeddingTimer = setTimeout(() => this.readEmbedding(), 1000);
  }

  async readEmbedding() {
    try {
      const status = await getJSON('/api/status');
      if (this.isOpen) this.showEmbedding(status);
    } catch {
      // The next open tries again; the line keeps what it last said.
    }
  }

  // ---- Data on this computer ----------------------------------------------------------------

  /** One row per account (`/api/storage`), the totals, the warnings and what the caches hold. */
  async showAccountsStorage() {
    const storage = await getJSON('/api/storage');
    const table = this.dialog.querySelector('.settings-accounts-storage');
    const body = table.querySelector('tbody');
    body.replaceChildren(...storage.accounts.map((account) => this.storageRow(account)));
    const sum = (pick) => storage.accounts.reduce((total, account) => total + pick(account), 0);
    table.querySelector('tfoot').replaceChildren(el('tr', { class: 'storage-total' },
      el('th', { scope: 'row' }, el('div', { class: 'storage-name', text: 'All mail' }), this.exportLinks(null)),
      el('td', { class: 'number storage-emails', text: count(sum((a) => a.emails)) }),
      el('td', { class: 'number storage-conversations', text: count(sum((a) => a.conversations)) }),
      el('td', { class: 'number storage-attachments', text: `${count(sum((a) => a.attachments.count))} · ${size(sum((a) => a.attachments.bytes))}` }),
      el('td', { class: 'number storage-bytes', title: 'The accounts\' rows in mail.sqlite and their copies of synced messages', text: size(sum((a) => a.bytes)) })));
    table.hidden = storage.accounts.length === 0;
    const directory = storage.dataDirectory;
    const model = storage.model.installed ? `; the AI model ${size(storage.model.bytes)}${storage.model.insideDataDirectory ? ' (in the data directory)' : ''}` : '';
    this.dialog.querySelector('.settings-storage-total').textContent = `Everything MailSearch keeps on this computer: ${size(storage.totalBytes)} `
      + `(mail.sqlite ${size(directory.mailDatabase)}, search index ${size(directory.searchIndex)}, `
      + `copies of synced messages ${size(directory.messageFiles.bytes)}, other files ${size(directory.other)}${model}).`;
    const warning = this.dialog.querySelector('.settings-storage-warning');
    warning.textContent = storage.warnings.map((w) => `${w}.`).join(' ');
    warning.hidden = storage.warnings.length === 0;
    this.showCaches(storage.caches);
  }

  storageRow(account) {
    const database = account.mailDatabase;
    const title = `mail.sqlite: ${size(database.bytes)} (text ${size(database.text)}, vectors ${size(database.vectors)}, `
      + `attachments' text ${size(database.attachmentText)}, summaries ${size(database.summaries)}); `
      + (account.kind === 'imap' ? `copies of synced messages: ${size(account.messageFiles.bytes)} in ${plural(account.messageFiles.count, 'file')}`
        : 'imported: the messages are read from the files they were imported from')
      + `. The messages as received: ${size(account.messageBytes)}.`;
    const name = el('th', { scope: 'row' }, el('div', { class: 'storage-name' }, account.name,
      account.kind === 'imported' ? el('span', { class: 'storage-kind muted', text: ' (imported)' }) : null));
    if (account.missingOriginals > 0) {
      name.append(el('div', { class: 'storage-missing muted',
        text: `${plural(account.missingOriginals, 'original')} gone: left out of the mbox` }));
    }
    if (account.overLimit) name.append(el('div', { class: 'storage-over', text: `Over ${size(2e9)}` }));
    name.append(this.exportLinks(account.name));
    return el('tr', { class: 'storage-account', dataset: { account: account.name, accountId: String(account.id) } },
      name,
      el('td', { class: 'number storage-emails', text: count(account.emails) }),
      el('td', { class: 'number storage-conversations', text: count(account.conversations) }),
      el('td', { class: 'number storage-attachments', text: `${count(account.attachments.count)} · ${size(account.attachments.bytes)}` }),
      el('td', { class: 'number storage-bytes', title, text: size(account.bytes) }));
  }

  /** "mbox" and "JSONL": plain links the browser downloads as they stream (through `download` when the
   *  requests need the token or the lock's session, which a link cannot send). */
  exportLinks(name) {
    const what = name === null ? 'all mail' : name;
    return el('div', { class: 'storage-export' }, el('span', { class: 'muted', text: 'Export: ' }), ['mbox', 'jsonl'].map((format) => {
      const params = new URLSearchParams({ format });
      if (name !== null) params.set('account', name);
      const href = `/api/export?${params}`;
      const day = new Date().toISOString().slice(0, 10);
      const filename = `mailsearch-${name === null ? 'all-mail' : name}-${day}.${format}`;
      const link = el('a', { class: 'settings-export secondary small', href, download: '', dataset: { format },
        'aria-label': `Export ${what} as ${format === 'mbox' ? 'mbox' : 'JSONL'}`, text: format === 'mbox' ? 'mbox' : 'JSONL' });
      link.addEventListener('click', (event) => {
        const state = this.dialog.querySelector('.settings-data-state');
        if (!needsHeaders()) {
          state.textContent = `Exporting ${what}: the browser saves ${filename}.`;
          return;
        }
        event.preventDefault();
        state.textContent = `Exporting ${what}…`;
        download(href, filename).then(() => { state.textContent = `Exported ${what}: the browser saves ${filename}.`; },
          (error) => { state.textContent = error.hint ? `${error.message}. ${error.hint}` : error.message; });
      });
      return link;
    }));
  }

  showCaches(caches) {
    const stored = caches.caches.find((c) => c.name === 'threadSummaries');
    const memory = caches.caches.filter((c) => c.bytes == null).reduce((total, c) => total + c.entries, 0);
    this.dialog.querySelector('.settings-caches').textContent =
      `Caches: ${plural(stored?.entries ?? 0, 'stored summary', 'stored summaries')} (${size(caches.bytes)}) and `
      + `${plural(memory, 'answer')} in memory; computed again when needed.`;
  }

  async clearCaches() {
    const state = this.dialog.querySelector('.settings-data-state');
    try {
      const answer = await sendJSON('POST', '/api/caches/clear');
      const parts = answer.cleared.filter((c) => c.entries > 0).map((c) => {
        switch (c.name) {
          case 'threadSummaries': return `${plural(c.entries, 'stored summary', 'stored summaries')} (${size(c.bytes)})`;
          case 'summaryAnswers': return `${plural(c.entries, 'summary', 'summaries')} in memory`;
          case 'searchResults': return `${plural(c.entries, 'search result page')} in memory`;
          case 'replyModel': return 'the suggested replies\' model in memory';
          default: return `${plural(c.entries, 'entry', 'entries')} of ${c.name}`;
        }
      });
      state.textContent = (parts.length ? `Cleared ${parts.join(', ')}.` : 'The caches were empty.')
        + (answer.summariesInBackground ? ' Summaries are made again in the background.' : ' A summary is made again when its conversation is opened.');
      await this.showAccountsStorage();
    } catch (error) {
      state.textContent = error.hint ? `${error.message}. ${error.hint}` : error.message;
    }
  }

  async model(action) {
    const state = this.dialog.querySelector('.settings-model-state');
    if (action === 'delete' && !window.confirm('Delete the AI model? Search by meaning, summaries and suggested replies stop until it is downloaded again.')) return;
    try {
      if (action === 'install') await sendJSON('POST', '/api/model/install');
      else await sendJSON('DELETE', '/api/model');
      await this.showModel();
      await this.readEmbedding();
    } catch (error) {
      state.textContent = error.hint ? `${error.message}. ${error.hint}` : error.message;
    }
  }

  async save(change) {
    try {
      await sendJSON('PATCH', '/api/settings', change);
    } catch (error) {
      this.onError(error);
    }
  }
}

