// DOM and formatting helpers. Mail data only ever reaches the page through textContent and
// createElement (here and in the callers): no HTML string built from data is ever parsed.

/** Creates an element. `props`: class, text, dataset, on<event> listeners, other attributes
 *  (true → present, false/null/undefined → absent). Children: nodes, strings, arrays, null. */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

export function clear(node) {
  node.replaceChildren();
  return node;
}

const SVG = 'http://www.w3.org/2000/svg';

// 24×24 stroke icons (drawn for this page).
const ICONS = {
  search: 'M11 4a7 7 0 1 1 0 14a7 7 0 1 1 0-14zM16.2 16.2 21 21',
  paperclip: 'M20 11.5 12.2 19.3a5 5 0 0 1-7.1-7.1l8.2-8.2a3.3 3.3 0 0 1 4.7 4.7l-8.2 8.2a1.7 1.7 0 0 1-2.4-2.4l7.5-7.5',
  inbox: 'M3 13h5l1.5 3h5l1.5-3h5M5.5 5h13L21 13v5a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1v-5z',
  sent: 'M21 3 10.5 13.5M21 3l-6.5 18-4-7.5L3 9.5z',
  archive: 'M3 4.5h18v4H3zM5 8.5V19a1 1 0 0 0 1 1h12a1 1 0 0 0 1-1V8.5M10 12.5h4',
  star: 'M12 3.5l2.6 5.4 5.9.8-4.3 4.1 1 5.8L12 16.8l-5.2 2.8 1-5.8-4.3-4.1 5.9-.8z',
  folder: 'M3 6.5a1 1 0 0 1 1-1h5l2 2h9a1 1 0 0 1 1 1V18a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1z',
  trash: 'M4 7h16M9.5 7V4.5h5V7M6 7l1 13h10l1-13',
  spam: 'M12 3.5 2.5 20h19zM12 10v4.5M12 17.3v.2',
  drafts: 'M4 20h4L19.5 8.5l-4-4L4 16zM13.5 6.5l4 4',
  important: 'M4 5h11l5 7-5 7H4l4-7z',
  download: 'M12 4v11M7 10.5l5 5 5-5M5 20h14',
  close: 'M6 6l12 12M18 6 6 18',
  chevron: 'M6 9.5l6 6 6-6',
  file: 'M6.5 3h8l4 4v14h-12zM14.5 3v4h4',
  image: 'M4 5h16v14H4zM4 16l5-5 4 4 2.5-2.5L20 17M15.5 9.3v.2',
  warning: 'M12 3.5 2.5 20h19zM12 10v4.5M12 17.3v.2',
};

/** A decorative inline SVG icon (its container carries any accessible name). */
export function icon(name, { className = 'icon' } = {}) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('class', className);
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('d', ICONS[name] ?? ICONS.file);
  svg.append(path);
  return svg;
}

/** `text` as text nodes, with the ranges [{start, length}] (UTF-16 offsets) wrapped in <mark>. */
export function highlighted(text, ranges) {
  const fragment = document.createDocumentFragment();
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  let at = 0;
  for (const { start, length } of sorted) {
    const from = Math.max(start, at);
    const to = Math.min(start + length, text.length);
    if (to <= from) continue;            // overlapping or out of range: the server's offsets are trusted but not blindly
    if (from > at) fragment.append(text.slice(at, from));
    fragment.append(el('mark', { text: text.slice(from, to) }));
    at = to;
  }
  if (at < text.length) fragment.append(text.slice(at));
  return fragment;
}

export function plural(count, one, many = `${one}s`) {
  return `${count.toLocaleString()} ${count === 1 ? one : many}`;
}

export function capitalize(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

const pad = (n) => String(n).padStart(2, '0');

/** Thread-list style: the time today, "Mar 4" this year, "2023-03-04" before. */
export function shortDate(iso, now = new Date()) {
  const date = new Date(iso);
  if (!iso || Number.isNaN(date.getTime())) return '';
  if (date.toDateString() === now.toDateString()) {
    return date.toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' });
  }
  if (date.getFullYear() === now.getFullYear()) {
    return date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
  }
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

export function longDate(iso) {
  const date = new Date(iso);
  if (!iso || Number.isNaN(date.getTime())) return '';
  return date.toLocaleString(undefined, { weekday: 'short', year: 'numeric', month: 'short', day: 'numeric',
                                          hour: 'numeric', minute: '2-digit' });
}

/** A <time class="date"> for an ISO date (empty when the email has none). */
export function dateElement(iso) {
  const valid = iso && !Number.isNaN(new Date(iso).getTime());
  return el('time', { class: 'date', datetime: valid ? iso : null, title: valid ? longDate(iso) : null,
                      text: valid ? shortDate(iso) : '' });
}

export function humanSize(bytes) {
  if (!Number.isFinite(bytes) || bytes < 0) return '';
  if (bytes < 1000) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) { value /= 1000; unit += 1; }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** A person as shown in lists: the name, else the address. */
export function personName(person) {
  return (person?.name || '').trim() || person?.email || 'Unknown sender';
}

/** Whether the key event comes from a place where typing means text (so single-key shortcuts stay off). */
export function isTyping(event) {
  const target = event.target;
  if (!(target instanceof Element)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLInputElement) {
    return !['button', 'checkbox', 'radio', 'submit', 'reset'].includes(target.type);
  }
  return false;
}
