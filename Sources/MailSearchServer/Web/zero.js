// The zero state (E-10): recent searches and top contacts, from GET /api/suggestions.

import { getJSON, sendJSON, isAbort } from './api.js';
import { el, clear, personName } from './dom.js';

export class ZeroState {
  /** hooks: run(query) re-runs a search; onError(error); announce(text); focusSearch(). */
  constructor(hooks) {
    this.hooks = hooks;
    this.recent = document.getElementById('recent');
    this.recentNone = document.getElementById('recent-none');
    this.clearButton = document.getElementById('clear-recent');
    this.contacts = document.getElementById('contacts');
    this.clearButton.addEventListener('click', () => this.clearRecent());
    this.loading = null;
    this.topContacts = [];
  }

  async load() {
    const controller = new AbortController();
    this.loading?.abort();
    this.loading = controller;
    try {
      this.render(await getJSON('/api/suggestions', { signal: controller.signal }));
    } catch (error) {
      if (!isAbort(error)) this.hooks.onError(error);
    }
  }

  render({ recentSearches = [], contacts = [] }) {
    this.topContacts = contacts;
    clear(this.recent).append(...recentSearches.map((query) => el('li', {},
      el('button', { type: 'button', class: 'recent', 'aria-label': `Recent search: ${query}`,
                     onclick: () => this.hooks.run(query) },
        el('span', { class: 'recent-icon', 'aria-hidden': 'true', text: '↺' }),
        el('span', { class: 'recent-text', text: query })))));
    this.recentNone.hidden = recentSearches.length > 0;
    this.clearButton.hidden = recentSearches.length === 0;

    clear(this.contacts).append(...contacts.map((contact) => el('li', {},
      el('button', { type: 'button', class: 'contact', title: `Search ${contact.suggestedQuery}`,
                     'aria-label': `Search mail from ${personName(contact)}`,
                     onclick: () => this.hooks.run(contact.suggestedQuery) },
        el('span', { class: 'contact-name', text: personName(contact) }),
        contact.name ? el('span', { class: 'contact-email', text: contact.email }) : null))));
  }

  async clearRecent() {
    try {
      this.render(await sendJSON('DELETE', '/api/recent'));
      this.hooks.announce('Recent searches cleared');
      // The button just hid itself: keep the focus somewhere useful.
      this.hooks.focusSearch();
    } catch (error) {
      this.hooks.onError(error);
    }
  }
}
