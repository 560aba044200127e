// Plain-text mail: quoted text folded into <details class="quoted">, links made clickable.
// Built from text nodes only.

import { el } from './dom.js';

// An attribution that starts the quoted tail of a reply: "On Mon, 4 Mar 2024, John wrote:"
// (often wrapped over two lines), Outlook's "-----Original Message-----" or its underscore rule
// followed by "From:".
function attributionLength(lines, i) {
  const line = lines[i].trim();
  const next = (lines[i + 1] ?? '').trim();
  if (/^-{2,}\s*Original Message\s*-{2,}$/i.test(line)) return 1;
  if (/^_{10,}$/.test(line) && /^From:/i.test(next)) return 1;
  if (/^On\b.*\bwrote:$/.test(line)) return 1;
  if (/^On\b/.test(line) && line.length > 10 && /^(?:\S.*\s)?wrote:$/.test(next) && next.length < 100) return 2;
  return 0;
}

/** [{quoted, text}]: the text cut into plain parts and quoted parts (a reply's tail, runs of "> " lines). */
function splitQuoted(text) {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let tail = lines.length;
  for (let i = 0; i < lines.length; i += 1) {
    if (attributionLength(lines, i)) { tail = i; break; }
  }
  // A message that is nothing but a quote is shown as it is.
  if (!lines.slice(0, tail).some((line) => line.trim() && !line.startsWith('>'))) tail = lines.length;

  const parts = [];
  const push = (quoted, chunk) => {
    const last = parts[parts.length - 1];
    if (last && last.quoted === quoted) last.lines.push(...chunk);
    else parts.push({ quoted, lines: [...chunk] });
  };
  let i = 0;
  while (i < tail) {
    if (lines[i].startsWith('>')) {
      let end = i;
      // A run of quoted lines, blank lines inside it included.
      while (end < tail && (lines[end].startsWith('>') || (!lines[end].trim() && lines[end + 1]?.startsWith('>')))) end += 1;
      push(end - i >= 2, lines.slice(i, end));   // a single quoted line stays in place
      i = end;
    } else {
      push(false, [lines[i]]);
      i += 1;
    }
  }
  if (tail < lines.length) push(true, lines.slice(tail));

  const result = parts
    .map((part) => ({ quoted: part.quoted, text: part.lines.join('\n').replace(/^\n+|\s+$/g, '') }))
    .filter((part) => part.text);
  // Nothing of its own (a bare forward): folding everything would show an empty message.
  return result.every((part) => part.quoted) ? [{ quoted: false, text: result.map((p) => p.text).join('\n\n') }] : result;
}

// Hard-wrapped paragraphs (lines cut near 72 columns by the sender's client) read badly in a
// column narrower than that: join their lines. Lists, indented text and short lines (addresses,
// signatures) keep their breaks.
function reflow(text) {
  return text.split(/\n{2,}/).map((paragraph) => {
    const lines = paragraph.split('\n');
    if (lines.length < 2) return paragraph;
    const wrapped = lines.slice(0, -1).every((line) => line.length >= 40 && line.length <= 80)
      && !lines.some((line) => /^\s*(?:[-*•>|+]|\d+[.)])\s|^\s{2,}/.test(line));
    return wrapped ? lines.map((line) => line.trim()).join(' ') : paragraph;
  }).join('\n\n');
}

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"'`]+/g;

/** Text nodes with http(s) links as <a> (opened in a new tab, without a referrer). */
function linkified(text) {
  const fragment = document.createDocumentFragment();
  let at = 0;
  for (const match of text.matchAll(URL_PATTERN)) {
    // Trailing punctuation belongs to the sentence, not the address.
    const url = match[0].replace(/[.,;:!?)\]}>]+$/, '');
    if (match.index > at) fragment.append(text.slice(at, match.index));
    fragment.append(el('a', { href: url, target: '_blank', rel: 'noopener noreferrer', text: url }));
    at = match.index + url.length;
  }
  if (at < text.length) fragment.append(text.slice(at));
  return fragment;
}

/** div.message-text for a plain-text body. */
export function plainTextBody(text) {
  const body = el('div', { class: 'message-text' });
  const parts = splitQuoted(text || '');
  if (!parts.length) body.append(el('p', { class: 'muted', text: 'This message has no text.' }));
  for (const part of parts) {
    if (part.quoted) {
      body.append(el('details', { class: 'quoted' },
        el('summary', { text: 'Show quoted text' }),
        el('div', { class: 'quoted-text' }, linkified(part.text))));
    } else {
      body.append(el('div', { class: 'text-part' }, linkified(reflow(part.text))));
    }
  }
  return body;
}
