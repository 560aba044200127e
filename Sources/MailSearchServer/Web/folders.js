// The folder list (#folders, from GET /api/mailboxes) and the scope switch (#scope): with
// "Current Folder", searches are limited to the view selected in the list. A view is a folder
// ("folder:ID"), and with two accounts or more also every account's inbox ("inboxes": the
// unified inbox) and one account's mail ("account:ID", its heading). Choosing a view with an
// empty search box lists its conversations, newest first.

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
    this.currentView = null;    // "folder:ID", "account:ID" or "inboxes"
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
    // An id alone is what an earlier version kept: a folder's.
    const stored = sessionStorage.getItem(FOLDER_KEY) || '';
    const view = /^\d+$/.test(stored) ? `folder:${stored}` : stored;
    const fallback = this.folders.find((f) => f.type === 'inbox') ?? this.folders[0];
    this.currentView = this.viewName(view) ? view : fallback ? `folder:${fallback.id}` : null;
    this.render();
    this.update();
  }

  /** Whether the list shows the views of several accounts (the unified inbox, each account's mail). */
  get byAccount() { return this.accounts.length > 1; }

  /** The folder selected in the list; null when the view is not one folder. */
  get current() {
    const match = /^folder:(\d+)$/.exec(this.currentView || '');
    return match ? this.folders.find((f) => f.id === Number(match[1])) ?? null : null;
  }

  /** What a view is called on the page ("Inbox", "All inboxes", an account's name); null when there is no such view. */
  viewName(view) {
    if (!view) return null;
    if (view === 'inboxes') return this.byAccount ? 'All inboxes' : null;
    const [kind, id] = view.split(':');
    if (kind === 'folder') {
      const folder = this.folders.find((f) => f.id === Number(id));
      if (!folder) return null;
      const account = this.byAccount ? this.accounts.find((a) => a.id === folder.accountId) : null;
      return account ? `${folder.name} (${account.name || account.email})` : folder.name;
    }
    if (kind === 'account' && this.byAccount) {
      const account = this.accounts.find((a) => a.id === Number(id));
      return account ? `All of ${account.name || account.email}` : null;
    }
    return null;
  }

  /** The `scope` parameter of a search: "all", or the view selected in the list. */
  get scope() {
    return this.select.value === 'folder' && this.viewName(this.currentView) ? this.currentView : 'all';
  }

  /** Applies a scope from the URL (a view, else All Mail). */
  setScope(scope) {
    const known = this.viewName(scope) ? scope : null;
    if (known) this.currentView = known;
    this.select.value = known ? 'folder' : 'all';
    sessionStorage.setItem(SCOPE_KEY, this.select.value);
    if (known) sessionStorage.setItem(FOLDER_KEY, known);
    this.update();
  }

  /** Display names of the folders, each once (for the Folder chip). */
  folderNames() {
    return [...new Map(this.folders.map((f) => [f.name.toLowerCase(), f.name])).values()];
  }

  render() {
    clear(this.list);
    const byAccount = this.byAccount;
    if (byAccount && this.folders.some((f) => f.type === 'inbox')) {
      const unread = this.folders.filter((f) => f.type === 'inbox').reduce((sum, f) => sum + (f.unreadCount || 0), 0);
      this.list.append(this.item({ view: 'inboxes', name: 'All inboxes', type: 'inbox', unreadCount: unread,
                                   title: 'The inbox of every account' }));
    }
    for (const account of byAccount ? this.accounts : [null]) {
      const folders = this.folders.filter((f) => !account || f.accountId === account.id);
      if (!folders.length) continue;
      if (account) {
        // The account's heading is its view: all of its mail.
        const name = account.name || account.email;
        this.list.append(el('li', { class: 'account-heading' },
          this.button({ view: `account:${account.id}`, name, title: account.email ? `All mail of ${account.email}` : `All mail of ${name}`,
                        label: `All mail of ${name}`, className: 'account-view' })));
      }
      for (const folder of folders) {
        this.list.append(this.item({ view: `folder:${folder.id}`, folderId: folder.id, name: folder.name, type: folder.type,
                                     unreadCount: folder.unreadCount, title: folder.path !== folder.name ? folder.path : null }));
      }
    }
    if (!this.folders.length) this.list.append(el('li', { class: 'muted folders-none', text: 'No folders' }));
    this.select.querySelector('option[value="folder"]').disabled = !this.folders.length;
  }

  item(view) {
    return el('li', {}, this.button(view));
  }

  /** A view's button: { view, name, type?, unreadCount?, folderId?, title?, label?, className? }. */
  button({ view, name, type = null, unreadCount = 0, folderId = null, title = null, label = null, className = '' }) {
    const button = el('button', {
      type: 'button', class: `folder ${className}`.trim(), dataset: { view, ...(folderId !== null ? { folderId } : {}) },
      title, 'aria-label': label,
    },
      type ? icon(TYPE_ICONS[type] ?? 'folder') : null,
      el('span', { class: 'folder-name', text: name }),
      unreadCount > 0
        ? el('span', { class: 'folder-count' }, String(unreadCount), el('span', { class: 'visually-hidden', text: ' unread' }))
        : null);
    // Choosing a view means listing it, or searching in it when there is text in the box.
    button.addEventListener('click', () => {
      this.currentView = view;
      sessionStorage.setItem(FOLDER_KEY, view);
      this.select.value = 'folder';
      sessionStorage.setItem(SCOPE_KEY, 'folder');
      this.update();
      this.hooks.onChange({ view: true });
    });
    return button;
  }

  update() {
    for (const button of this.list.querySelectorAll('button.folder')) {
      const selected = button.dataset.view === this.currentView;
      button.classList.toggle('selected', selected);
      button.classList.toggle('in-scope', selected && this.select.value === 'folder');
      if (selected) button.setAttribute('aria-current', 'true');
      else button.removeAttribute('aria-current');
    }
    const name = this.select.value === 'folder' ? this.viewName(this.currentView) : null;
    this.scopeHint.textContent = name || '';
    this.scopeHint.hidden = !name;
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
