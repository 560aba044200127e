// One search result as a thread-list row (li.result), per docs/web-ui.md.

import { el, icon, highlighted, dateElement, personName, capitalize } from './dom.js';

const HIDDEN_CATEGORIES = new Set(['primary', 'uncategorized', '']);

/** "John Smith, Sarah Chen (3)": the conversation's people, and its size when it has several messages. */
function sendersText(result, thread) {
  const people = thread?.participants?.length
    ? thread.participants.map(personName)
    : [result.senderName || result.senderEmail || 'Unknown sender'];
  const shown = people.slice(0, 3).join(', ') + (people.length > 3 ? ', …' : '');
  const count = thread?.messageCount ?? 1;
  return count > 1 ? `${shown} (${count})` : shown;
}

/** "keyword: budget, report", "semantic 0.62", or both joined by " · ". */
function whyText(result) {
  const parts = [];
  const { keyword, semantic } = result.why || {};
  if (keyword) parts.push(keyword.terms?.length ? `keyword: ${keyword.terms.join(', ')}` : 'keyword');
  if (semantic) {
    const where = semantic.attachment ? ` (in ${semantic.attachment})` : '';
    parts.push(`semantic ${Number(semantic.similarity).toFixed(2)}${where}`);
  }
  if (!parts.length && result.match === 'filter') parts.push('matches the filters');
  return parts.join(' · ');
}

function whyDetails(result) {
  const details = [];
  const { keyword, semantic } = result.why || {};
  if (keyword) details.push(`Keyword rank ${keyword.rank}, BM25 ${Number(keyword.bm25).toFixed(2)}`);
  if (semantic) {
    const agreement = semantic.keywordAgreement ? ' (below the floor, kept: among the best keyword matches of the query’s words)' : '';
    const passage = semantic.attachment ? `, passage ${semantic.passage} of attachment ${semantic.attachment}` : '';
    details.push(`semantic rank ${semantic.rank}, cosine similarity ${Number(semantic.similarity).toFixed(3)}${passage}${agreement}`);
  }
  return details.join('; ') || null;
}

function ranges(result, field) {
  return (result.highlights || []).filter((h) => h.field === field);
}

/** The row for `result` (its conversation `thread`); `accounts` names the account badge when there are 2+. */
export function resultItem(result, thread, { index, accounts, relatedStart = false }) {
  const unread = thread ? thread.unreadCount > 0 : !result.isRead;
  const subject = result.subject || '';
  const category = (result.category || '').toLowerCase();

  const why = whyText(result);
  const account = accounts.length > 1 ? accounts.find((a) => a.id === result.accountId) : null;
  const badges = [
    HIDDEN_CATEGORIES.has(category) ? null
      : el('span', { class: `badge category category-${category.replace(/[^a-z]/g, '')}`, text: capitalize(category) }),
    account ? el('span', { class: 'badge account', title: account.email || null, text: account.name || account.email || `Account ${account.id}` }) : null,
  ];

  return el('li', {
    class: `result${unread ? ' unread' : ''}`,
    id: `result-${result.threadId}`,
    role: 'option',
    'aria-selected': 'false',
    tabindex: '-1',
    dataset: { threadId: result.threadId, emailId: result.emailId, index },
  },
    relatedStart ? el('div', { class: 'related-divider', text: 'Related — similar in meaning, without all your words' }) : null,
    el('div', { class: 'row-top' },
      unread ? el('span', { class: 'unread-dot', role: 'img', 'aria-label': 'Unread' }) : null,
      el('span', { class: 'senders', text: sendersText(result, thread) }),
      result.hasAttachment
        ? el('span', { class: 'attachment-icon', role: 'img', 'aria-label': 'Has attachment', title: 'Has attachment' }, icon('paperclip'))
        : null,
      dateElement(result.date)),
    el('div', { class: 'subject' }, subject ? highlighted(subject, ranges(result, 'subject')) : '(no subject)'),
    result.snippet ? el('div', { class: 'snippet' }, highlighted(result.snippet, ranges(result, 'snippet'))) : null,
    el('div', { class: 'row-meta' },
      badges,
      why ? el('span', { class: 'why', title: whyDetails(result), text: why }) : null,
      result.matchedMessages > 1 ? el('span', { class: 'matched', text: `${result.matchedMessages} matching messages` }) : null));
}
