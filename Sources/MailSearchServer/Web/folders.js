// The folder list (#folders, from GET /api/mailboxes) and the scope switch (#scope): with
// "Current Folder", searches are limited to the folder selected in the list.

import { getJSON } from './api.js';
import { el, clear, icon } from './dom.js';

const SCOPE_KEY = 'mailsearch.scope';
const FOLDER_KEY = 'mailsearch.folder';
const TYPE_ORDER = ['inbox', 'starred', 'important', 'sent', 'drafts', 'archive', 'spam', 'trash'];
const TYPE_ICONS = { inbox: 'inbox', starred: 'star', important: 'important', sent: 'sent', drafts: 'drafts',
                     archive: 'archive', spam: 'spam', trash: 'trash' };

export class Folders {
  /** hooks: onChange() after the scope or the current folder changed; onError(error). */
  constructor(hooks) {
    this.hooks = hooks;
    this.list = document.getElementById('folders');
    this.select = document.getElementById('scope');
    this.scopeHint = document.getElementById('scope-folder');
    this.accounts = [];
    this.folders = [];
    this.currentId = null;
    this.select.value = sessionStorage.getItem(SCOPE_KEY) === 'folder' ? 'folder' : 'all';
    this.select.addEventListener('change', () => {
      sessionStorage.setItem(SCOPE_KEY, this.select.value);
      this.update();
      this.hooks.onChange();
    });
  }

  async load() {
    try {
      const { accounts = [], folders = [] } = await getJSON('/api/mailboxes');
      this.accounts = accounts;
      // The API names a folder's kind `folderType`.
      this.folders = sortFolders(folders.map((f) => ({ ...f, type: f.type ?? f.folderType })), accounts);
    } catch (error) {
      this.hooks.onError(error);
    }
    const stored = Number(sessionStorage.getItem(FOLDER_KEY));
    const fallback = this.folders.find((f) => f.type === 'inbox') ?? this.folders[0];
    this.currentId = this.folders.some((f) => f.id === stored) ? stored : fallback?.id ?? null;
    this.render();
    this.update();
  }

  get current() {
    return this.folders.find((f) => f.id === this.currentId) ?? null;
  }

  /** The `scope` parameter of a search: "all" or "folder:ID". */
  get scope() {
    return this.select.value === 'folder' && this.current ? `folder:${this.current.id}` : 'all';
  }

  /** Applies a scope from the URL ("folder:ID", else All Mail). */
  setScope(scope) {
    const match = /^folder:(\d+)$/.exec(scope || '');
    const folder = match && this.folders.find((f) => f.id === Number(match[1]));
    if (folder) this.currentId = folder.id;
    this.select.value = folder ? 'folder' : 'all';
    sessionStorage.setItem(SCOPE_KEY, this.select.value);
    if (folder) sessionStorage.setItem(FOLDER_KEY, String(folder.id));
    this.update();
  }

  /** Display names of the folders, each once (for the Folder chip). */
  folderNames() {
    return [...new Map(this.folders.map((f) => [f.name.toLowerCase(), f.name])).values()];
  }

  render() {
    clear(this.list);
    const byAccount = this.accounts.length > 1;
    for (const account of byAccount ? this.accounts : [null]) {
      const folders = this.folders.filter((f) => !account || f.accountId === account.id);
      if (!folders.length) continue;
      if (account) {
        this.list.append(el('li', { class: 'account-heading', role: 'presentation', text: account.name || account.email }));
      }
      for (const folder of folders) this.list.append(this.item(folder));
    }
    if (!this.folders.length) this.list.append(el('li', { class: 'muted folders-none', text: 'No folders' }));
    this.select.querySelector('option[value="folder"]').disabled = !this.folders.length;
  }

  item(folder) {
    const button = el('button', {
      type: 'button', class: 'folder', dataset: { folderId: folder.id },
      title: folder.path !== folder.name ? folder.path : null,
    },
      icon(TYPE_ICONS[folder.type] ?? 'folder'),
      el('span', { class: 'folder-name', text: folder.name }),
      folder.unreadCount > 0
        ? el('span', { class: 'folder-count' }, String(folder.unreadCount), el('span', { class: 'visually-hidden', text: ' unread' }))
        : null);
    // Choosing a folder means searching in it.
    button.addEventListener('click', () => {
      this.currentId = folder.id;
      sessionStorage.setItem(FOLDER_KEY, String(folder.id));
      this.select.value = 'folder';
      sessionStorage.setItem(SCOPE_KEY, 'folder');
      this.update();
      this.hooks.onChange();
    });
    return el('li', {}, button);
  }

  update() {
    for (const button of this.list.querySelectorAll('button.folder')) {
      const selected = Number(button.dataset.folderId) === this.currentId;
      button.classList.toggle('selected', selected);
      button.classList.toggle('in-scope', selected && this.select.value === 'folder');
      if (selected) button.setAttribute('aria-current', 'true');
      else button.removeAttribute('aria-current');
    }
    const folder = this.select.value === 'folder' ? this.current : null;
    this.scopeHint.textContent = folder ? folder.name : '';
    this.scopeHint.hidden = !folder;
  }
}

function sortFolders(folders, accounts) {
  const rank = (f) => {
    const i = TYPE_ORDER.indexOf(f.type);
    return i < 0 ? TYPE_ORDER.length : i;
  };
  const accountRank = (f) => accounts.findIndex((a) => a.id === f.accountId);
  return [...folders].sort((a, b) => accountRank(a) - accountRank(b) || rank(a) - rank(b)
                                     || a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }));
}
