// The sync status (#sync-status, under the folder list): each IMAP account's state from
// GET /api/status (spec 001 §5.2.2) — syncing a folder with its progress and rate, listening for
// new mail, up to date, or the error and when the next attempt comes —, and while mail is being
// embedded, how much of it semantic search covers (newest first), the rate and the time left;
// mailbox actions waiting for the server, and those it refused; mail waiting to be sent or not sent
// (the send queue, status.sending).
// While a sync or the embedding runs, the status is read every second and onProgress() is called
// as mail arrives (searches show what is indexed so far, E-06); otherwise every 15 seconds.
// Nothing is shown without IMAP accounts and embedding work.

import { getJSON } from './api.js';
import { el, clear } from './dom.js';

const BUSY = new Set(['connecting', 'authenticating', 'syncingFolders', 'syncingHeaders', 'syncingBodies', 'indexing']);
const STATE_TEXT = {
  connecting: 'Connecting…',
  authenticating: 'Logging in…',
  syncingFolders: 'Checking folders…',
  syncingHeaders: 'Matching known mail',
  syncingBodies: 'Syncing',
  indexing: 'Indexing',
  listening: 'Up to date · listening for new mail',
  idle: 'Up to date',
  error: 'Sync failed',
};

export class SyncStatus {
  /** hooks: onProgress() when more mail was stored or a pass ended. */
  constructor(hooks) {
    this.hooks = hooks;
    this.box = document.getElementById('sync-status');
    this.timer = null;
    this.seen = '';
  }

  /** The first read of the status (resolves once it is shown), then one every second or 15 seconds. */
  start() {
    return this.poll();
  }

  async poll() {
    let busy = false;
    try {
      const status = await getJSON('/api/status');
      const accounts = status.sync ?? [];
      const embedding = status.embedding?.state === 'running' ? status : null;
      busy = accounts.some((a) => BUSY.has(a.state)) || embedding !== null;
      this.render(accounts, embedding, status.outbox ?? [], status.sending);
      // Another pass ended or another batch is stored: the folder counts and results may change.
      const signature = `${status.emails}`;
      if (this.seen && signature !== this.seen) this.hooks.onProgress();
      this.seen = signature;
    } catch {
      // The status is a courtesy: a failed read is tried again at the next tick.
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.poll(), busy ? 1000 : 15000);
  }

  render(accounts, embedding, outbox = [], sending = null) {
    clear(this.box);
    const queueLine = sendQueueLine(sending);
    this.box.hidden = accounts.length === 0 && !embedding && !queueLine;
    if (embedding) {
      this.box.append(el('div', { class: 'sync-line embedding-progress', 'data-state': 'embedding',
                                  text: describeEmbedding(embedding) }));
    }
    for (const account of accounts) {
      const line = el('div', { class: `sync-line sync-${account.state}`, 'data-account': account.account,
                               'data-state': account.state });
      line.append(el('span', { class: 'sync-account', text: account.account }), ' ');
      line.append(el('span', { class: 'sync-text', text: describe(account) }));
      if (account.state === 'error' && account.lastError) {
        line.append(el('span', { class: 'sync-error', text: account.lastError }));
      }
      // Mailbox actions not yet on the server, or that it refused (spec 001 §5.2.3).
      const queue = outbox.find((o) => o.account === account.account);
      if (queue?.pending) {
        line.append(el('span', { class: 'sync-outbox', text: ` · ${queue.pending} ${queue.pending === 1 ? 'change' : 'changes'} waiting for the server` }));
      }
      if (queue?.failed) {
        line.append(el('span', { class: 'sync-error outbox-failed',
                                 text: `${queue.failed} ${queue.failed === 1 ? 'change' : 'changes'} could not be saved on the server${queue.lastError ? `: ${queue.lastError}` : ''}` }));
      }
      this.box.append(line);
    }
    if (queueLine) this.box.append(queueLine);
  }
}

/** The send queue when something waits or failed: "2 messages waiting to send · cannot connect…". */
function sendQueueLine(sending) {
  if (!sending || (!sending.waiting && !sending.failed)) return null;
  const parts = [];
  if (sending.waiting) parts.push(`${sending.waiting} ${sending.waiting === 1 ? 'message' : 'messages'} waiting to send`);
  if (sending.failed) parts.push(`${sending.failed} not sent`);
  const line = el('div', { class: 'sync-line send-queue', 'data-state': sending.failed ? 'failed' : 'waiting' },
    el('span', { class: 'sync-text', text: parts.join(' · ') }));
  if (sending.lastError) line.append(el('span', { class: 'sync-error', text: sending.lastError }));
  return line;
}

/** "Semantic search: 1,234 of 44,715 emails · 38 docs/s · about 19 min left" (newest first). */
function describeEmbedding(status) {
  return `Semantic search: ${status.embeddedEmails.toLocaleString()} of ${status.emails.toLocaleString()} emails, newest first`
    + embeddingPace(status.embedding);
}

/** " · 38 docs/s · about 19 min left" for a running embedding pass (`/api/status` `embedding`); '' before its first batch. */
export function embeddingPace(e) {
  let text = '';
  if (e.docsPerSecond) text += ` · ${Math.round(e.docsPerSecond)} docs/s`;
  if (e.etaSeconds != null) {
    const minutes = Math.round(e.etaSeconds / 60);
    text += minutes >= 1 ? ` · about ${minutes} min left` : ' · under a minute left';
  }
  return text;
}

function describe(a) {
  let text = STATE_TEXT[a.state] ?? a.state;
  if (a.state === 'syncingBodies' || a.state === 'syncingHeaders' || a.state === 'indexing') {
    if (a.folder) text += ` ${a.folder}`;
    if (a.messagesTotal != null) text += ` · ${a.messagesDone.toLocaleString()} of ${a.messagesTotal.toLocaleString()}`;
    if (a.messagesPerSecond) text += ` · ${Math.round(a.messagesPerSecond)} msgs/s`;
  } else if ((a.state === 'idle' || a.state === 'listening') && a.lastSync) {
    text += ` · ${new Date(a.lastSync).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}`;
  } else if (a.state === 'error' && a.nextAttempt) {
    text += ` · next try ${new Date(a.nextAttempt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}`;
  }
  return text;
}
