// MailSearch's search page: wires the search box, chips, folders, result list and thread view
// together, keeps the URL in step (?q=&scope=&thread=; ?scope= alone: a view listed) and handles
// the keyboard.

import { setTokenPrompt, setPasscodePrompt, setSession, sendJSON } from './api.js';
import { isTyping } from './dom.js';
import { Search } from './search.js';
import { ThreadView } from './thread.js';
import { Chips } from './chips.js';
import { Folders } from './folders.js';
import { ZeroState } from './zero.js';
import { SyncStatus } from './sync.js';
import { Composer } from './compose.js';
import { FolderPicker } from './folderpicker.js';
import { Accounts } from './accounts.js';
import { Settings, applyLocalSettings } from './settings.js';
import { Notifier } from './notify.js';

applyLocalSettings();  // the theme and the category badges chosen in Settings, before anything is drawn

const input = document.getElementById('search');
const form = document.getElementById('search-form');
const statusRegion = document.getElementById('status');
const listScroll = document.getElementById('list-scroll');
const banner = document.getElementById('banner');

// ---- Messages -------------------------------------------------------------------------

function announce(text) {
  if (statusRegion.textContent !== text) statusRegion.textContent = text;
}

// fromSearch: a failed search, cleared by the next one that succeeds (other errors stay until dismissed).
function showError(error, { fromSearch = false } = {}) {
  banner.querySelector('.banner-message').textContent = error?.message || 'Something went wrong';
  banner.querySelector('.banner-hint').textContent = error?.hint || '';
  banner.dataset.fromSearch = String(fromSearch);
  banner.hidden = false;
}

function hideError() {
  banner.hidden = true;
}

banner.querySelector('.banner-close').addEventListener('click', () => {
  hideError();
  input.focus();
});

// ---- Access token (serve --token) ----------------------------------------------------

const tokenForm = document.getElementById('token-form');
const tokenInput = document.getElementById('token-input');
let tokenWaiters = [];

setTokenPrompt((rejected) => new Promise((resolve) => {
  tokenWaiters.push(resolve);
  document.getElementById('token-message').textContent = rejected
    ? 'That token was not accepted. Enter the token this server was started with.'
    : 'This MailSearch server needs an access token (it was started with --token). Enter it to continue.';
  tokenForm.hidden = false;
  tokenInput.value = '';
  tokenInput.focus();
}));

tokenForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const token = tokenInput.value.trim();
  if (!token) return;
  tokenForm.hidden = true;
  const waiters = tokenWaiters;
  tokenWaiters = [];
  waiters.forEach((resolve) => resolve(token));
  input.focus();
});

// ---- App lock (Settings): the passcode opens a session for this tab ------------------------

const lockForm = document.getElementById('lock-form');
const lockInput = document.getElementById('lock-input');
let lockWaiters = [];

setPasscodePrompt(() => new Promise((resolve) => {
  lockWaiters.push(resolve);
  document.getElementById('app').hidden = true;  // nothing of the mail shows behind the lock
  lockForm.hidden = false;
  lockInput.value = '';
  lockInput.focus();
}));

lockForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  const message = document.getElementById('lock-message');
  try {
    const answer = await fetch('/api/lock/unlock', {
      method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      credentials: 'same-origin', cache: 'no-store', body: JSON.stringify({ passcode: lockInput.value }),
    });
    const body = await answer.json().catch(() => ({}));
    if (!answer.ok) {
      message.textContent = answer.status === 403 ? 'That is not the passcode. Try again.' : (body.error || `The server answered ${answer.status}`);
      lockInput.select();
      return;
    }
    setSession(body.session);
  } catch {
    message.textContent = 'MailSearch could not be reached. Check that `mailsearch serve` is still running.';
    return;
  }
  lockForm.hidden = true;
  document.getElementById('app').hidden = false;
  const waiters = lockWaiters;
  lockWaiters = [];
  waiters.forEach((resolve) => resolve());
  input.focus();
});

// ---- The parts ---------------------------------------------------------------------------

// A view chosen in the list, or the scope switch: a search in it, or with an empty box its listing
// (the zero state for All Mail).
const folders = new Folders({
  onError: showError,
  onChange: () => {
    closeThread();
    if (input.value.trim()) search.run(input.value);
    else search.browse(folders.scope);
    writeURL('push');
  },
});

/** The list on screen again, after an action or new mail: the search, or the view listed. */
function refreshList() {
  const text = search.shown?.text ?? input.value;
  search.query = null;
  if (text.trim()) search.run(text);
  else if (search.browsing) search.browse(search.browsing, { refresh: true });
}

const zero = new ZeroState({
  run: (query) => searchNow(query),
  onError: showError,
  announce,
  focusSearch: () => input.focus(),
});

const chips = new Chips({
  setText: (text) => searchNow(text),
  cannotRemove: (description) => {
    showError({ message: `“${description}” could not be taken out of the search text`, hint: 'Edit the text to remove it.' });
    input.focus();
  },
  folderNames: () => folders.folderNames(),
  contacts: () => zero.topContacts,
});

const search = new Search({
  accounts: () => folders.accounts,
  scope: () => folders.scope,
  viewName: (scope) => folders.viewName(scope),
  onPause: (text) => {
    if (search.run(text)) writeURL('typing');
  },
  onResults: (response, text) => {
    if (banner.dataset.fromSearch === 'true') hideError();
    chips.update(response.query?.filters, text);
  },
  onZero: () => {
    chips.update({}, '');
    // After the latest search is recorded, so that it is among the recent ones.
    recording.then(() => zero.load());
  },
  onOpen: ({ result }) => {
    record(search.shown?.text ?? input.value);
    openThread(String(result.threadId), result.emailId);
  },
  openThreadId: () => thread.threadId,
  onError: (error) => showError(error, { fromSearch: true }),
  announce,
  onSearchBox: () => input.focus(),
});

const thread = new ThreadView({
  accounts: () => folders.accounts,
  onError: showError,
  announce,
  composeActions: (email) => composer.messageActions(email),
  replyWith: (emailId, text) => composer.replyWith(emailId, text),
  // The result badges follow a category changed in the conversation: search again.
  onCategoryChanged: () => refreshList(),
  pickFolder: (context) => pickMoveFolder(context),
  // Archive, delete, move and "unread" leave the conversation at once, as in Gmail (local first).
  onLeave: () => goBack(),
  // The server refused it: the conversation comes back, unless another one was opened since.
  // (Leaving it may still be on its way: history.back() closes it on the next popstate.)
  onActionFailed: (action, threadId) => {
    const reopen = () => { if (!thread.isOpen) openThread(String(threadId)); };
    if (thread.isOpen && thread.threadId === threadId) window.addEventListener('popstate', reopen, { once: true });
    else reopen();
  },
  // The server's answer to a mailbox action: the list and the folder counts follow.
  onAction: () => {
    folders.load();
    refreshList();
  },
});

// ---- Moving a conversation: the folder picker ----------------------------------------------

const folderPicker = new FolderPicker();

/** The folder picker over the folders of the conversation's account(s); null when none is chosen. */
async function pickMoveFolder({ accountIds = [], current = [] } = {}) {
  if (!folders.folders.length) await folders.load();
  const choices = folders.folders.filter((f) => !accountIds.length || accountIds.includes(f.accountId));
  const account = folders.accounts.length > 1 && accountIds.length === 1
    ? folders.accounts.find((a) => a.id === accountIds[0]) : null;
  const title = account ? `Move to a folder of ${account.name || account.email}` : 'Move to folder';
  return folderPicker.choose(choices, { current, title });
}

/** Searches `text` at once (a chip, a recent search, a contact): a settled search. */
function searchNow(text) {
  input.value = text;
  closeThread();
  if (text.trim()) search.run(text);
  else search.showZero();
  writeURL('push');
}

// Recent searches (FR-SEARCH-09) are the queries the user settled on (Enter, or opening a
// result), not every keystroke.
let recording = Promise.resolve();
function record(text) {
  const query = text.trim();
  if (!query) return;
  recording = sendJSON('POST', '/api/recent', { query }).catch(showError);
}

// ---- URL state ---------------------------------------------------------------------------

function urlFor({ q, scope, browse, thread: threadId }) {
  const params = new URLSearchParams();
  if (q) {
    params.set('q', q);
    if (scope && scope !== 'all') params.set('scope', scope);
  } else if (browse) {
    params.set('scope', browse);
  }
  if (threadId) params.set('thread', threadId);
  // "folder:3" and "from:john" read better than their %3A forms, and are as valid in a query.
  const query = params.toString().replace(/%3A/gi, ':');
  return query ? `/?${query}` : '/';
}

/**
 * push: a new history entry; replace: this entry; typing: one entry for a burst of typing
 * (pushed by its first search, then replaced); settled: ends a burst (Enter) so the next one
 * gets its own entry.
 */
function writeURL(kind, extra = {}) {
  const url = urlFor({ q: input.value.trim() ? input.value : '', scope: folders.scope, browse: search.browsing,
                      thread: thread.threadId });
  const typingEntry = Boolean(history.state?.typing);
  const state = { typing: kind === 'typing', ...extra };
  const same = url === location.pathname + location.search;
  if (kind === 'replace') {
    history.replaceState(state, '', url);
  } else if (kind === 'push') {
    if (same) history.replaceState({ ...history.state, ...state }, '', url);
    else history.pushState(state, '', url);
  } else if (typingEntry || same) {
    history.replaceState(state, '', url);
  } else {
    history.pushState(state, '', url);
  }
}

function restoreFromURL() {
  const params = new URLSearchParams(location.search);
  const q = params.get('q') ?? '';
  const threadId = params.get('thread');
  // A search URL names its scope (none = All Mail), and so does a view listed (no q); the zero
  // state keeps the session's choice.
  const scope = params.get('scope');
  if (q || scope) folders.setScope(scope);
  if (input.value !== q) input.value = q;
  if (q.trim()) search.run(q);
  else search.browse(scope ? folders.scope : null);
  if (threadId) {
    if (thread.threadId !== threadId) openThread(threadId, history.state?.emailId ?? null, { push: false });
  } else if (thread.isOpen) {
    closeThread();
    returnToList();
  }
}

window.addEventListener('popstate', restoreFromURL);

// ---- Thread view ------------------------------------------------------------------------

let savedListScroll = 0;

function openThread(threadId, emailId, { push = true } = {}) {
  if (!thread.isOpen) savedListScroll = listScroll.scrollTop;
  document.body.classList.add('thread-open');
  // thread.threadId is set synchronously by open(), before the URL is written.
  const opening = thread.open(threadId, { emailId });
  if (push) writeURL('push', { emailId, fromList: true });
  return opening;
}

function closeThread() {
  if (!thread.isOpen) return;
  thread.close();
  document.body.classList.remove('thread-open');
  listScroll.scrollTop = savedListScroll;
}

function returnToList() {
  if (!search.focusSelection()) input.focus();
}

/** "Back to results", u, Esc: the list as it was (selection, scroll). */
function goBack() {
  if (history.state?.fromList) {
    history.back();             // popstate closes the thread, and forward reopens it
  } else {
    closeThread();
    writeURL('push');
    returnToList();
  }
}

/** j / k in a conversation: the next or previous result, as Gmail does. */
function openNeighbour(delta) {
  const index = search.selectedIndex() + delta;
  const item = search.items[index];
  if (!item) return;
  search.select(index, { focus: false });
  thread.open(String(item.result.threadId), { emailId: item.result.emailId });
  writeURL('replace', { emailId: item.result.emailId, fromList: history.state?.fromList });
}

document.getElementById('back').addEventListener('click', goBack);

// ---- Keyboard -----------------------------------------------------------------------------

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const text = input.value;
  closeThread();
  if (!text.trim()) return;
  search.run(text);
  writeURL('settled');
  record(text);
});

input.addEventListener('input', () => {
  const leftThread = thread.isOpen;
  closeThread();
  if (!search.typed(input.value) || leftThread) writeURL('typing');
});

input.addEventListener('keydown', (event) => {
  if (event.key === 'Escape') {
    event.preventDefault();
    event.stopPropagation();
    if (thread.isOpen) {
      goBack();
    } else if (input.value) {
      // E-11: clearing the search returns to the zero state.
      input.value = '';
      search.showZero();
      writeURL('push');
    }
  } else if (event.key === 'ArrowDown' && !search.list.hidden && search.items.length) {
    event.preventDefault();
    search.applyPendingIfIdle();
    if (!search.focusSelection()) search.select(0);
  } else {
    // A hybrid ranking held back while the user was on the list is applied on the next key.
    search.applyPendingIfIdle();
  }
});

document.addEventListener('keydown', (event) => {
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || !tokenForm.hidden || !lockForm.hidden) return;
  if (accounts.isOpen || settings.isOpen) return;  // the dialog's own keys (Esc closes it)
  const typing = isTyping(event);
  if (event.key === '/' && !typing) {
    event.preventDefault();
    input.focus();
    input.select();
    return;
  }
  if (typing) return;
  if (thread.isOpen) {
    if (event.key === 'u' || event.key === 'Escape') {
      event.preventDefault();
      goBack();
    } else if (event.key === 'j' || event.key === 'k') {
      event.preventDefault();
      openNeighbour(event.key === 'j' ? 1 : -1);
    } else {
      const action = { e: 'archive', '#': 'delete', s: 'star', U: 'unread', v: 'move' }[event.key];
      if (action) {
        event.preventDefault();
        thread.act(action);
      }
    }
    return;
  }
  // On the page itself (nothing focused), arrows and j/k reach the list; the list handles its own keys.
  const idle = document.activeElement === document.body || document.activeElement === null;
  const vertical = { j: 1, k: -1, ArrowDown: 1, ArrowUp: -1 }[event.key];
  if (vertical && (idle || event.key === 'j' || event.key === 'k') && search.move(vertical) >= 0) {
    event.preventDefault();
  }
});

// ---- Compose (compose.js): c, and r / a / f in a conversation ----------------------------

const composer = new Composer({
  onError: showError,
  announce,
  onSent: () => folders.load(),
});
composer.installKeys();

// ---- Start --------------------------------------------------------------------------------

// New-mail notifications of the accounts enabled in Settings (notify.js).
const notifier = new Notifier();

// New mail from a sync: the folder counts follow (searches already see what is indexed), and the
// notifications look at once.
const syncStatus = new SyncStatus({
  onProgress: () => {
    folders.load();
    notifier.check();
    // A view listed takes in the new mail, unless the person is on the list (it must not move under them).
    if (search.browsing && !input.value.trim() && !search.userIsOnList()) search.browse(search.browsing, { refresh: true });
  },
});

// Accounts (accounts.js): the sidebar's "Accounts…", and the welcome on a first start with no account.
// An account added, changed or removed: the folders follow, and the sync status looks at once
// (not at its next quarter-minute tick) so that a new account's first pass is followed.
const accounts = new Accounts({ onChange: () => { folders.load(); syncStatus.poll(); }, onError: showError });
// Settings (settings.js, 001 §5.8): the sidebar's "Settings…".
const settings = new Settings({ openAccounts: () => accounts.open(), onError: showError, notifier });

async function start() {
  // The sync status is read before the folders: mail stored after that read changes the count it
  // keeps, and its next read (a second later while a pass runs) reloads the folders. Read after them,
  // a pass ending between the two reads left the folder counts stale until more mail came.
  await syncStatus.start();
  await folders.load();
  restoreFromURL();
  if (!thread.isOpen) input.focus();
  notifier.start();
  accounts.welcomeIfNew();
}

start();
