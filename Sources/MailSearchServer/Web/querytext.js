// Filters live in the typed text: the server parses them (docs/query-language.md) and reports
// them in `query.filters`. A chip adds an operator to the text, and removing a chip takes the
// words that made the filter back out of the text. The removal is textual and best effort: it
// knows the forms of the query language, not its full grammar.

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// Whole words only, and never after a "-": a negated operator is a different filter (excluded).
const START = String.raw`(?<![^\s({])`;
const END = String.raw`(?=$|[\s)}.,;:!?])`;
const QUOTE_OPEN = '["“”]';
const QUOTE_CLOSE = '["“”]';

/** A filter value as typed: its words with any spacing, bare or in quotes. */
function valuePattern(value) {
  const words = String(value).trim().split(/\s+/).map(escape).join(String.raw`\s+`);
  return `(?:${QUOTE_OPEN}\\s*${words}\\s*${QUOTE_CLOSE}|${words})`;
}

const MONTH = '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const WEEKDAY = '(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|nesday|rsday|urday|sday)?';
const ISO_DAY = String.raw`\d{4}[-/]\d{1,2}[-/]\d{1,2}`;
const YEAR = String.raw`(?:19|20|21)\d\d`;
const COUNT = String.raw`(?:\d{1,4}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)`;
const UNIT = '(?:days?|weeks?|months?|years?)';
const PERIOD = `(?:${ISO_DAY}|${MONTH}(?:\\s+${YEAR})?|${YEAR}|${WEEKDAY}|today|yesterday|(?:last|this)\\s+(?:week|month|year|${WEEKDAY}))`;

// Longest forms first: "from March to May" before "from March".
const DATE_PATTERNS = [
  String.raw`(?:after|before|older_than|newer_than):\s*\S+`,
  `(?:from|between)\\s+${PERIOD}\\s+(?:to|until|through|and|-)\\s+${PERIOD}`,
  `(?:in\\s+the\\s+)?(?:last|past|within)\\s+(?:${COUNT}\\s+)?${UNIT}`,
  String.raw`this\s+(?:week|month|year)`,
  `(?:before|after|since|until|on|in|from)\\s+${PERIOD}`,
  `${COUNT}\\s+${UNIT}\\s+ago`,
  `(?:older|newer)\\s+than\\s+${COUNT}\\s+${UNIT}`,
  `last\\s+${WEEKDAY}`,
  'today|yesterday',
];

const MAIL_NOUN = '(?:e-?mails?|mails?|messages?)';
const SENDING_VERB = '(?:sent|wrote|written|forwarded|replied|emailed|mailed)';

// The words a person writes for each attachment kind the server reads ("with docs" → document).
const ATTACHMENT_KIND_WORDS = {
  image: '(?:images?|photos?|pictures?)',
  document: '(?:docs|documents?)',
  spreadsheet: 'spreadsheets?',
  presentation: 'presentations?',
  calendar: '(?:ics|calendar)',
  jpg: 'jpe?gs?',
};

function attachmentTypePattern(type) {
  const value = String(type).toLowerCase();
  return ATTACHMENT_KIND_WORDS[value] || `${escape(value)}s?`;
}

/** The patterns whose words make up filter `key` with `value`. */
function patternsFor(key, value) {
  switch (key) {
    case 'sender':
      return [`from:\\s*${valuePattern(value)}`, `from\\s+${valuePattern(value)}`];
    case 'recipient':
      return [`(?:to|cc|bcc):\\s*${valuePattern(value)}`,
              `(?:(?:${SENDING_VERB}|${MAIL_NOUN})\\s+)?to\\s+${valuePattern(value)}`];
    case 'subject':
      return [`subject:\\s*${valuePattern(value)}`];
    case 'hasAttachment':
      return ['has:attachments?', String.raw`with\s+(?:an?\s+)?attachments?`, String.raw`has\s+attachments?`,
              String.raw`with\s+files`, 'attachments'];
    case 'attachmentType': {
      const type = attachmentTypePattern(value);
      return [String.raw`has:\S+`, `with\\s+(?:an?\\s+)?${type}(?:\\s+attachments?)?`,
              `${type}\\s+attachments?`];
    }
    case 'attachmentName':
      return [String.raw`filename:\s*(?:"[^"]*"|\S+)`];
    case 'minSize':
      return [String.raw`(?:larger|size):\S+`];
    case 'maxSize':
      return [String.raw`smaller:\S+`];
    case 'isRead':
      return value ? ['is:read', `read(?:\\s+${MAIL_NOUN})?`] : ['is:unread', `unread(?:\\s+${MAIL_NOUN})?`];
    case 'isStarred':
      return value ? ['is:starred', 'starred', 'flagged'] : ['is:unstarred'];
    case 'category':
      return [`category:\\s*${valuePattern(value)}`, `in\\s+${valuePattern(value)}`,
              `${valuePattern(value)}(?:\\s+${MAIL_NOUN})?`];
    case 'folder':
      return [`(?:in|label):\\s*${valuePattern(value)}`, `in\\s+(?:the\\s+)?${valuePattern(value)}`];
    case 'dateRange':
      return DATE_PATTERNS;
    default:
      return [];
  }
}

function tidy(text) {
  let out = text.replace(/\s+/g, ' ').trim();
  // An OR left without a side, or only mail nouns left ("emails"), would now search for words.
  out = out.replace(/^(?:OR|AND)\s+|\s+(?:OR|AND)$/g, '').trim();
  if (new RegExp(`^(?:${MAIL_NOUN}\\s*)+$`, 'i').test(out)) out = '';
  return out;
}

/** `text` without the words of filter `key` (value as the server parsed it). */
export function removeFilter(text, key, value) {
  let out = text;
  for (const pattern of patternsFor(key, value)) {
    out = out.replace(new RegExp(`${START}(?:${pattern})${END}`, 'gi'), ' ');
  }
  return tidy(out);
}

/** `text` with `operator` appended. */
export function addOperator(text, operator) {
  return `${text.trim()} ${operator}`.trim();
}

/** An operator value, quoted when it has spaces (quotes inside are dropped). */
export function operatorValue(value) {
  const clean = String(value).replace(/["“”]/g, '').trim();
  return /\s/.test(clean) ? `"${clean}"` : clean;
}

const UNIT_WORDS = { d: 'day', w: 'week', m: 'month', y: 'year' };

/** How a date filter reads on its chip: from the phrase typed when there is one, else the range. */
export function describeDate(text, range) {
  const phrases = [];
  for (const pattern of DATE_PATTERNS) {
    for (const match of text.matchAll(new RegExp(`${START}(?:${pattern})${END}`, 'gi'))) phrases.push(match[0]);
  }
  if (phrases.length === 1) {
    const typed = phrases[0].replace(/\s+/g, ' ');
    const phrase = typed.toLowerCase();
    if (/^(?:newer_than:7d|newer_than:1w|(?:in the )?(?:last|past) (?:7 days|week|seven days|a week|1 week|one week))$/.test(phrase)) {
      return 'Last 7 days';
    }
    const relative = /^(newer|older)_than:(\d+)([dwmy])$/.exec(phrase);
    if (relative) {
      const [, direction, count, unit] = relative;
      const span = Number(count) === 1 ? UNIT_WORDS[unit] : `${count} ${UNIT_WORDS[unit]}s`;
      return direction === 'newer' ? `Last ${span}` : `Older than ${span}`;
    }
    const operator = /^(after|before):\s*(.+)$/.exec(phrase);
    if (operator) return `${operator[1] === 'after' ? 'Since' : 'Before'} ${operator[2]}`;
    return typed.charAt(0).toUpperCase() + typed.slice(1);
  }
  return describeRange(range);
}

function describeRange(range) {
  const day = (iso) => new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
  const { start, end } = range || {};
  // The end is exclusive: the last day shown is the one before it.
  const lastDay = end ? new Date(new Date(end).getTime() - 1).toISOString() : null;
  if (start && end) return `${day(start)} – ${day(lastDay)}`;
  if (start) return `Since ${day(start)}`;
  if (end) return `Before ${day(end)}`;
  return 'Any time';
}
