// The conversation view (#thread): every message oldest first, bodies fetched when a message
// is expanded, HTML mail in a sandboxed srcdoc iframe, attachments with 001 §5.4.2 warnings.

import { getJSON, sendJSON, needsHeaders, download, isAbort } from './api.js';
import { el, append, clear, icon, plural, humanSize, shortDate, longDate, personName } from './dom.js';
import { plainTextBody } from './mailtext.js';

const CATEGORIES = ['primary', 'social', 'promotions', 'updates', 'forums'];
const capitalize = (word) => word.charAt(0).toUpperCase() + word.slice(1);

// Inside the message frame (opaque origin, no script): a readable default for mail that sets
// no style of its own, on white like the mail's author expected; blocked remote images as
// dashed boxes.
const FRAME_STYLE = [
  'html{background:#fff;color:#1f2328}',
  'body{margin:1rem 1.25rem;font:0.9375rem/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;word-wrap:break-word;overflow-wrap:anywhere}',
  'img{max-width:100%;height:auto}table{max-width:100%}pre{white-space:pre-wrap}a{color:#1a56db}',
  'blockquote{margin:0 0 0 .5rem;padding-left:.75rem;border-left:3px solid #d0d7de;color:#57606a}',
  '.ms-remote-image{display:inline-block;box-sizing:border-box;min-width:2.5rem;min-height:1.5rem;max-width:100%;',
  'border:1px dashed #8c96a3;border-radius:4px;background:#f3f5f8;color:#5b6470;font-size:.75rem;line-height:1.3;',
  'padding:2px 4px;vertical-align:middle;overflow:hidden}',
].join('');

function frameDocument(html, remoteImages) {
  const images = remoteImages ? "img-src data: http: https:" : 'img-src data:';
  return '<!doctype html><html><head><meta charset="utf-8">'
    + `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; ${images}; style-src 'unsafe-inline'; font-src 'none'">`
    + `<base target="_blank"><style>${FRAME_STYLE}</style></head><body>${html}</body></html>`;
}

// The frame's content cannot be measured from here (opaque origin): estimate its height from
// the plain-text version, the HTML's blocks and the images' declared heights, within bounds.
// The frame scrolls, and its holder can be resized.
function frameHeight(html, text) {
  const textLines = (text || '').split('\n').reduce((sum, line) => sum + Math.max(1, Math.ceil(line.length / 90)), 0);
  const blocks = (html.match(/<(?:p|br|tr|li|h[1-6]|div|blockquote|hr)\b/gi) || []).length;
  const imagePixels = [...html.matchAll(/height(?:="|:\s*)(\d{1,4})/gi)].reduce((sum, m) => sum + Number(m[1]), 0);
  const rem = Math.min(48, Math.max(10, 3 + Math.max(textLines, blocks) * 1.6 + imagePixels / 16));
  return `min(75vh, ${rem.toFixed(1)}rem)`;
}

const TYPE_NAMES = {
  'application/pdf': 'PDF document',
  'application/zip': 'ZIP archive',
  'application/x-zip-compressed': 'ZIP archive',
  'application/msword': 'Word document',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'Word document',
  'application/vnd.ms-excel': 'Excel spreadsheet',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'Excel spreadsheet',
  'application/vnd.ms-powerpoint': 'PowerPoint presentation',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'PowerPoint presentation',
  'text/plain': 'Text file',
  'text/csv': 'CSV file',
  'text/calendar': 'Calendar invitation',
  'message/rfc822': 'Email message',
};

function typeName(attachment) {
  const mime = (attachment.mimeType || '').toLowerCase();
  if (TYPE_NAMES[mime]) return TYPE_NAMES[mime];
  if (mime.startsWith('image/')) return `${mime.slice(6).toUpperCase()} image`;
  const extension = /\.([a-z0-9]{1,8})$/i.exec(attachment.filename || '')?.[1];
  return extension ? `${extension.toUpperCase()} file` : mime || 'File';
}

function recipientsText(email) {
  const names = (list) => (list || []).map(personName).join(', ');
  const to = names(email.to);
  const cc = names(email.cc);
  return [to && `to ${to}`, cc && `cc ${cc}`].filter(Boolean).join(' · ') || 'no recipients';
}

function addresses(email) {
  const format = (p) => (p.name ? `${p.name} <${p.email}>` : p.email);
  return [
    `From: ${email.from ? format(email.from) : 'unknown'}`,
    email.to?.length ? `To: ${email.to.map(format).join(', ')}` : null,
    email.cc?.length ? `Cc: ${email.cc.map(format).join(', ')}` : null,
  ].filter(Boolean).join('\n');
}

function initials(person) {
  const name = personName(person).replace(/[^\p{L}\p{N}\s]/gu, ' ').trim();
  const words = name.split(/\s+/).filter(Boolean);
  return ((words[0]?.[0] ?? '?') + (words.length > 1 ? words[words.length - 1][0] : '')).toUpperCase();
}

// A stable colour per address, from a small palette defined in style.css.
function avatarClass(person) {
  let hash = 0;
  for (const ch of person?.email || '') hash = (hash * 31 + ch.codePointAt(0)) >>> 0;
  return `avatar avatar-${hash % 8}`;
}

export class ThreadView {
  /** hooks: onError(error), announce(text), composeActions(email) (Reply / Reply all / Forward, compose.js), replyWith(emailId, text). */
  constructor(hooks) {
    this.hooks = hooks;
    this.section = document.getElementById('thread');
    this.heading = this.section.querySelector('h1');
    this.meta = this.section.querySelector('.thread-meta');
    this.messages = this.section.querySelector('.messages');
    this.scroller = this.section.querySelector('.thread-content');
    this.threadId = null;
    this.controller = null;
    this.starred = false;
    // What a move needs to know of the open conversation (see chooseMoveTarget).
    this.moveContext = { accountIds: [], folders: [], picking: false };
    this.actionButtons = this.section.querySelector('.thread-actions');
    this.actionButtons?.addEventListener('click', (event) => {
      const button = event.target.closest('button[data-action]');
      if (button) this.act(button.dataset.action);
    });
    // A conversation of 3+ messages: its extractive summary above the messages (GET …/summary).
    this.summary = el('section', { class: 'thread-summary', hidden: true, 'aria-label': 'Summary of this conversation' });
    this.messages.before(this.summary);
  }

  /**
   * Acts on the open conversation, local first: the page shows the change before the server
   * answers (the star at once; archive, delete, move and unread leave the conversation through
   * hooks.onLeave), and IMAP mail is written back by the server's outbox. Actions: archive,
   * delete, star (a toggle), unread, move (the folder from chooseMoveTarget). The answer is
   * announced and hooks.onAction(action, result) follows; a refused action is undone (the star
   * back, hooks.onActionFailed(action, threadId) to reopen the conversation) and shown.
   */
  async act(name) {
    if (!this.isOpen || this.threadId === null) return;
    const threadId = this.threadId;
    let body = { action: name };
    if (name === 'star') body.action = this.starred ? 'unstar' : 'star';
    if (name === 'move') {
      const folder = await this.chooseMoveTarget();
      if (!folder || this.threadId !== threadId) return;
      body = { action: 'move', folder: folder.path };
    }
    const starring = body.action === 'star' || body.action === 'unstar';
    const leaves = ['archive', 'delete', 'move', 'unread'].includes(body.action);
    if (starring) this.setStarred(body.action === 'star');
    if (leaves) this.hooks.onLeave?.(body.action);
    let result;
    try {
      result = await sendJSON('POST', `/api/threads/${encodeURIComponent(threadId)}/actions`, body);
    } catch (error) {
      if (starring && this.threadId === threadId) this.setStarred(body.action !== 'star');
      if (leaves) this.hooks.onActionFailed?.(body.action, threadId);
      this.hooks.onError(error);
      return;
    }
    const words = {
      archive: 'Conversation archived', delete: result?.deleted?.length ? 'Conversation deleted for good' : 'Conversation moved to the Trash',
      star: 'Conversation starred', unstar: 'Star removed', unread: 'Conversation marked unread',
      move: `Conversation moved to ${(result?.folders || []).join(', ')}`,
    };
    this.hooks.announce(words[body.action] || 'Done');
    this.hooks.onAction?.(body.action, result);
  }

  /**
   * The folder a move goes to: hooks.pickFolder({ accountIds, current }) (the folder picker) with
   * the accounts of the conversation's messages and the folders they are in now.
   */
  chooseMoveTarget() {
    if (this.moveContext.picking || !this.hooks.pickFolder) return null;
    this.moveContext.picking = true;
    const done = () => { this.moveContext.picking = false; };
    return this.hooks.pickFolder({ accountIds: this.moveContext.accountIds, current: this.moveContext.folders })
      .finally(done);
  }

  setStarred(starred) {
    this.starred = starred;
    const button = this.actionButtons?.querySelector('[data-action="star"]');
    if (!button) return;
    button.setAttribute('aria-pressed', String(starred));
    button.textContent = starred ? 'Starred' : 'Star';
  }

  get isOpen() { return !this.section.hidden; }

  /** Shows conversation `threadId`; `emailId` (the result opened) is expanded and scrolled to. */
  async open(threadId, { emailId = null } = {}) {
    this.controller?.abort();
    const controller = new AbortController();
    this.controller = controller;
    this.threadId = threadId;
    this.section.hidden = false;
    this.section.setAttribute('aria-busy', 'true');
    // The title stays empty until it is the conversation's own subject.
    this.heading.textContent = '';
    this.meta.textContent = 'Loading conversation…';
    clear(this.messages);
    clear(this.summary);
    this.summary.hidden = true;
    this.scroller.scrollTop = 0;

    let data;
    try {
      data = await getJSON(`/api/threads/${encodeURIComponent(threadId)}`, { signal: controller.signal });
    } catch (error) {
      if (isAbort(error)) return;
      this.heading.textContent = 'This conversation could not be opened';
      this.section.removeAttribute('aria-busy');
      this.hooks.onError(error);
      return;
    }
    if (controller !== this.controller) return;
    this.section.removeAttribute('aria-busy');
    this.render(data, emailId);
    // Focus on the subject: a screen reader reads it, and the keys (u, j, k, arrows) work from there.
    this.heading.focus({ preventScroll: true });
    // The message the result pointed at, unless it is the first one anyway.
    const target = this.messages.querySelector(`article[data-email-id="${CSS.escape(String(emailId))}"]`);
    if (target && target !== this.messages.firstElementChild) target.scrollIntoView({ block: 'start' });
    this.hooks.announce(`Conversation: ${data.thread?.subject || '(no subject)'}`);
  }

  close() {
    this.controller?.abort();
    this.controller = null;
    this.threadId = null;
    this.section.hidden = true;
    clear(this.messages);
    clear(this.summary);
    this.summary.hidden = true;
  }

  render(data, openedEmailId) {
    const { thread, emails = [] } = data;
    this.setStarred(Boolean(thread?.isStarred));
    this.moveContext.accountIds = [...new Set(emails.map((e) => e.accountId))];
    this.moveContext.folders = [...new Set(emails.flatMap((e) => e.folders || []))];
    this.heading.textContent = thread?.subject || emails[0]?.subject || '(no subject)';
    const people = (thread?.participants || []).map(personName);
    this.meta.textContent = [plural(emails.length, 'message'), people.join(', ')].filter(Boolean).join(' · ');
    this.meta.append(' ', this.categoryControl(thread, emails));
    emails.forEach((email, i) => {
      // 001 §5.4.1: read messages collapsed; unread ones, the latest and the one opened stay open.
      const expanded = !email.isRead || i === emails.length - 1 || email.emailId === openedEmailId;
      this.messages.append(this.message(email, expanded));
    });
    if (emails.length >= 3) this.loadSummary(thread?.id ?? this.threadId);
    const last = emails[emails.length - 1];
    if (last) this.loadReplies(last, this.messages.lastElementChild);
  }

  /** The summary: sentences of the mail with their authors, each a link to its message. Nothing without the model. */
  async loadSummary(threadId) {
    const signal = this.controller?.signal;
    let answer;
    try {
      answer = await getJSON(`/api/threads/${encodeURIComponent(threadId)}/summary`, { signal });
    } catch (error) {
      return;  // no model (503) or the conversation went: the messages are there anyway
    }
    const points = answer?.summary?.points || [];
    if (signal?.aborted || answer.status !== 'summarized' || !points.length) return;
    if (answer.backend === 'llm' && answer.generated) {
      // A local model's summary that passed the check (every name, number and date is in the mail).
      const lines = answer.generated.lines.map((line) => el('li', { class: 'summary-point generated', text: line }));
      append(this.summary, [el('h2', { class: 'summary-title', text: `Summary (written by ${answer.generated.model})` }),
        el('ul', { class: 'summary-points' }, lines)]);
      this.summary.hidden = false;
      return;
    }
    const items = points.map((point) => {
      const label = { waitingOn: 'Waiting on', reviewedBy: 'Review' }[point.kind] || point.source.author;
      const link = el('button', { type: 'button', class: 'summary-source link-button', text: label,
        title: 'Show this message' });
      link.addEventListener('click', () => {
        const article = this.messages.querySelector(`article[data-email-id="${CSS.escape(String(point.source.emailId))}"]`);
        const header = article?.querySelector('.message-header');
        if (header?.getAttribute('aria-expanded') === 'false') header.click();
        article?.scrollIntoView({ block: 'start' });
      });
      const who = point.kind === 'waitingOn' ? ` ${(point.waitingOn || []).join(' and ')}: ` : ': ';
      // A patch thread's reviewers: the line as written ("Reviewed by Bob Stone; acked by Carl Ode").
      const body = point.kind === 'reviewedBy' ? point.text : point.sentence;
      return el('li', { class: `summary-point ${point.kind}` }, link, who, el('span', { text: body }));
    });
    append(this.summary, [el('h2', { class: 'summary-title', text: 'Summary' }), el('ul', { class: 'summary-points' }, items)]);
    this.summary.hidden = false;
  }

  /** Reply chips under the latest message when it asks something: a click opens the reply with it (or copies it). */
  async loadReplies(email, article) {
    const signal = this.controller?.signal;
    let answer;
    try {
      answer = await getJSON(`/api/emails/${email.emailId}/replies`, { signal });
    } catch (error) {
      return;
    }
    const suggestions = answer?.replies?.suggestions || [];
    if (signal?.aborted || !answer.replies.triggered || !suggestions.length || !article) return;
    const chips = suggestions.map((reply) => {
      const chip = el('button', { type: 'button', class: 'reply-chip secondary small', text: reply.text, title: 'Reply with this' });
      chip.addEventListener('click', async () => {
        // The reply composer with this text, when an account can send; else the text is copied.
        if (await this.hooks.replyWith?.(email.emailId, reply.text)) return;
        try {
          await navigator.clipboard.writeText(reply.text);
          this.hooks.announce(`Copied: ${reply.text}`);
          chip.classList.add('copied');
        } catch (error) {
          this.hooks.announce('Copying is not allowed here');
        }
      });
      return chip;
    });
    article.append(el('div', { class: 'reply-chips', role: 'group', 'aria-label': 'Suggested replies (click to reply with one)' },
      el('span', { class: 'muted small', text: 'Reply:' }), ...chips));
  }

  /** The conversation's category (its latest message's) with a select that changes it for every message. */
  categoryControl(thread, emails) {
    const current = (emails[emails.length - 1]?.category || 'uncategorized').toLowerCase();
    const reason = emails[emails.length - 1]?.categorization?.reason || '';
    const select = el('select', { class: 'category-select', 'aria-label': 'Category of this conversation' },
      ...(current === 'uncategorized' ? ['uncategorized'] : []).concat(CATEGORIES).map((name) =>
        el('option', { value: name, text: capitalize(name), selected: name === current })));
    const badge = el('span', { class: `badge category category-${current.replace(/[^a-z]/g, '')}`, title: reason || null },
      select);
    select.addEventListener('change', async () => {
      const category = select.value;
      try {
        await sendJSON('POST', `/api/threads/${encodeURIComponent(thread?.id ?? this.threadId)}/category`, { category });
      } catch (error) {
        select.value = current;
        this.hooks.onError(error);
        return;
      }
      badge.className = `badge category category-${category}`;
      badge.title = 'chosen by the user';
      this.hooks.announce(`Conversation moved to ${capitalize(category)}`);
      this.hooks.onCategoryChanged?.(category);
    });
    return badge;
  }

  /** With two accounts or more, the account a message is in. */
  accountBadge(email) {
    const accounts = this.hooks.accounts?.() || [];
    const account = accounts.length > 1 ? accounts.find((a) => a.id === email.accountId) : null;
    return account ? el('span', { class: 'badge account', title: account.email || null, text: account.name || account.email }) : null;
  }

  message(email, expanded) {
    const bodyId = `message-body-${email.emailId}`;
    const body = el('div', { class: 'message-body', id: bodyId, hidden: !expanded });
    const preview = (email.body || '').replace(/\s+/g, ' ').trim().slice(0, 160);
    const header = el('button', {
      type: 'button', class: 'message-header', 'aria-expanded': String(expanded), 'aria-controls': bodyId,
      title: addresses(email),
    },
      el('span', { class: avatarClass(email.from), 'aria-hidden': 'true', text: initials(email.from) }),
      el('span', { class: 'message-people' },
        el('span', { class: 'message-from' },
          el('strong', { text: personName(email.from) }),
          email.from?.name ? el('span', { class: 'from-email', text: ` <${email.from.email}>` }) : null),
        el('span', { class: 'message-to', text: recipientsText(email) }),
        el('span', { class: 'message-preview', text: preview })),
      el('span', { class: 'message-side' },
        this.accountBadge(email),
        email.hasAttachment ? el('span', { class: 'attachment-icon', role: 'img', 'aria-label': 'Has attachment' }, icon('paperclip')) : null,
        el('time', { class: 'date', datetime: email.date || null },
          el('span', { class: 'date-short', text: shortDate(email.date) }),
          el('span', { class: 'date-long', text: longDate(email.date) }))));

    const article = el('article', {
      class: `message${expanded ? ' expanded' : ''}${email.isRead ? '' : ' unread'}`,
      dataset: { emailId: email.emailId },
      'aria-label': `Message from ${personName(email.from)}`,
    }, header, body);

    header.addEventListener('click', () => {
      const open = header.getAttribute('aria-expanded') !== 'true';
      header.setAttribute('aria-expanded', String(open));
      article.classList.toggle('expanded', open);
      body.hidden = !open;
      if (open) this.loadBody(email, body);
    });
    if (expanded) this.loadBody(email, body);
    return article;
  }

  /** Fetches and shows the safe body once (remoteImages: the user asked for this message's images). */
  async loadBody(email, body, { remoteImages = false } = {}) {
    if (body.dataset.loaded === (remoteImages ? 'images' : 'safe')) return;
    body.dataset.loaded = remoteImages ? 'images' : 'safe';
    body.setAttribute('aria-busy', 'true');
    if (!body.childElementCount) body.append(el('p', { class: 'muted loading', text: 'Loading message…' }));
    const signal = this.controller?.signal;
    let safe;
    try {
      safe = await getJSON(`/api/emails/${email.emailId}/html${remoteImages ? '?images=1' : ''}`, { signal });
    } catch (error) {
      if (isAbort(error)) return;
      // The thread already carries the plain text: show that rather than nothing.
      safe = { html: null, text: email.body, remoteImagesBlocked: 0, trackersBlocked: 0 };
      this.hooks.onError(error);
    }
    if (signal?.aborted) return;
    body.removeAttribute('aria-busy');
    append(clear(body), [this.notices(email, body, safe), this.content(email, safe), this.attachments(email, safe),
      this.hooks.composeActions?.(email)]);
  }

  notices(email, body, safe) {
    const notices = el('div', { class: 'message-notices' });
    if (safe.trackersBlocked > 0) {
      notices.append(el('span', { class: 'trackers-blocked' }, icon('spam'), plural(safe.trackersBlocked, 'tracker') + ' blocked'));
    }
    if (safe.remoteImagesBlocked > 0 && !safe.remoteImagesAllowed) {
      const button = el('button', { type: 'button', class: 'load-images secondary small', text: 'Load remote images' });
      button.addEventListener('click', async () => {
        button.disabled = true;
        await this.loadBody(email, body, { remoteImages: true });
        body.querySelector('iframe.message-html')?.focus();
      });
      notices.append(el('span', { class: 'remote-images' },
        icon('image'), `${plural(safe.remoteImagesBlocked, 'remote image')} blocked to protect your privacy.`), button);
    }
    notices.hidden = !notices.childElementCount;
    return notices;
  }

  content(email, safe) {
    if (safe.html == null) return plainTextBody(safe.text ?? email.body ?? '');
    const frame = el('iframe', {
      class: 'message-html',
      sandbox: 'allow-popups allow-popups-to-escape-sandbox',
      referrerpolicy: 'no-referrer',
      title: `Message from ${personName(email.from)}`,
    });
    // The sanitized HTML goes only into the sandboxed frame's own document, never into this page.
    frame.srcdoc = frameDocument(safe.html, Boolean(safe.remoteImagesAllowed));
    const holder = el('div', { class: 'message-frame' }, frame);
    holder.style.height = frameHeight(safe.html, safe.text);
    return holder;
  }

  attachments(email, safe) {
    // Inline images of an HTML message are already in it (as data: URLs).
    const shown = (email.attachments || []).filter((a) =>
      !(a.isInline && a.contentId && (a.mimeType || '').startsWith('image/') && safe.html != null));
    if (!shown.length) return null;
    return el('div', { class: 'attachments-block' },
      el('h3', { class: 'visually-hidden', text: 'Attachments' }),
      el('ul', { class: 'attachments' }, shown.map((a) => this.attachment(a))));
  }

  attachment(attachment) {
    const name = attachment.filename || 'Unnamed attachment';
    const href = `/api/attachments/${attachment.id}`;
    const link = el('a', {
      class: 'download secondary small', href, download: attachment.filename || '',
      'aria-label': `Download ${name}`,
    }, icon('download'), 'Download');
    const item = el('li', { class: `attachment${attachment.warning ? ' warned' : ''}` },
      el('span', { class: 'attachment-type-icon' },
        icon((attachment.mimeType || '').startsWith('image/') ? 'image' : 'file')),
      el('span', { class: 'attachment-info' },
        el('span', { class: 'attachment-name', title: name, text: name }),
        el('span', { class: 'attachment-details', title: attachment.mimeType || null },
          `${typeName(attachment)} · ${humanSize(attachment.sizeBytes)}`)),
      attachment.warning
        ? el('span', { class: 'attachment-warning' }, icon('warning'), attachment.warning)
        : null,
      el('span', { class: 'attachment-actions' }, link));

    // 001 §5.4.2: a dangerous type needs a second, explicit step before the download.
    let confirmed = !attachment.warning;
    link.addEventListener('click', (event) => {
      if (!confirmed) {
        event.preventDefault();
        confirmed = true;
        const anyway = el('button', { type: 'button', class: 'download-anyway danger small', text: 'Download anyway' });
        anyway.addEventListener('click', () => {
          anyway.remove();
          link.focus();
          link.click();
        });
        link.after(anyway);
        link.setAttribute('aria-label', `Download ${name} anyway`);
        anyway.focus();
        this.hooks.announce(`${attachment.warning} Press Download anyway to download it.`);
        return;
      }
      // A plain link carries neither the Authorization header nor the app lock's session.
      if (needsHeaders()) {
        event.preventDefault();
        download(href, attachment.filename).catch((error) => this.hooks.onError(error));
      }
    });
    return item;
  }
}
