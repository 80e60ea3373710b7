// Threads: the list (with starting a workflow and cancelling), and one thread's timeline.
/* global window */
import { api, messageOf } from './api.js';
import { latestOnly } from './latest.js';
import { clockTime, h, shortId } from './dom.js';
import { renderRevealed } from './invisible-characters.js';

/** @typedef {import('./api.js').ThreadSummary} ThreadSummary */
/** @typedef {import('./api.js').ThreadTimeline} ThreadTimeline */
/** @typedef {import('./api.js').WorkflowSummary} WorkflowSummary */
/** @typedef {import('./dom.js').Notify} Notify */

export class ThreadsView {
  /** @param {{ notify: Notify }} options */
  constructor({ notify }) {
    this.notify = notify;
    /** Only the answer to the latest question is drawn (latest.js). */
    this.fetchLatest = latestOnly(() =>
      Promise.all([
        /** @type {Promise<{ threads: ThreadSummary[] }>} */ (api('/api/threads')),
        /** @type {Promise<{ workflows: WorkflowSummary[] }>} */ (api('/api/workflows')),
      ]),
    );
    this.workflowSelect = h('select', { class: 'start-workflow', 'aria-label': 'Workflow' });
    this.body = h('tbody');
    this.element = h(
      'section',
      { class: 'view threads-view' },
      h(
        'div',
        { class: 'view-header' },
        h('h1', null, 'Threads'),
        h(
          'form',
          { class: 'start-form', onsubmit: (event) => this.start(event) },
          this.workflowSelect,
          h('button', { type: 'submit', class: 'primary start-button' }, 'Start workflow'),
        ),
      ),
      h(
        'table',
        { class: 'threads' },
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            ...['Thread', 'Workflow', 'Status', 'Waiting on', 'Channel', 'Updated', ''].map((name) =>
              h('th', null, name),
            ),
          ),
        ),
        this.body,
      ),
    );
  }

  async refresh() {
    const latest = await this.fetchLatest();
    if (latest === undefined) return;
    const [{ threads }, { workflows }] = latest.value;
    if (this.workflowSelect.options.length !== workflows.length) {
      this.workflowSelect.replaceChildren(
        ...workflows.map((workflow) =>
          h('option', { value: workflow.id, title: workflow.description ?? '' }, workflow.name),
        ),
      );
    }
    this.body.replaceChildren(
      ...threads.map((thread) =>
        h(
          'tr',
          { dataset: { threadId: thread.threadId }, class: `status-${thread.status}` },
          h('td', null, h('a', { href: `#/threads/${thread.threadId}` }, shortId(thread.threadId))),
          h('td', null, thread.workflowId),
          h('td', null, h('span', { class: `status status-${thread.status}` }, thread.status)),
          h('td', null, String(thread.pendingInteractionIds.length)),
          h('td', null, thread.channel),
          h('td', null, clockTime(thread.updatedAt)),
          h(
            'td',
            null,
            cancelButton(thread, this.notify, () => this.refresh()),
          ),
        ),
      ),
    );
  }

  /** @param {SubmitEvent} event */
  async start(event) {
    event.preventDefault();
    try {
      const { threadId } = /** @type {{ threadId: string }} */ (
        await api('/api/threads', { method: 'POST', body: { workflowId: this.workflowSelect.value } })
      );
      this.notify(`Started thread ${shortId(threadId)}.`, 'ok');
      await this.refresh();
    } catch (error) {
      this.notify(messageOf(error), 'error');
    }
  }
}

export class TimelineView {
  /** @param {{ notify: Notify }} options */
  constructor({ notify }) {
    this.notify = notify;
    /** Only the answer to the latest question is drawn (latest.js). */
    this.fetchLatest = latestOnly(api);
    this.threadId = '';
    this.header = h('div', { class: 'view-header' });
    this.entries = h('ol', { class: 'timeline' });
    this.conversation = h('ol', { class: 'conversation' });
    this.element = h(
      'section',
      { class: 'view timeline-view' },
      this.header,
      this.entries,
      h('h2', null, 'Conversation'),
      this.conversation,
    );
  }

  /** @param {string} threadId */
  show(threadId) {
    this.threadId = threadId;
    return this.refresh();
  }

  async refresh() {
    const latest = await this.fetchLatest(`/api/threads/${encodeURIComponent(this.threadId)}`);
    if (latest === undefined) return;
    const { thread, entries, conversation } = /** @type {ThreadTimeline} */ (latest.value);
    this.header.replaceChildren(
      h('h1', null, `Thread ${shortId(thread.threadId)}`),
      h('span', { class: `status status-${thread.status}` }, thread.status),
      h('span', { class: 'muted' }, `${thread.workflowId} · channel ${thread.channel}`),
      cancelButton(thread, this.notify, () => this.refresh()) ?? '',
    );
    this.entries.replaceChildren(
      ...entries.map((entry) =>
        h(
          'li',
          { class: `entry entry-${entry.kind}` },
          h('time', { datetime: entry.at }, clockTime(entry.at)),
          h('span', { class: 'kind' }, entry.kind),
          h('span', { class: 'title' }, entry.title),
          entry.actor ? h('span', { class: 'actor' }, `by ${entry.actor}`) : null,
          entry.detail === undefined ? null : details(entry.detail),
        ),
      ),
    );
    this.conversation.replaceChildren(
      ...conversation.map((message) => {
        const content = h('pre', { class: 'content' });
        renderRevealed(
          content,
          message.toolCalls?.length
            ? `${message.content}\n${message.toolCalls.map((call) => `→ ${call.name} ${JSON.stringify(call.arguments)}`).join('\n')}`
            : message.content,
        );
        return h('li', { class: `message role-${message.role}` }, h('span', { class: 'role' }, message.role), content);
      }),
    );
  }
}

/** @param {unknown} detail */
function details(detail) {
  const block = h('pre', { class: 'detail' });
  renderRevealed(block, typeof detail === 'string' ? detail : JSON.stringify(detail, null, 2));
  return h('details', null, h('summary', null, 'details'), block);
}

/**
 * @param {ThreadSummary} thread
 * @param {Notify} notify
 * @param {() => Promise<void>} after
 */
function cancelButton(thread, notify, after) {
  if (thread.status !== 'waiting' && thread.status !== 'running') return null;
  return h(
    'button',
    {
      type: 'button',
      class: 'cancel-thread danger',
      onclick: async () => {
        if (!window.confirm(`Cancel thread ${shortId(thread.threadId)}? Its pending approvals are refused.`)) return;
        try {
          await api(`/api/threads/${thread.threadId}/cancel`, { method: 'POST', body: {} });
          notify(`Cancelled thread ${shortId(thread.threadId)}.`, 'ok');
        } catch (error) {
          notify(messageOf(error), 'error');
        }
        await after();
      },
    },
    'Cancel thread',
  );
}
