// Settings (001 §5.8): the <dialog id="settings">. What the server applies (the undo-send delay) goes
// through /api/settings; what only this page uses (the theme, the category badges shown) is kept in
// localStorage and applied at once, here and at every start (applyLocalSettings). Notifications: one
// checkbox per IMAP account (notify.js shows them; the browser's permission is asked at the first one).

import { getJSON, sendJSON, setSession } from './api.js';
import { el } from './dom.js';
import { enabledAccounts, permission, askPermission } from './notify.js';

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
      await this.showLock();
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

  async model(action) {
    const state = this.dialog.querySelector('.settings-model-state');
    if (action === 'delete' && !window.confirm('Delete the AI model? Search by meaning, summaries and suggested replies stop until it is downloaded again.')) return;
    try {
      if (action === 'install') await sendJSON('POST', '/api/model/install');
      else await sendJSON('DELETE', '/api/model');
      await this.showModel();
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

