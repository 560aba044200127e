// The folder picker of "Move…" (v): a modal <dialog id="folder-picker"> listing the folders of the
// conversation's account, a filter box above them; ↑/↓ move through the list (wrapping),
// Enter or a click chooses, Esc closes without moving.

import { el, clear, icon } from './dom.js';

const TYPE_ICONS = { inbox: 'inbox', starred: 'star', important: 'important', sent: 'sent', drafts: 'drafts',
                     archive: 'archive', spam: 'spam', trash: 'trash' };

export class FolderPicker {
  constructor() {
    this.dialog = document.getElementById('folder-picker');
    this.filter = this.dialog.querySelector('input');
    this.list = this.dialog.querySelector('[role="listbox"]');
    this.empty = this.dialog.querySelector('.picker-empty');
    this.title = this.dialog.querySelector('h2');
    this.folders = [];
    this.shown = [];
    this.active = -1;
    this.resolve = null;
    this.filter.addEventListener('input', () => this.render());
    this.filter.addEventListener('keydown', (event) => this.onKey(event));
    this.list.addEventListener('click', (event) => {
      const option = event.target.closest('[role="option"]');
      if (option) this.finish(this.shown[Number(option.dataset.index)]);
    });
    // Esc (the dialog's cancel) or the form's close button: nothing chosen.
    this.dialog.addEventListener('close', () => this.finish(null));
    this.dialog.querySelector('.picker-close')?.addEventListener('click', () => this.dialog.close());
  }

  get isOpen() { return this.dialog.open; }

  /**
   * Asks for a folder among `folders` (the account's, from /api/mailboxes: id, name, path, type,
   * accountId); `current` are the paths the conversation is in now (marked, still choosable: a
   * move there takes it out of the others). Resolves with the folder chosen, or null.
   */
  choose(folders, { current = [], title = 'Move to folder' } = {}) {
    if (this.resolve) this.finish(null);
    this.folders = folders;
    this.current = new Set(current);
    this.title.textContent = title;
    this.filter.value = '';
    this.active = -1;
    this.render();
    this.dialog.showModal();
    this.filter.focus();
    return new Promise((resolve) => { this.resolve = resolve; });
  }

  finish(folder) {
    const resolve = this.resolve;
    this.resolve = null;
    if (this.dialog.open) this.dialog.close();
    resolve?.(folder ?? null);
  }

  render() {
    const words = this.filter.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    this.shown = this.folders.filter((f) => {
      const text = `${f.name} ${f.path}`.toLowerCase();
      return words.every((w) => text.includes(w));
    });
    clear(this.list);
    this.shown.forEach((folder, i) => {
      const here = this.current.has(folder.path) || this.current.has(folder.name);
      this.list.append(el('li', {
        role: 'option', id: `folder-picker-option-${i}`, class: 'picker-option', dataset: { index: i, path: folder.path },
        'aria-selected': 'false', title: folder.path !== folder.name ? folder.path : null,
      },
        icon(TYPE_ICONS[folder.type] ?? 'folder'),
        el('span', { class: 'picker-name', text: folder.name }),
        here ? el('span', { class: 'picker-here muted', text: 'current' }) : null));
    });
    this.empty.hidden = this.shown.length > 0;
    this.setActive(this.shown.length ? 0 : -1);
  }

  setActive(index) {
    const options = this.list.querySelectorAll('[role="option"]');
    options[this.active]?.setAttribute('aria-selected', 'false');
    this.active = index;
    const option = options[index];
    if (option) {
      option.setAttribute('aria-selected', 'true');
      option.scrollIntoView({ block: 'nearest' });
      this.filter.setAttribute('aria-activedescendant', option.id);
    } else {
      this.filter.removeAttribute('aria-activedescendant');
    }
  }

  onKey(event) {
    const count = this.shown.length;
    const step = { ArrowDown: 1, ArrowUp: -1 }[event.key];
    if (step && count) {
      event.preventDefault();
      this.setActive((this.active + step + count) % count);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      if (this.active >= 0) this.finish(this.shown[this.active]);
    }
  }
}
