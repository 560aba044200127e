// Filter chips (#chips). The text is the source of truth: chips show the filters the server
// found in it (query.filters), add operators to it, and take filter words out of it.

import { el, clear, icon, capitalize } from './dom.js';
import { removeFilter, addOperator, operatorValue, describeDate } from './querytext.js';

const CATEGORIES = ['primary', 'social', 'promotions', 'updates', 'forums'];
const DATE_CHOICES = [
  ['Last 7 days', 'newer_than:7d'],
  ['Last month', 'newer_than:1m'],
  ['Last year', 'newer_than:1y'],
];

// The six chips always on show (FR-SEARCH-02); `editor` chips ask for a value in a popover,
// the others toggle an operator.
const BASE = [
  { key: 'sender', name: 'Sender', editor: 'sender' },
  { key: 'dateRange', name: 'Date', editor: 'date' },
  { key: 'hasAttachment', name: 'Has attachment', operator: 'has:attachment', active: (v) => v === true },
  { key: 'folder', name: 'Folder', editor: 'folder' },
  { key: 'category', name: 'Category', editor: 'category' },
  { key: 'isRead', name: 'Unread', operator: 'is:unread', active: (v) => v === false },
];
// Other filters the text can hold: shown only while present.
const EXTRA = ['recipient', 'subject', 'attachmentType', 'attachmentName', 'minSize', 'maxSize', 'isStarred', 'isRead'];
const VALUED = new Set(['sender', 'recipient', 'subject', 'dateRange', 'folder', 'category', 'attachmentType',
  'attachmentName', 'minSize', 'maxSize']);
// Attachment kinds (a word each); any other type is one format, shown upper-case ("Has PDF").
const ATTACHMENT_KINDS = new Set(['image', 'document', 'spreadsheet', 'presentation', 'audio', 'video', 'archive',
  'calendar']);

/** Bytes as a person reads them, in the binary units the size operators use (10485760 → "10 MB"). */
function describeBytes(bytes) {
  const units = [['GB', 1024 ** 3], ['MB', 1024 ** 2], ['KB', 1024]];
  for (const [unit, size] of units) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} bytes`;
}

export class Chips {
  /**
   * hooks: setText(text) replaces the query and searches; cannotRemove(description) when the
   * filter's words are not found in the text; folderNames(); contacts() → [{name, email}].
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.container = document.getElementById('chips');
    this.filters = {};
    this.text = '';
    this.signature = null;
    this.popover = null;
    document.addEventListener('pointerdown', (event) => {
      if (this.popover && !this.popover.element.contains(event.target) && !this.popover.chip.contains(event.target)) {
        this.closePopover({ restoreFocus: false });
      }
    });
    this.render();
  }

  /** Shows the filters the server parsed out of `text`. */
  update(filters, text) {
    const signature = JSON.stringify([filters, text]);
    if (signature === this.signature) return;
    this.signature = signature;
    this.filters = filters || {};
    this.text = text;
    this.closePopover({ restoreFocus: false });
    this.render();
  }

  describe(key, value) {
    switch (key) {
      case 'sender': return `From ${value}`;
      case 'recipient': return `To ${value}`;
      case 'subject': return `Subject ${value}`;
      case 'dateRange': return `Date ${describeDate(this.text, value)}`;
      case 'hasAttachment': return 'Has attachment';
      case 'attachmentType': return `Has ${ATTACHMENT_KINDS.has(value) ? value : String(value).toUpperCase()}`;
      case 'attachmentName': return `Filename ${value}`;
      case 'minSize': return `Larger ${describeBytes(value)}`;
      case 'maxSize': return `Smaller ${describeBytes(value)}`;
      case 'folder': return `Folder ${this.folderName(value)}`;
      case 'category': return `Category ${capitalize(String(value))}`;
      case 'isRead': return value ? 'Read' : 'Unread';
      case 'isStarred': return value ? 'Starred' : 'Not starred';
      default: return `${key} ${value}`;
    }
  }

  folderName(value) {
    return this.hooks.folderNames().find((name) => name.toLowerCase() === String(value).toLowerCase()) ?? capitalize(String(value));
  }

  render() {
    const chips = [];
    for (const spec of BASE) {
      const value = this.filters[spec.key];
      const active = value !== undefined && value !== null && (spec.active ? spec.active(value) : true);
      chips.push(active ? this.activeChip(spec, value) : this.inactiveChip(spec));
    }
    for (const key of EXTRA) {
      const value = this.filters[key];
      // isRead: false is the Unread chip above; true ("read") gets a chip of its own.
      if (value === undefined || value === null || (key === 'isRead' && value === false)) continue;
      chips.push(this.activeChip({ key }, value));
    }
    // A keyboard user who just pressed a chip keeps the focus on that filter's new chip.
    const focusedKey = this.container.contains(document.activeElement)
      ? document.activeElement.closest('.chip-group')?.querySelector('.chip')?.dataset.filter : null;
    clear(this.container).append(...chips);
    if (focusedKey) this.container.querySelector(`.chip[data-filter="${CSS.escape(focusedKey)}"]`)?.focus();
  }

  inactiveChip(spec) {
    const chip = el('button', {
      type: 'button', class: 'chip', 'aria-pressed': 'false', 'aria-label': `Filter: ${spec.name}`,
      'aria-haspopup': spec.editor ? 'dialog' : null, 'aria-expanded': spec.editor ? 'false' : null,
      dataset: { filter: spec.key },
    }, spec.name, spec.editor ? icon('chevron', { className: 'icon chevron' }) : null);
    chip.addEventListener('click', () => {
      if (spec.editor) {
        this.togglePopover(spec, chip);
      } else {
        // "read" and "unread" exclude each other: the later one would win anyway.
        const base = spec.key === 'isRead' && this.filters.isRead === true ? removeFilter(this.text, 'isRead', true) : this.text;
        this.hooks.setText(addOperator(base, spec.operator));
      }
    });
    return el('span', { class: 'chip-group' }, chip);
  }

  activeChip(spec, value) {
    const description = this.describe(spec.key, value);
    // "From John Smith": the kind of filter in bold, then its value (yes/no filters are one phrase).
    const [first, ...rest] = VALUED.has(spec.key) ? description.split(' ') : [description];
    const chip = el('button', {
      type: 'button', class: 'chip active', 'aria-pressed': 'true', 'aria-label': `Filter: ${description}`,
      'aria-haspopup': spec.editor ? 'dialog' : null, 'aria-expanded': spec.editor ? 'false' : null,
      dataset: { filter: spec.key },
    }, rest.length ? [el('span', { class: 'chip-key', text: first }), ` ${rest.join(' ')}`] : description);
    const remove = el('button', {
      type: 'button', class: 'chip-remove', 'aria-label': `Remove filter: ${description}`, title: 'Remove filter',
    }, icon('close'));
    const removeIt = () => {
      const text = removeFilter(this.text, spec.key, value);
      if (text === this.text.replace(/\s+/g, ' ').trim()) this.hooks.cannotRemove(description);
      else this.hooks.setText(text);
    };
    remove.addEventListener('click', removeIt);
    // Pressing an active chip: change its value (popover), or switch the filter off.
    chip.addEventListener('click', () => (spec.editor ? this.togglePopover(spec, chip, value) : removeIt()));
    return el('span', { class: 'chip-group active' }, chip, remove);
  }

  // ---- Value popovers -----------------------------------------------------------------

  togglePopover(spec, chip, value) {
    const wasOpen = this.popover?.chip === chip;
    this.closePopover({ restoreFocus: false });
    if (wasOpen) return;
    const choose = (operator) => {
      const base = value === undefined ? this.text : removeFilter(this.text, spec.key, value);
      this.closePopover();
      this.hooks.setText(addOperator(base, operator));
    };
    const element = el('div', {
      class: 'chip-popover', role: 'dialog', 'aria-label': `${spec.name} filter`,
      onkeydown: (event) => {
        if (event.key === 'Escape') {
          event.preventDefault();
          event.stopPropagation();
          this.closePopover();
        }
      },
    }, this.editor(spec.editor, choose, value));
    this.popover = { element, chip };
    chip.setAttribute('aria-expanded', 'true');
    chip.parentElement.append(element);
    element.querySelector('input, button')?.focus();
  }

  closePopover({ restoreFocus = true } = {}) {
    if (!this.popover) return;
    const { element, chip } = this.popover;
    this.popover = null;
    chip.setAttribute('aria-expanded', 'false');
    element.remove();
    if (restoreFocus) chip.focus();
  }

  editor(kind, choose, value) {
    const option = (label, operator) => el('button', { type: 'button', class: 'option', text: label, onclick: () => choose(operator) });
    switch (kind) {
      case 'sender': {
        const input = el('input', { type: 'text', id: 'chip-sender', autocomplete: 'off', value: value ?? '',
                                    placeholder: 'Name or address', required: true });
        const form = el('form', { class: 'popover-form' },
          el('label', { for: 'chip-sender', text: 'From' }),
          el('div', { class: 'popover-row' }, input, el('button', { type: 'submit', class: 'primary small', text: 'Apply' })));
        form.addEventListener('submit', (event) => {
          event.preventDefault();
          if (input.value.trim()) choose(`from:${operatorValue(input.value)}`);
        });
        const contacts = this.hooks.contacts();
        return [form, contacts.length ? el('div', { class: 'popover-options', role: 'group', 'aria-label': 'Frequent senders' },
          contacts.map((c) => option(c.name || c.email, `from:${operatorValue(c.name || c.email)}`))) : null];
      }
      case 'date': {
        const input = el('input', { type: 'date', id: 'chip-date', required: true });
        const form = el('form', { class: 'popover-form' },
          el('label', { for: 'chip-date', text: 'Since' }),
          el('div', { class: 'popover-row' }, input, el('button', { type: 'submit', class: 'primary small', text: 'Apply' })));
        form.addEventListener('submit', (event) => {
          event.preventDefault();
          if (input.value) choose(`after:${input.value}`);
        });
        return [el('div', { class: 'popover-options', role: 'group', 'aria-label': 'Dates' },
          DATE_CHOICES.map(([label, operator]) => option(label, operator))), form];
      }
      case 'folder': {
        const names = this.hooks.folderNames();
        return el('div', { class: 'popover-options', role: 'group', 'aria-label': 'Folders' },
          names.length ? names.map((name) => option(name, `in:${operatorValue(name.toLowerCase())}`))
                       : el('p', { class: 'muted', text: 'No folders' }));
      }
      case 'category':
        return el('div', { class: 'popover-options', role: 'group', 'aria-label': 'Categories' },
          CATEGORIES.map((name) => option(capitalize(name), `category:${name}`)));
      default:
        return null;
    }
  }
}
