// New-mail notifications (001 §5.8 "Notification preferences: per-account enable/disable").
// Which IMAP accounts notify is kept in localStorage (Settings' "Notifications" section sets it). While
// the page is open, each account's count of stored emails (GET /api/accounts) is read every few seconds
// and whenever the sync status sees mail stored; when an enabled account has more than at the last read,
// the browser shows "New mail in NAME" through the Notification API (nothing leaves the browser).
// Nothing is shown for what the page found at its first read, for an account's first sync (it has no
// lastSync yet), or for the older mail a longer sync window brings in; a count that went down (mail
// removed) is the new baseline.

import { getJSON } from './api.js';
import { plural } from './dom.js';

const KEY = 'mailsearch.notify';
const POLL_MS = 10000;

/** The names of the accounts whose new mail is notified. */
export function enabledAccounts() {
  try {
    const names = JSON.parse(localStorage.getItem(KEY) || '[]');
    return Array.isArray(names) ? names.filter((n) => typeof n === 'string') : [];
  } catch {
    return [];
  }
}

/** 'granted', 'denied', 'default', or 'unsupported' (no Notification API in this browser). */
export function permission() {
  return typeof window.Notification === 'function' ? window.Notification.permission : 'unsupported';
}

/** Asks the browser once (from a click: browsers only ask then); the answer, as permission(). */
export async function askPermission() {
  const api = window.Notification;
  if (typeof api !== 'function') return 'unsupported';
  if (api.permission !== 'default') return api.permission;
  try {
    return await api.requestPermission();
  } catch {
    return api.permission;
  }
}

export class Notifier {
  constructor() {
    // account id → {name, emails, window, settling}: what the last read saw.
    this.seen = new Map();
    this.timer = null;
    this.reading = null;
  }

  start() {
    this.check();
  }

  /** Turns an account's notifications on or off; a newly enabled account starts from its current count. */
  setEnabled(name, on) {
    const names = new Set(enabledAccounts());
    if (on) names.add(name); else names.delete(name);
    localStorage.setItem(KEY, JSON.stringify([...names]));
    for (const [id, seen] of this.seen) if (seen.name === name && on) this.seen.delete(id);
    if (on) this.check();
  }

  /** Reads the accounts now (one read at a time) and notifies of what is new; then every POLL_MS. */
  check() {
    if (this.reading) return this.reading;
    clearTimeout(this.timer);
    this.reading = (async () => {
      const enabled = new Set(enabledAccounts());
      if (enabled.size) {
        try {
          const page = await getJSON('/api/accounts');
          this.compare(page.accounts || [], enabled);
        } catch {
          // A failed read is tried again at the next tick.
        }
      } else {
        this.seen.clear();  // nothing enabled: an account enabled later starts from its count then
      }
    })().finally(() => {
      this.reading = null;
      this.timer = setTimeout(() => this.check(), POLL_MS);
    });
    return this.reading;
  }

  compare(accounts, enabled) {
    const ids = new Set();
    for (const account of accounts) {
      if (account.kind !== 'imap') continue;
      ids.add(account.id);
      const emails = Number(account.emails) || 0;
      const window = account.imap?.syncWindowDays ?? 0;
      const lastSync = account.sync?.lastSync || account.lastSync || null;
      const seen = this.seen.get(account.id);
      const now = { name: account.name, emails, window, lastSync, settling: seen?.settling ?? null };
      if (!seen || seen.name !== account.name || !lastSync) {
        // The first read, a renamed account, or its first sync not yet done: all of it was already there.
        this.seen.set(account.id, now);
        continue;
      }
      if (seen.window !== window) {
        // A longer sync window fetches older mail: not new mail, until a pass after the change has ended.
        now.settling = seen.lastSync || 'none';
      }
      if (now.settling !== null && lastSync === now.settling) {
        this.seen.set(account.id, now);
        continue;
      }
      if (now.settling !== null) {
        now.settling = null;
        this.seen.set(account.id, now);
        continue;  // that pass has ended: its count is the baseline
      }
      this.seen.set(account.id, now);
      if (emails > seen.emails && enabled.has(account.name)) this.show(account.name, emails - seen.emails);
    }
    for (const id of [...this.seen.keys()]) if (!ids.has(id)) this.seen.delete(id);
  }

  show(name, count) {
    if (permission() !== 'granted') return;
    try {
      const note = new window.Notification(`New mail in ${name}`, {
        body: plural(count, 'new message'), tag: `mailsearch-${name}`,
      });
      note.onclick = () => {
        window.focus();
        note.close();
      };
    } catch {
      // A browser that shows notifications only from a service worker (Chrome on Android): nothing to show.
    }
  }
}
