// Search as you type: debounce, one keyword and one hybrid request per settled query, stale
// answers dropped, and the result list (selection, "More results", count, empty state). With an
// empty box, a view chosen in the folder list (a folder, every inbox, an account) is listed:
// its conversations, newest first (the API's search without text).

import { getJSON, searchURL, isAbort } from './api.js';
import { clear, plural } from './dom.js';
import { resultItem } from './results.js';

const DEBOUNCE_MS = 300;
const SLOW_MS = 500;            // E-07: "Searching…" only for a search slower than this
export function countText(conversations, matched) {
  const related = conversations - matched;
  if (related <= 0) return plural(conversations, 'conversation');
  if (matched === 0) return `${related} related conversation${related === 1 ? '' : 's'} (none contains all these words)`;
  return `${plural(matched, 'conversation')} contain${matched === 1 ? 's' : ''} these words · ${related} related`;
}

const SEMANTIC_NOTES = {
  modelNotInstalled: 'Keyword results only: no embedding model is installed.',
  noEmbeddings: 'Keyword results only: no email has an embedding yet.',
  failed: 'Keyword results only: semantic search failed.',
};

export class Search {
  /**
   * hooks: accounts() → [{id, name, email}]; scope() → "all" | "folder:ID" | "account:ID" | "inboxes";
   * viewName(scope) → what the view is called;
   * onPause(text) when typing pauses (the app searches and updates the URL);
   * onResults(response, text) after a list is shown; onZero() for the zero state;
   * onOpen(item) when a result is opened; openThreadId() of the conversation on screen;
   * onError(error); announce(text); onSearchBox() to send focus back to the box.
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.list = document.getElementById('results');
    this.count = document.getElementById('count');
    this.searching = document.getElementById('searching');
    this.semanticNote = document.getElementById('semantic-note');
    this.more = document.getElementById('more');
    this.empty = document.getElementById('empty-state');
    this.zero = document.getElementById('zero-state');

    this.seq = 0;               // bumped by every new query: answers carry theirs and stale ones are dropped
    this.query = null;          // {text, scope} last asked for (null: zero state)
    this.browsing = null;       // the view listed when the box is empty (null: the zero state)
    this.controller = null;     // aborts the current query's requests
    this.shown = null;          // {seq, mode, text, scope, cursor, response} of the list on screen
    this.items = [];            // [{result, thread}] in list order
    this.pending = null;        // a hybrid answer held back while the user is on the list
    this.failures = 0;
    this.debounce = 0;
    this.slowTimer = 0;
    this.pointerInList = false;

    this.list.addEventListener('click', (event) => this.clicked(event));
    this.list.addEventListener('keydown', (event) => this.listKey(event));
    this.list.addEventListener('pointerenter', () => { this.pointerInList = true; });
    this.list.addEventListener('pointerleave', () => { this.pointerInList = false; this.applyPendingIfIdle(); });
    this.list.addEventListener('focusin', (event) => this.focused(event));
    this.list.addEventListener('focusout', (event) => {
      if (!this.pointerInList && !this.list.contains(event.relatedTarget)) this.applyPending();
    });
    this.more.addEventListener('click', () => this.loadMore());
  }

  // ---- Starting searches -------------------------------------------------------------

  /** Each keystroke: search once typing pauses. Returns false when the box is now empty. */
  typed(text) {
    clearTimeout(this.debounce);
    if (!text.trim()) {
      this.showZero();
      return false;
    }
    this.debounce = setTimeout(() => this.hooks.onPause(text), DEBOUNCE_MS);
    return true;
  }

  /** Searches `text` now, unless it is what is already shown or on its way. */
  run(text) {
    clearTimeout(this.debounce);
    const scope = this.hooks.scope();
    if (!text.trim()) {
      this.showZero();
      return false;
    }
    if (this.query && this.query.text === text && this.query.scope === scope) return false;
    this.start(text, scope, ['keyword', 'hybrid']);
    return true;
  }

  /**
   * Lists a view (`scope`: "folder:ID", "account:ID", "inboxes") while the box is empty, and again
   * whenever the box is emptied; "all" (or null) goes back to the zero state. `refresh` asks again
   * even when that listing is on screen (after an action, or new mail).
   */
  browse(scope, { refresh = false } = {}) {
    clearTimeout(this.debounce);
    this.browsing = scope && scope !== 'all' ? scope : null;
    if (!this.browsing) {
      this.showZero();
      return;
    }
    if (!refresh && this.query && this.query.text === '' && this.query.scope === scope) return;
    // A listing has no words to rank: one request (no ranking by meaning to wait for).
    this.start('', scope, ['keyword']);
  }

  start(text, scope, modes) {
    this.controller?.abort();
    this.controller = new AbortController();
    const seq = ++this.seq;
    this.query = { text, scope };
    this.pending = null;
    this.failures = 0;

    clearTimeout(this.slowTimer);
    this.slowTimer = setTimeout(() => {
      if (seq === this.seq && this.shown?.seq !== seq) {
        this.searching.hidden = false;
        this.hooks.announce('Searching…');
      }
    }, SLOW_MS);

    for (const mode of modes) this.request(seq, mode, text, scope, this.controller.signal);
  }

  async request(seq, mode, text, scope, signal) {
    let response;
    try {
      response = await getJSON(searchURL({ q: text, scope, mode }), { signal });
    } catch (error) {
      if (isAbort(error) || seq !== this.seq) return;
      // One ranking is enough: report only when both failed and nothing is on screen for this query.
      this.failures += 1;
      if ((this.failures === 2 || !text) && this.shown?.seq !== seq) {
        this.query = null;        // so that Enter tries again
        this.stopSlow();
        this.clearList();
        this.hooks.onError(error);
      }
      return;
    }
    if (seq !== this.seq) return;
    if (mode === 'keyword') {
      if (this.shown?.seq === seq) return;            // the hybrid ranking is already there
      this.show(seq, mode, text, scope, response);
    } else if (this.shown?.seq === seq && this.userIsOnList()) {
      // The rows wait (until the pointer leaves, or the next key), but the count is the final one now.
      this.pending = { seq, text, scope, response };
      this.showCount(response);
    } else {
      this.show(seq, mode, text, scope, response);
    }
  }

  // The list must not change under the pointer or the keyboard selection.
  userIsOnList() {
    return this.pointerInList || this.list.contains(document.activeElement);
  }

  applyPendingIfIdle() {
    if (this.pending && !this.userIsOnList()) this.applyPending();
  }

  applyPending() {
    const pending = this.pending;
    this.pending = null;
    if (pending && pending.seq === this.seq) this.show(pending.seq, 'hybrid', pending.text, pending.scope, pending.response);
  }

  stopSlow() {
    clearTimeout(this.slowTimer);
    this.searching.hidden = true;
  }

  // ---- Showing a list -----------------------------------------------------------------

  show(seq, mode, text, scope, response) {
    this.stopSlow();
    // Keep the selection on its conversation (or select the one open, as after a reload).
    const selectedThread = String(this.selectedItem()?.result.threadId ?? this.hooks.openThreadId() ?? '');
    this.shown = { seq, mode, text, scope, cursor: response.cursor || null, response };
    this.zero.hidden = true;
    this.renderSemanticNote(mode, response.semantic);

    const results = response.results || [];
    if (!results.length) {
      this.clearList();
      this.count.textContent = plural(0, 'conversation');
      this.empty.hidden = false;
      const title = text ? `No results found for “${text}”` : `No conversations in ${this.hooks.viewName(scope) || 'this folder'}`;
      this.empty.querySelector('.empty-title').textContent = title;
      this.empty.querySelector('.empty-hint').textContent = text ? emptyHint(response, scope) : '';
      this.hooks.announce(title);
    } else {
      this.empty.hidden = true;
      this.items = [];
      clear(this.list);
      this.appendResults(response);
      this.list.hidden = false;
      this.showCount(response);
      const keep = this.items.findIndex((item) => String(item.result.threadId) === selectedThread);
      if (keep >= 0) this.select(keep, { focus: false, scroll: false });
      else this.clearSelection();
    }
    this.more.hidden = !response.cursor;
    this.hooks.onResults(response, text);
  }

  // "2 conversations contain these words · 31 related": what matched, counted apart from what is
  // only similar in meaning (those follow, under a divider).
  showCount(response) {
    const count = countText(response.conversationCount, response.matchedConversations ?? response.conversationCount);
    // A listing says what it lists.
    const text = this.shown?.text === '' ? `${this.hooks.viewName(this.shown.scope) || 'Folder'} · ${count}` : count;
    this.count.textContent = text;
    this.hooks.announce(text);
  }

  appendResults(response) {
    const accounts = this.hooks.accounts();
    const fragment = document.createDocumentFragment();
    (response.results || []).forEach((result, i) => {
      const thread = response.threads?.[i] ?? null;
      const index = this.items.length;
      // The first related result of a list that also has matches opens the related part.
      const relatedStart = result.match === 'semantic' && response.matchedConversations > 0
        && !this.items.some((item) => item.result.match === 'semantic');
      this.items.push({ result, thread });
      fragment.append(resultItem(result, thread, { index, accounts, relatedStart }));
    });
    this.list.append(fragment);
  }

  renderSemanticNote(mode, semantic) {
    const note = mode === 'hybrid' && semantic?.status === 'skipped' ? SEMANTIC_NOTES[semantic.reason] : null;
    this.semanticNote.hidden = !note;
    this.semanticNote.textContent = note || '';
  }

  clearList() {
    this.items = [];
    clear(this.list);
    this.list.hidden = true;
    this.more.hidden = true;
    this.count.textContent = '';
    this.empty.hidden = true;
    this.semanticNote.hidden = true;
  }

  /** E-10 / E-11: an empty box shows the zero state (or the view being listed); whatever was on its way is dropped. */
  showZero() {
    if (this.browsing) {
      this.browse(this.browsing);
      return;
    }
    clearTimeout(this.debounce);
    this.controller?.abort();
    this.seq += 1;
    this.query = null;
    this.shown = null;
    this.pending = null;
    this.stopSlow();
    this.clearList();
    this.zero.hidden = false;
    this.hooks.onZero();
  }

  async loadMore() {
    // The button is off the list: a ranking held back can take its place before paging on.
    this.applyPending();
    const shown = this.shown;
    if (!shown?.cursor) return;
    this.more.disabled = true;
    this.more.textContent = 'Loading…';
    const firstNew = this.items.length;
    try {
      const response = await getJSON(searchURL({ q: shown.text, scope: shown.scope, mode: shown.mode, cursor: shown.cursor }),
                                     { signal: this.controller?.signal });
      if (this.shown !== shown) return;
      shown.cursor = response.cursor || null;
      this.appendResults(response);
      this.more.hidden = !shown.cursor;
      this.hooks.announce(`Showing ${this.items.length} of ${plural(shown.response.conversationCount, 'conversation')}`);
      if (this.more.hidden && this.items[firstNew]) this.select(firstNew);
    } catch (error) {
      if (!isAbort(error)) this.hooks.onError(error);
    } finally {
      this.more.disabled = false;
      this.more.textContent = 'More results';
    }
  }

  // ---- Selection and opening ----------------------------------------------------------

  rows() { return [...this.list.querySelectorAll(':scope > li.result')]; }

  selectedIndex() {
    return this.rows().findIndex((row) => row.getAttribute('aria-selected') === 'true');
  }

  selectedItem() {
    const index = this.selectedIndex();
    return index >= 0 ? this.items[index] : null;
  }

  /** Roving tabindex: the selected row is the list's one tab stop. */
  select(index, { focus = true, scroll = true } = {}) {
    const rows = this.rows();
    if (!rows.length) return;
    const target = Math.max(0, Math.min(index, rows.length - 1));
    rows.forEach((row, i) => {
      row.setAttribute('aria-selected', String(i === target));
      row.tabIndex = i === target ? 0 : -1;
    });
    if (focus) rows[target].focus({ preventScroll: true });
    if (scroll) rows[target].scrollIntoView({ block: 'nearest' });
  }

  clearSelection() {
    for (const row of this.rows()) {
      row.setAttribute('aria-selected', 'false');
      row.tabIndex = -1;
    }
    if (this.list.firstElementChild) this.list.firstElementChild.tabIndex = 0;
  }

  /** Moves the selection by `delta`; returns the new index (−1 when there is no list). */
  move(delta, { focus = true } = {}) {
    const rows = this.rows();
    if (!rows.length || this.list.hidden) return -1;
    const current = this.selectedIndex();
    const next = current < 0 ? (delta > 0 ? 0 : rows.length - 1) : current + delta;
    this.select(next, { focus });
    return this.selectedIndex();
  }

  focusSelection() {
    const index = this.selectedIndex();
    if (index >= 0) this.select(index, { scroll: false });
    return index >= 0;
  }

  open(index) {
    const item = this.items[index];
    if (!item) return;
    this.select(index, { focus: false });
    this.hooks.onOpen(item);
  }

  // Tab or a click lands on a row: that row becomes the selection.
  focused(event) {
    const row = event.target.closest?.('li.result');
    if (row && row.getAttribute('aria-selected') !== 'true') this.select(Number(row.dataset.index), { focus: false });
  }

  clicked(event) {
    const row = event.target.closest('li.result');
    if (row && this.list.contains(row)) this.open(Number(row.dataset.index));
  }

  listKey(event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const index = this.selectedIndex();
    switch (event.key) {
      case 'ArrowDown': case 'j':
        this.move(1);
        break;
      case 'ArrowUp': case 'k':
        if (index <= 0) {
          this.clearSelection();
          this.hooks.onSearchBox();
        } else {
          this.move(-1);
        }
        break;
      case 'Home':
        this.select(0);
        break;
      case 'End':
        this.select(this.items.length - 1);
        break;
      case 'Enter': case 'o': case ' ':
        if (index >= 0) this.open(index);
        break;
      case 'Escape':
        if (this.hooks.openThreadId()) return;     // the app closes the conversation first
        this.hooks.onSearchBox();
        break;
      default:
        return;
    }
    event.preventDefault();
    event.stopPropagation();
  }
}

function emptyHint(response, scope) {
  let hint = 'Try fewer or different words, and check the spelling.';
  if (Object.keys(response.query?.filters || {}).length) hint += ' Removing a filter widens the search.';
  if (scope && scope !== 'all') hint += ' You are searching one folder: All Mail may have more.';
  return hint;
}
