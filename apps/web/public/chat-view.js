// The chat view: a conversation with the chat agent, where a tool approval is a message and
// a plain "yes" or "no" answers it (the server keeps that reply from the agent).
/* global location */
import { api, messageOf } from './api.js';
import { latestOnly } from './latest.js';
import { clockTime, h, shortId } from './dom.js';
import { renderRevealed } from './invisible-characters.js';

/** @typedef {import('./api.js').ChatSummary} ChatSummary */
/** @typedef {import('./api.js').ChatEntry} ChatEntry */
/** @typedef {import('./api.js').ChatApproval} ChatApproval */

export class ChatView {
  /** @param {{ notify: import('./dom.js').Notify }} options */
  constructor({ notify }) {
    this.notify = notify;
    /** Only the answer to the latest question is drawn (latest.js). */
    this.fetchLatest = latestOnly(api);
    this.chatId = '';
    this.picker = h('select', {
      class: 'chat-picker',
      'aria-label': 'Chat',
      onchange: (event) => (location.hash = `#/chat/${/** @type {HTMLSelectElement} */ (event.target).value}`),
    });
    this.log = h('ol', { class: 'chat-log', 'aria-live': 'polite' });
    this.input = h('input', {
      class: 'chat-input',
      'aria-label': 'Message',
      placeholder: 'Message the agent — or answer an approval with yes or no',
      autocomplete: 'off',
    });
    this.form = h(
      'form',
      { class: 'chat-form', onsubmit: (event) => this.send(event) },
      this.input,
      h('button', { type: 'submit', class: 'primary chat-send' }, 'Send'),
    );
    this.element = h(
      'section',
      { class: 'view chat-view' },
      h(
        'div',
        { class: 'view-header' },
        h('h1', null, 'Chat'),
        this.picker,
        h('button', { type: 'button', class: 'new-chat', onclick: () => this.open() }, 'New chat'),
      ),
      this.log,
      this.form,
    );
  }

  /**
   * Shows `chatId`, or the newest chat when none is given.
   * @param {string} chatId
   */
  async show(chatId) {
    const { chats } = /** @type {{ chats: ChatSummary[] }} */ (await api('/api/chats'));
    this.picker.replaceChildren(
      ...chats.map((chat) =>
        h('option', { value: chat.chatId }, `${shortId(chat.chatId)} · ${chat.status} · ${clockTime(chat.createdAt)}`),
      ),
    );
    this.chatId = chatId || chats[0]?.chatId || '';
    this.picker.value = this.chatId;
    this.form.hidden = this.chatId === '';
    if (this.chatId === '') {
      this.log.replaceChildren(h('li', { class: 'empty' }, 'No chat yet: start one with "New chat".'));
      return;
    }
    await this.refresh();
  }

  async refresh() {
    if (this.chatId === '') return this.show('');
    const latest = await this.fetchLatest(`/api/chats/${encodeURIComponent(this.chatId)}/messages`);
    if (latest === undefined) return;
    const { entries } = /** @type {{ entries: ChatEntry[] }} */ (latest.value);
    this.render(entries);
  }

  /** @param {ChatEntry[]} entries */
  render(entries) {
    this.log.replaceChildren(
      ...entries.map((entry) => {
        const text = h('span', { class: 'text' });
        renderRevealed(text, entry.text);
        return h(
          'li',
          {
            class: `chat-entry role-${entry.role}${entry.approval ? ` approval-${entry.approval.status}` : ''}`,
            dataset: { entryId: entry.id, ...(entry.interactionId ? { interactionId: entry.interactionId } : {}) },
          },
          h(
            'span',
            { class: 'author' },
            `${entry.author ?? entry.role} · ${clockTime(entry.at)}${entry.queued ? ' · queued' : ''}${entry.consumed ? ' · taken as a reply' : ''}`,
          ),
          text,
          entry.approval ? approvalDetails(entry.approval) : null,
        );
      }),
    );
  }

  async open() {
    try {
      const { chatId } = /** @type {{ chatId: string, threadId: string }} */ (
        await api('/api/chats', { method: 'POST' })
      );
      location.hash = `#/chat/${chatId}`;
    } catch (error) {
      this.notify(messageOf(error), 'error');
    }
  }

  /** @param {SubmitEvent} event */
  async send(event) {
    event.preventDefault();
    const text = this.input.value.trim();
    if (text === '') return;
    this.input.value = '';
    try {
      const { entries } = /** @type {{ entries: ChatEntry[] }} */ (
        await api(`/api/chats/${encodeURIComponent(this.chatId)}/messages`, { method: 'POST', body: { text } })
      );
      this.render(entries);
    } catch (error) {
      this.input.value = text;
      this.notify(messageOf(error), 'error');
    }
  }
}

/** @param {ChatApproval} approval */
function approvalDetails(approval) {
  const args = h('pre', { class: 'arguments' });
  renderRevealed(args, JSON.stringify(approval.arguments, null, 2));
  const status = approval.answeredBy ? `${approval.status} by ${approval.answeredBy}` : approval.status;
  return h(
    'div',
    { class: 'approval-details' },
    h('span', { class: `approval-status status-${approval.status}` }, status),
    args,
  );
}
