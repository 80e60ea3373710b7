// The audit trail of tool-call decisions, and the check of its hash chain.
import { api } from './api.js';
import { latestOnly } from './latest.js';
import { clockTime, h, shortId } from './dom.js';
import { renderRevealed } from './invisible-characters.js';

/** @typedef {import('./api.js').AuditEntry} AuditEntry */
/** @typedef {import('./api.js').AuditVerification} AuditVerification */

export class AuditView {
  constructor() {
    /** Only the answer to the latest question is drawn (latest.js). */
    this.fetchLatest = latestOnly(api);
    this.verdict = h('p', { class: 'verdict' });
    this.body = h('tbody');
    this.element = h(
      'section',
      { class: 'view audit-view' },
      h(
        'div',
        { class: 'view-header' },
        h('h1', null, 'Audit trail'),
        h('button', { type: 'button', class: 'verify', onclick: () => this.verify() }, 'Verify the chain'),
      ),
      this.verdict,
      h(
        'table',
        { class: 'audit' },
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            ...['#', 'Time', 'Thread', 'Tool', 'Outcome', 'Decided by', 'Rule', 'Reason', 'Arguments'].map((name) =>
              h('th', null, name),
            ),
          ),
        ),
        this.body,
      ),
    );
  }

  async refresh() {
    const latest = await this.fetchLatest('/api/audit');
    if (latest === undefined) return;
    const { entries } = /** @type {{ entries: AuditEntry[] }} */ (latest.value);
    this.body.replaceChildren(
      ...entries.map((entry) => {
        const argumentsCell = h('pre', { class: 'arguments' });
        renderRevealed(
          argumentsCell,
          JSON.stringify(
            entry.editedArguments
              ? { original: entry.originalArguments, edited: entry.editedArguments }
              : entry.originalArguments,
            null,
            2,
          ),
        );
        return h(
          'tr',
          { class: `outcome-${entry.outcome}`, dataset: { sequence: entry.sequence } },
          h('td', null, String(entry.sequence)),
          h('td', null, clockTime(entry.at)),
          h('td', null, h('a', { href: `#/threads/${entry.threadId}` }, shortId(entry.threadId))),
          h('td', null, entry.toolName),
          h('td', null, h('span', { class: `outcome outcome-${entry.outcome}` }, entry.outcome)),
          h('td', { class: 'decided-by' }, entry.responder ?? entry.decidedBy),
          h('td', null, entry.rule),
          h('td', null, entry.reason),
          h('td', null, argumentsCell),
        );
      }),
    );
    await this.verify();
  }

  async verify() {
    const result = /** @type {AuditVerification} */ (await api('/api/audit/verify'));
    this.verdict.className = `verdict ${result.valid ? 'valid' : 'broken'}`;
    this.verdict.textContent = result.valid
      ? `✓ The hash chain is intact: ${result.entries} entr${result.entries === 1 ? 'y' : 'ies'}, none changed or missing.`
      : `✗ The chain is broken at entry ${result.brokenAt}: ${result.reason}.`;
  }
}
