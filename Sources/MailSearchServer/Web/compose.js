// The compose panel (#compose) and the send toast (#send-toast): new mail (c), reply (r),
// reply all (a) and forward (f) of a message, drafts saved as you type, Send with an Undo
// window. Plain text only: the panel shows no mail markup and loads nothing remote.

import { getJSON, sendJSON, uploadFile } from './api.js';
import { el, clear, humanSize, isTyping } from './dom.js';

const AUTOSAVE_MS = 1500;
// Typing without a pause still saves at least this often (001 §5.5.1: every 30 seconds).
const AUTOSAVE_MAX_MS = 30_000;

/** "Ann <a@x>, "Doe, Jo" <j@x>" → one entry per address (commas inside quotes or <> kept). */
export function splitAddresses(text) {
  const out = [];
  let current = '';
  let quoted = false;
  let angle = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (ch === '<' && !quoted) angle = true;
    else if (ch === '>' && !quoted) angle = false;
    if ((ch === ',' || ch === ';') && !quoted && !angle) {
      if (current.trim()) out.push(current.trim());
      current = '';
    } else {
      current += ch;
    }
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

export class Composer {
  /** hooks: onError(error), announce(text), onSent(detail). */
  constructor(hooks) {
    this.hooks = hooks;
    this.panel = document.getElementById('compose');
    this.form = this.panel.querySelector('form');
    this.fields = {
      from: this.panel.querySelector('#compose-from'),
      to: this.panel.querySelector('#compose-to'),
      cc: this.panel.querySelector('#compose-cc'),
      bcc: this.panel.querySelector('#compose-bcc'),
      subject: this.panel.querySelector('#compose-subject'),
      body: this.panel.querySelector('#compose-body'),
    };
    this.title = this.panel.querySelector('.compose-title');
    this.state = this.panel.querySelector('.compose-state');
    this.files = this.panel.querySelector('#compose-files');
    this.attachmentList = this.panel.querySelector('.compose-attachments');
    this.suggestions = this.panel.querySelector('.compose-suggestions');
    this.toast = document.getElementById('send-toast');
    this.draft = null;
    this.dirty = false;
    this.saving = null;
    this.timer = null;
    this.toastTimer = null;
    this.lastSaved = 0;

    this.form.addEventListener('submit', (event) => { event.preventDefault(); this.send(); });
    this.form.addEventListener('input', (event) => {
      if (event.target === this.files) return;
      this.dirty = true;
      this.setState('Unsaved changes');
      clearTimeout(this.timer);
      const overdue = Date.now() - this.lastSaved >= AUTOSAVE_MAX_MS;
      this.timer = setTimeout(() => this.save(), overdue ? 0 : AUTOSAVE_MS);
    });
    this.fields.from.addEventListener('change', () => this.save());
    this.files.addEventListener('change', () => this.attach([...this.files.files]));
    this.panel.querySelector('[data-compose-close]').addEventListener('click', () => this.close());
    this.panel.querySelector('[data-compose-discard]').addEventListener('click', () => this.discard());
    this.panel.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') { event.preventDefault(); this.close(); }
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) { event.preventDefault(); this.send(); }
    });
    this.toast.querySelector('button').addEventListener('click', () => this.undo());
    document.getElementById('compose-new').addEventListener('click', () => this.open('new'));
    this.draftsButton = document.getElementById('drafts-button');
    this.draftsList = document.getElementById('drafts-list');
    this.draftsButton.addEventListener('click', () => this.toggleDrafts());
    // Typed text not yet saved (the last 1.5 s): the browser asks before the page goes.
    window.addEventListener('beforeunload', (event) => {
      if (this.isOpen && this.dirty) event.preventDefault();
    });
    this.panel.querySelector('.compose-format').addEventListener('click', (event) => {
      const button = event.target.closest('button[data-format]');
      if (button) this.format(button.dataset.format);
    });
  }

  /** Wraps the selection in the text's formatting marks (*bold*, _italic_, [text](url)). */
  format(kind) {
    const body = this.fields.body;
    const { selectionStart: start, selectionEnd: end, value } = body;
    const selected = value.slice(start, end) || { bold: 'bold', italic: 'italic', link: 'text' }[kind];
    const [before, after] = { bold: ['*', '*'], italic: ['_', '_'], link: ['[', '](https://)'] }[kind];
    body.setRangeText(before + selected + after, start, end, 'end');
    if (kind === 'link') {
      const urlEnd = body.selectionEnd - 1;
      body.setSelectionRange(urlEnd - 'https://'.length, urlEnd);
    } else {
      body.setSelectionRange(start + before.length, start + before.length + selected.length);
    }
    body.focus();
    body.dispatchEvent(new Event('input', { bubbles: true }));
  }

  get isOpen() { return !this.panel.hidden; }

  /** The keys: c composes anywhere; r, a, f answer the conversation's latest message. */
  installKeys() {
    document.addEventListener('keydown', (event) => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || isTyping(event) || this.isOpen) return;
      const kind = { c: 'new', r: 'reply', a: 'replyAll', f: 'forward' }[event.key];
      if (!kind) return;
      let emailId = null;
      if (kind !== 'new') {
        const thread = document.getElementById('thread');
        if (!thread || thread.hidden) return;
        const articles = thread.querySelectorAll('article.message');
        emailId = articles.length ? Number(articles[articles.length - 1].dataset.emailId) : null;
        if (!emailId) return;
      }
      event.preventDefault();
      this.open(kind, emailId);
    });
  }

  /** Reply / Reply all / Forward under a message of the conversation view. */
  messageActions(email) {
    const button = (kind, label, key) => el('button', {
      type: 'button', class: 'secondary small', text: label, title: `${label} (${key})`,
      dataset: { compose: kind }, onclick: () => this.open(kind, email.emailId),
    });
    return el('div', { class: 'message-compose', role: 'group', 'aria-label': 'Answer this message' },
      button('reply', 'Reply', 'r'), button('replyAll', 'Reply all', 'a'), button('forward', 'Forward', 'f'));
  }

  /** A new draft from the server (its template: recipients, Re:/Fwd:, quoted text). */
  async open(kind, emailId = null) {
    if (this.isOpen && !(await this.close())) return;
    let identities;
    let draft;
    try {
      identities = await getJSON('/api/identities');
      if (!identities.length) {
        throw Object.assign(new Error('No account can send mail'), { hint: 'Add an IMAP account with its SMTP server: mailsearch account add NAME --imap HOST --smtp HOST …' });
      }
      draft = await sendJSON('POST', '/api/compose', emailId ? { kind, emailId } : { kind });
    } catch (error) {
      this.hooks.onError(error);
      return;
    }
    this.show(draft, identities);
    (draft.notices || []).forEach((notice) => this.hooks.onError({ message: notice }));
    if (kind === 'reply' || kind === 'replyAll') this.loadSuggestions(emailId, draft.id);
  }

  /**
   * Up to three suggested replies (001 §5.5.3) when the email asks something, fetched without
   * holding up the panel (nothing without the model): a click writes one above the quote.
   */
  async loadSuggestions(emailId, draftId) {
    let answer;
    try {
      answer = await getJSON(`/api/emails/${encodeURIComponent(emailId)}/replies`);
    } catch {
      return;
    }
    const suggestions = answer?.replies?.triggered ? (answer.replies.suggestions || []).slice(0, 3) : [];
    if (!suggestions.length || this.draft?.id !== draftId) return;
    for (const suggestion of suggestions) {
      const chip = el('button', { type: 'button', class: 'reply-chip secondary small', text: suggestion.text, title: 'Write this reply' });
      chip.addEventListener('click', () => this.writeAbove(suggestion.text));
      this.suggestions.append(chip);
    }
    this.suggestions.hidden = false;
  }

  /** Writes `text` above the quote, the caret after it. */
  writeAbove(text) {
    const body = this.fields.body;
    body.setRangeText(`${text}\n`, 0, 0, 'end');
    body.setSelectionRange(text.length, text.length);
    body.focus();
    body.dispatchEvent(new Event('input', { bubbles: true }));
  }

  /**
   * A suggested reply chosen in the conversation: opens the reply to `emailId` with `text` above
   * the quote. False when no account can send (the caller copies the text instead).
   */
  async replyWith(emailId, text) {
    let identities;
    try {
      identities = await getJSON('/api/identities');
    } catch {
      return false;
    }
    if (!identities.length) return false;
    await this.open('reply', emailId);
    if (this.isOpen) this.writeAbove(text);
    return true;
  }

  /** Opens an existing draft (after an Undo). */
  async reopen(draft) {
    if (this.isOpen && !(await this.close())) return;
    let identities = [];
    try { identities = await getJSON('/api/identities'); } catch (error) { this.hooks.onError(error); }
    this.show(draft, identities);
  }

  show(draft, identities) {
    clear(this.suggestions);
    this.suggestions.hidden = true;
    this.draft = draft;
    this.dirty = false;
    this.lastSaved = Date.now();
    clear(this.fields.from);
    for (const identity of identities) {
      this.fields.from.append(el('option', { value: identity.account, text: `${identity.from} (${identity.account})`,
        selected: identity.account === draft.account }));
    }
    this.fields.to.value = (draft.to || []).join(', ');
    this.fields.cc.value = (draft.cc || []).join(', ');
    this.fields.bcc.value = (draft.bcc || []).join(', ');
    this.fields.subject.value = draft.subject || '';
    this.fields.body.value = draft.body || '';
    this.title.textContent = { reply: 'Reply', replyAll: 'Reply all', forward: 'Forward' }[draft.kind] || 'New message';
    this.renderAttachments();
    this.setState(draft.lastError ? draft.lastError : 'Draft saved');
    this.panel.hidden = false;
    this.panel.dataset.draftId = String(draft.id);
    document.body.classList.add('composing');
    const first = draft.to?.length ? this.fields.body : this.fields.to;
    first.focus();
    if (first === this.fields.body) this.fields.body.setSelectionRange(0, 0);
  }

  fieldsBody() {
    return {
      account: this.fields.from.value || undefined,
      to: splitAddresses(this.fields.to.value),
      cc: splitAddresses(this.fields.cc.value),
      bcc: splitAddresses(this.fields.bcc.value),
      subject: this.fields.subject.value,
      body: this.fields.body.value,
    };
  }

  /** Saves what is typed (PUT); one save at a time, the latest text wins. */
  async save() {
    clearTimeout(this.timer);
    if (!this.draft) return true;
    if (this.saving) await this.saving;
    if (!this.dirty && this.fields.from.value === this.draft.account) return true;
    this.dirty = false;
    const id = this.draft.id;
    this.saving = sendJSON('PUT', `/api/drafts/${id}`, this.fieldsBody())
      .then((draft) => {
        if (this.draft?.id === id) { this.draft = draft; this.lastSaved = Date.now(); this.setState('Draft saved'); }
        return true;
      })
      .catch((error) => { this.dirty = true; this.setState('Not saved'); this.hooks.onError(error); return false; })
      .finally(() => { this.saving = null; });
    return this.saving;
  }

  async attach(files) {
    if (!this.draft || !files.length) return;
    if (!(await this.save())) return;
    for (const file of files) {
      try {
        this.setState(`Attaching ${file.name}…`);
        this.draft = await uploadFile(`/api/drafts/${this.draft.id}/attachments?name=${encodeURIComponent(file.name)}`, file);
      } catch (error) {
        this.hooks.onError(error);
      }
    }
    this.files.value = '';
    this.renderAttachments();
    this.setState('Draft saved');
  }

  renderAttachments() {
    clear(this.attachmentList);
    for (const attachment of this.draft?.attachments || []) {
      const remove = el('button', { type: 'button', class: 'link-button', text: 'Remove', 'aria-label': `Remove ${attachment.filename}` });
      remove.addEventListener('click', async () => {
        try {
          this.draft = await sendJSON('DELETE', `/api/drafts/${this.draft.id}/attachments/${attachment.id}`);
          this.renderAttachments();
        } catch (error) { this.hooks.onError(error); }
      });
      this.attachmentList.append(el('li', { class: 'compose-attachment' },
        el('span', { text: attachment.filename }), ' ', el('span', { class: 'muted', text: humanSize(attachment.size) }), ' ', remove));
    }
  }

  async send() {
    if (!this.draft) return;
    if (!(await this.save())) return;
    let queued;
    try {
      queued = await sendJSON('POST', `/api/drafts/${this.draft.id}/send`);
    } catch (error) {
      this.hooks.onError(error);
      return;
    }
    this.hide();
    this.showToast(queued);
  }

  /** "Sending…" with Undo until the window ends, then what became of the message. */
  showToast(queued) {
    clearTimeout(this.toastTimer);
    this.toast.dataset.draftId = String(queued.id);
    const text = this.toast.querySelector('.toast-text');
    const undo = this.toast.querySelector('button');
    const until = queued.undoUntil ? Date.parse(queued.undoUntil) : Date.now();
    undo.hidden = false;
    this.toast.hidden = false;
    const tick = async () => {
      const left = Math.ceil((until - Date.now()) / 1000);
      if (left > 0) {
        text.textContent = `Sending in ${left} s`;
        this.toastTimer = setTimeout(tick, 250);
        return;
      }
      undo.hidden = true;
      let detail = null;
      try { detail = await getJSON(`/api/drafts/${queued.id}`); } catch { /* gone or offline: keep waiting */ }
      if (detail?.state === 'sent') {
        text.textContent = detail.refused?.length ? `Sent, but refused for ${detail.refused.length} recipient(s)` : 'Message sent';
        this.hooks.announce(text.textContent);
        this.hooks.onSent?.(detail);
        this.toastTimer = setTimeout(() => { this.toast.hidden = true; }, 4000);
      } else if (detail?.state === 'failed') {
        text.textContent = `Not sent: ${detail.lastError || 'the server refused it'}`;
        this.toastTimer = setTimeout(() => { this.toast.hidden = true; }, 12000);
      } else if (detail?.state === 'waiting') {
        text.textContent = `Waiting to send (${detail.lastError || 'the server cannot be reached'}); it will be tried again`;
        this.toastTimer = setTimeout(tick, 2000);
      } else {
        text.textContent = 'Sending…';
        this.toastTimer = setTimeout(tick, 500);
      }
    };
    tick();
  }

  async undo() {
    const id = this.toast.dataset.draftId;
    if (!id) return;
    clearTimeout(this.toastTimer);
    let draft;
    try {
      draft = await sendJSON('POST', `/api/outgoing/${id}/undo`);
    } catch (error) {
      this.hooks.onError(error);
      this.showToast({ id, undoUntil: null });
      return;
    }
    this.toast.hidden = true;
    this.hooks.announce('Sending undone');
    this.reopen(draft);
  }

  /** Closes the panel, keeping the draft (saved first; a draft that cannot be saved stays open). */
  async close() {
    if (!this.draft) { this.hide(); return true; }
    if (!(await this.save())) return false;
    this.hide();
    this.hooks.announce('Draft saved');
    return true;
  }

  /** The drafts kept on this machine (GET /api/drafts), each opening in the panel. */
  async toggleDrafts() {
    const open = this.draftsList.hidden;
    this.draftsButton.setAttribute('aria-expanded', String(open));
    if (!open) { this.draftsList.hidden = true; return; }
    let drafts;
    try {
      drafts = await getJSON('/api/drafts');
    } catch (error) {
      this.hooks.onError(error);
      return;
    }
    clear(this.draftsList);
    if (!drafts.length) this.draftsList.append(el('li', { class: 'muted small', text: 'No drafts' }));
    for (const draft of drafts) {
      const label = `${draft.subject || '(no subject)'} — ${draft.to.length ? draft.to.join(', ') : 'no recipient yet'}`;
      const button = el('button', { type: 'button', class: 'link-button draft-item', text: label, dataset: { draftId: draft.id } });
      button.addEventListener('click', () => {
        this.draftsList.hidden = true;
        this.draftsButton.setAttribute('aria-expanded', 'false');
        this.reopen(draft);
      });
      this.draftsList.append(el('li', {}, button));
    }
    this.draftsList.hidden = false;
  }

  async discard() {
    if (!this.draft) { this.hide(); return; }
    clearTimeout(this.timer);
    const id = this.draft.id;
    this.hide();
    try {
      await sendJSON('DELETE', `/api/drafts/${id}`);
      this.hooks.announce('Draft discarded');
    } catch (error) {
      this.hooks.onError(error);
    }
  }

  hide() {
    clearTimeout(this.timer);
    this.panel.hidden = true;
    this.draft = null;
    delete this.panel.dataset.draftId;
    document.body.classList.remove('composing');
  }

  setState(text) {
    this.state.textContent = text;
  }
}
