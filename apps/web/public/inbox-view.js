// The inbox: a card per pending interaction, kept in place while it stays pending (so a
// half-typed edit survives live refreshes), and a list of what was settled meanwhile.
import { api, ApiError, messageOf } from './api.js';
import { latestOnly } from './latest.js';
import { clockTime, formatRemaining, h, shortId } from './dom.js';
import { countBlankRuns, countInvisible, renderRevealed } from './invisible-characters.js';
import { checkAgainstSchema } from './json-schema-check.js';

/** @typedef {import('./api.js').UserInteractionRequest} UserInteractionRequest */
/** @typedef {import('./api.js').ToolApprovalDetails} ToolApprovalDetails */
/** @typedef {import('./api.js').ToolApprovalResponse} ToolApprovalResponse */
/** @typedef {import('./api.js').PendingInteractions} PendingInteractions */
/** @typedef {import('./api.js').InteractionState} InteractionState */
/** @typedef {import('./api.js').AnswerBody} AnswerBody */
/** @typedef {import('./api.js').BatchResults} BatchResults */
/** @typedef {import('./api.js').AnswerAccepted} AnswerAccepted */

const SETTLED_KEPT = 12;

export class InboxView {
  /** @param {{ notify: import('./dom.js').Notify }} options */
  constructor({ notify }) {
    this.notify = notify;
    /** Only the answer to the latest question is drawn (latest.js). */
    this.fetchLatest = latestOnly(api);
    /** @type {Map<string, { request: UserInteractionRequest, element: HTMLElement }>} */
    this.cards = new Map();
    /** @type {Map<string, HTMLElement>} */
    this.batchBars = new Map();
    this.serverOffset = 0;
    /** @type {{ risk: string, tool: string }} */
    this.filter = { risk: '', tool: '' };
    this.list = h('div', { class: 'cards', 'aria-live': 'polite' });
    this.empty = h(
      'p',
      { class: 'empty', hidden: true },
      'Nothing waits for an answer. New approvals appear here as soon as an agent asks.',
    );
    this.settledList = h('ol', { class: 'settled' });
    this.element = h(
      'section',
      { class: 'view inbox-view' },
      h('div', { class: 'view-header' }, h('h1', null, 'Inbox'), this.filters()),
      this.empty,
      this.list,
      h('h2', null, 'Recently settled'),
      this.settledList,
    );
  }

  filters() {
    const risk = h(
      'select',
      {
        class: 'filter-risk',
        'aria-label': 'Risk',
        onchange: (event) => this.setFilter('risk', /** @type {HTMLSelectElement} */ (event.target).value),
      },
      h('option', { value: '' }, 'any risk'),
      h('option', { value: 'HIGH' }, 'HIGH'),
      h('option', { value: 'MEDIUM' }, 'MEDIUM'),
      h('option', { value: 'LOW' }, 'LOW'),
    );
    const tool = h('input', {
      class: 'filter-tool',
      placeholder: 'tool name',
      'aria-label': 'Tool',
      onchange: (event) => this.setFilter('tool', /** @type {HTMLInputElement} */ (event.target).value.trim()),
    });
    return h('div', { class: 'filters' }, risk, tool);
  }

  /**
   * @param {'risk' | 'tool'} name
   * @param {string} value
   */
  setFilter(name, value) {
    this.filter[name] = value;
    void this.refresh();
  }

  async refresh() {
    const query = new URLSearchParams(Object.entries(this.filter).filter(([, value]) => value !== ''));
    const latest = await this.fetchLatest(`/api/interactions${query.size > 0 ? `?${query}` : ''}`);
    if (latest === undefined) return;
    const { serverTime, interactions } = /** @type {PendingInteractions} */ (latest.value);
    this.serverOffset = Date.parse(serverTime) - Date.now();
    const pendingIds = new Set(interactions.map((request) => request.interactionId));
    for (const [interactionId, card] of this.cards) {
      if (pendingIds.has(interactionId)) continue;
      card.element.remove();
      this.cards.delete(interactionId);
      void this.settle(card.request);
    }
    /** @type {Map<string, UserInteractionRequest[]>} */
    const batchMembers = new Map();
    for (const request of interactions) {
      const batchId = batchKey(request);
      if (batchId !== undefined) batchMembers.set(batchId, [...(batchMembers.get(batchId) ?? []), request]);
    }
    /** @type {HTMLElement[]} */
    const order = [];
    /** @type {Set<string>} */
    const seenBatches = new Set();
    for (const request of interactions) {
      const batchId = batchKey(request);
      const members = batchId === undefined ? undefined : batchMembers.get(batchId);
      if (batchId !== undefined && members !== undefined && members.length > 1 && !seenBatches.has(batchId)) {
        seenBatches.add(batchId);
        order.push(this.batchBar(batchId, members));
      }
      let card = this.cards.get(request.interactionId);
      // A call that needs several approvers is drawn again when its approvals change (F51).
      if (card === undefined || quorumOf(card.request) !== quorumOf(request)) {
        card = { request, element: this.card(request) };
        this.cards.set(request.interactionId, card);
      }
      order.push(card.element);
    }
    for (const [batchId, bar] of this.batchBars)
      if (!seenBatches.has(batchId)) {
        bar.remove();
        this.batchBars.delete(batchId);
      }
    const current = [...this.list.children];
    if (current.length !== order.length || current.some((element, index) => element !== order[index]))
      this.list.replaceChildren(...order);
    this.empty.hidden = interactions.length > 0;
    this.tick();
  }

  /** Updates the countdowns. */
  tick() {
    const now = Date.now() + this.serverOffset;
    for (const countdown of /** @type {NodeListOf<HTMLElement>} */ (this.list.querySelectorAll('[data-deadline]'))) {
      const remaining = Date.parse(countdown.dataset.deadline ?? '') - now;
      countdown.textContent = remaining <= 0 ? 'deadline passed' : `${formatRemaining(remaining)} left`;
      countdown.classList.toggle('urgent', remaining < 60_000);
    }
  }

  /**
   * @param {string} batchId
   * @param {UserInteractionRequest[]} members
   */
  batchBar(batchId, members) {
    let bar = this.batchBars.get(batchId);
    const label = `Approve all ${members.length} calls of this turn`;
    if (bar === undefined) {
      bar = h(
        'div',
        { class: 'batch-bar', dataset: { batchId } },
        h('span', { class: 'batch-text' }),
        h('button', { class: 'approve-batch', type: 'button' }, label),
      );
      this.batchBars.set(batchId, bar);
    }
    // Both are built with the bar, just above.
    /** @type {HTMLElement} */ (bar.querySelector('.batch-text')).textContent =
      `One model turn proposed ${members.length} calls that wait for you:`;
    const button = /** @type {HTMLButtonElement} */ (bar.querySelector('.approve-batch'));
    button.textContent = label;
    button.onclick = async () => {
      button.disabled = true;
      try {
        const { results } = /** @type {BatchResults} */ (
          await api('/api/interactions/approve-batch', {
            method: 'POST',
            body: { interactionIds: members.map((request) => request.interactionId) },
          })
        );
        const refused = results.filter((result) => result.result === 'refused');
        const held = results.filter((result) => result.result === 'accepted' && !goesOn(result));
        const said = [...new Set(results.map((result) => result.message))].join(' ');
        this.notify(
          refused.length === 0
            ? `Approved ${results.length} calls. ${said}`
            : `Approved ${results.length - refused.length}; refused: ${refused.map((result) => result.message).join(' ')}`,
          refused.length === 0 && held.length === 0 ? 'ok' : 'warn',
        );
      } catch (error) {
        this.notify(messageOf(error), 'error');
      } finally {
        button.disabled = false;
        void this.refresh();
      }
    };
    return bar;
  }

  /** @param {UserInteractionRequest & { mayAnswer?: boolean, mayApprove?: boolean, why?: string }} request */
  card(request) {
    const card = request.operationType === 'TOOL_APPROVAL' ? this.approvalCard(request) : this.questionCard(request);
    if (request.mayAnswer === false) {
      // The workflow's list for this level does not name this approver, or they started the thread (F51): shown, not answerable.
      card.classList.add('not-yours');
      card.querySelectorAll('button, input, textarea').forEach((control) => control.setAttribute('disabled', ''));
      card
        .querySelector('header')
        ?.after(
          h(
            'p',
            { class: 'not-yours-note' },
            request.why ?? 'Your approver list does not cover this level: someone on its list answers it.',
          ),
        );
    } else if (request.mayApprove === false) {
      // The requester of a call that needs several approvers: their rejection counts, their approval does not (issue 37).
      card.querySelectorAll('button.approve, button.edit').forEach((control) => control.setAttribute('disabled', ''));
      card.querySelector('header')?.after(h('p', { class: 'not-yours-note' }, request.why ?? ''));
    }
    return card;
  }

  /** @param {UserInteractionRequest} request */
  approvalCard(request) {
    const approval = request.toolApproval;
    if (approval === undefined)
      throw new Error(`interaction ${request.interactionId} asks to approve a tool call but does not say which`);
    const argumentsText = JSON.stringify(approval.toolParameters, null, 2);
    const argumentsBlock = h('pre', { class: 'arguments' });
    renderRevealed(argumentsBlock, argumentsText);
    const hidden = countInvisible(argumentsText);
    const blankRuns = countBlankRuns(argumentsText);
    const error = h('p', { class: 'card-error', role: 'alert' });
    const instruction = h('textarea', {
      class: 'instruction',
      rows: 2,
      placeholder: 'An instruction for the agent (optional), e.g. "use staging"',
    });
    const reason = h('input', { class: 'reason', placeholder: 'Why you reject it (told to the agent)' });
    const remember = approval.rememberable ? h('input', { type: 'checkbox', class: 'remember' }) : undefined;
    const rememberOf = () => (remember?.checked ? { remember: true } : {});
    const editor = this.editor(approval.parametersSchema, (editedArguments) =>
      this.send(
        card,
        { action: 'edit', arguments: editedArguments, ...instructionOf(instruction), ...rememberOf() },
        editorError,
      ),
    );
    const editorError = /** @type {HTMLElement} */ (editor.querySelector('.edit-error'));
    /** @type {HTMLElement} */
    const card = h(
      'article',
      {
        class: `card approval risk-${approval.riskLevel}`,
        dataset: { interactionId: request.interactionId, tool: approval.toolName },
      },
      h(
        'header',
        null,
        revealed('span', { class: 'tool' }, approval.toolName),
        h('span', { class: `risk risk-${approval.riskLevel}` }, approval.riskLevel),
        h('span', { class: 'category' }, approval.category),
        approval.stage === 'execution' ? null : h('span', { class: 'stage' }, `${approval.stage} stage`),
        approval.quorum
          ? h('span', { class: 'quorum' }, `${approval.quorum.given} of ${approval.quorum.required} approvals`)
          : null,
        countdown(request),
      ),
      revealed('p', { class: 'prompt' }, request.prompt),
      h(
        'dl',
        { class: 'meta' },
        h('dt', null, 'Asked by rule'),
        h('dd', { class: 'rule' }, approval.rule),
        h('dt', null, 'Workflow'),
        h('dd', null, request.workflowId),
        h('dt', null, 'Thread'),
        h('dd', null, h('a', { href: `#/threads/${request.threadId}` }, shortId(request.threadId))),
        h(
          'dt',
          null,
          approval.toolName.startsWith('mcp__') ? 'Tool (as its MCP server describes it, not checked)' : 'Tool',
        ),
        revealed('dd', { class: 'tool-description' }, approval.toolDescription),
      ),
      approval.definitionChange ? definitionChangeBlock(approval.definitionChange) : null,
      hidden > 0
        ? h(
            'p',
            { class: 'invisible-warning' },
            `⚠ The arguments hold ${hidden} invisible or direction-changing character${hidden === 1 ? '' : 's'}, shown in red.`,
          )
        : null,
      blankRuns > 0
        ? h(
            'p',
            { class: 'invisible-warning blank-warning' },
            `⚠ The arguments hold ${blankRuns} long run${blankRuns === 1 ? '' : 's'} of blanks, shown counted in red.`,
          )
        : null,
      approval.quorum ? quorumBlock(approval.quorum) : null,
      h('h3', null, approval.stage === 'result' ? 'Arguments it ran with' : 'Exact arguments'),
      argumentsBlock,
      approval.stage === 'result' ? resultBlock(approval.result) : null,
      editor,
      h('label', { class: 'field' }, 'Instruction', instruction),
      remember
        ? h(
            'label',
            { class: 'remember-field' },
            remember,
            ' Remember this approval for the session (the same call with the same arguments runs without asking)',
          )
        : null,
      approval.stage === 'recovery'
        ? h(
            'div',
            { class: 'actions' },
            h(
              'button',
              {
                type: 'button',
                class: 'resolve-done',
                onclick: () => this.send(card, { action: 'approve', resolution: 'done' }, error),
              },
              'It ran: go on',
            ),
            h(
              'button',
              {
                type: 'button',
                class: 'resolve-retry',
                onclick: () => this.send(card, { action: 'approve', resolution: 'retry' }, error),
              },
              'Run it again',
            ),
            h(
              'button',
              {
                type: 'button',
                class: 'reject',
                onclick: () => this.send(card, { action: 'reject', reason: reason.value, resolution: 'failed' }, error),
              },
              'It failed',
            ),
          )
        : h(
            'div',
            { class: 'actions' },
            h(
              'button',
              {
                type: 'button',
                class: 'approve primary',
                onclick: () =>
                  this.send(
                    card,
                    approval.quorum?.arguments
                      ? { action: 'edit', arguments: approval.quorum.arguments, ...instructionOf(instruction) }
                      : { action: 'approve', ...instructionOf(instruction), ...rememberOf() },
                    error,
                  ),
              },
              approval.quorum?.arguments ? 'Approve the edited arguments' : 'Approve',
            ),
            approval.stage === 'execution'
              ? h(
                  'button',
                  { type: 'button', class: 'edit', onclick: () => openEditor(editor, approval.toolParameters) },
                  'Edit arguments…',
                )
              : null,
            h(
              'span',
              { class: 'reject-group' },
              reason,
              h(
                'button',
                {
                  type: 'button',
                  class: 'reject danger',
                  onclick: () =>
                    this.send(card, { action: 'reject', reason: reason.value, ...instructionOf(instruction) }, error),
                },
                'Reject',
              ),
            ),
          ),
      error,
    );
    return card;
  }

  /**
   * The box to edit the arguments in, hidden until "Edit arguments…".
   * @param {Record<string, unknown> | undefined} schema the tool's parameters, as JSON Schema
   * @param {(editedArguments: Record<string, unknown>) => void} submit
   */
  editor(schema, submit) {
    const text = h('textarea', {
      class: 'edit-arguments',
      rows: 8,
      spellcheck: 'false',
      'aria-label': 'Edited arguments (JSON)',
    });
    const problem = h('p', { class: 'edit-error', role: 'alert' });
    const save = () => {
      problem.textContent = '';
      /** @type {unknown} */
      let value;
      try {
        value = JSON.parse(text.value);
      } catch (error) {
        problem.textContent = `Not valid JSON: ${messageOf(error)}`;
        return;
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        problem.textContent = 'The arguments must be one JSON object, e.g. {"path": "NOTES.md"}.';
        return;
      }
      const problems = checkAgainstSchema(value, schema);
      if (problems.length > 0) {
        problem.textContent = `Does not match the tool's schema: ${problems.join('; ')}`;
        return;
      }
      submit(/** @type {Record<string, unknown>} */ (value));
    };
    const editor = h(
      'div',
      { class: 'editor', hidden: true },
      h('label', { class: 'field' }, `Arguments as JSON${schema ? " (checked against the tool's schema)" : ''}`, text),
      problem,
    );
    editor.append(
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'button', class: 'send-edit primary', onclick: save }, 'Approve with these arguments'),
        h('button', { type: 'button', class: 'cancel-edit', onclick: () => (editor.hidden = true) }, 'Cancel'),
      ),
    );
    return editor;
  }

  /** @param {UserInteractionRequest} request */
  questionCard(request) {
    const error = h('p', { class: 'card-error', role: 'alert' });
    const card = h(
      'article',
      { class: 'card question', dataset: { interactionId: request.interactionId } },
      h(
        'header',
        null,
        h('span', { class: 'tool' }, 'Question'),
        h('span', { class: 'category' }, request.operationType),
        countdown(request),
      ),
      revealed('p', { class: 'prompt' }, request.prompt),
      h(
        'dl',
        { class: 'meta' },
        h('dt', null, 'Workflow'),
        h('dd', null, request.workflowId),
        h('dt', null, 'Thread'),
        h('dd', null, h('a', { href: `#/threads/${request.threadId}` }, shortId(request.threadId))),
      ),
      error,
    );
    /** @param {unknown} value */
    const answer = (value) => this.send(card, { action: 'answer', value }, error);
    /** @type {import('@interlock/sdk-types').InputKind} */
    const input = request.input ?? { kind: 'text' };
    /** @type {HTMLElement[]} */
    let controls;
    switch (input.kind) {
      case 'confirm':
        controls = [
          h('button', { type: 'button', class: 'primary answer-yes', onclick: () => answer(true) }, 'Yes'),
          h('button', { type: 'button', class: 'answer-no', onclick: () => answer(false) }, 'No'),
        ];
        break;
      case 'choice':
        controls = input.options.map((option) => {
          const value = typeof option === 'string' ? option : option.value;
          return h(
            'button',
            { type: 'button', class: 'answer-choice', dataset: { value }, onclick: () => answer(value) },
            typeof option === 'string' ? option : option.label,
          );
        });
        break;
      default: {
        /** @type {{ placeholder?: string | undefined, default?: string | undefined }} */
        const hints = input.kind === 'text' ? input : {};
        const field = h(input.kind === 'json' ? 'textarea' : 'input', {
          class: 'answer-text',
          placeholder: hints.placeholder ?? '',
          value: hints.default ?? '',
        });
        controls = [
          field,
          h('button', { type: 'button', class: 'primary answer-send', onclick: () => answer(field.value) }, 'Send'),
        ];
      }
    }
    card.insertBefore(h('div', { class: 'actions' }, ...controls), error);
    return card;
  }

  /**
   * @param {HTMLElement} card
   * @param {AnswerBody} body
   * @param {HTMLElement} errorElement
   */
  async send(card, body, errorElement) {
    const buttons = card.querySelectorAll('button');
    buttons.forEach((button) => (button.disabled = true));
    errorElement.textContent = '';
    try {
      const result = /** @type {AnswerAccepted} */ (
        await api(`/api/interactions/${card.dataset.interactionId}/respond`, { method: 'POST', body })
      );
      // A call that needs several approvers waits for the others: its card stays, with the new count (F51).
      if (result.continuation !== 'awaiting-approvals') card.classList.add('answered');
      // What the server did with it, as it says: going on, left to a worker (or to none yet), stalled, or counted.
      this.notify(
        `${describeBody(body)}: ${card.dataset.tool ?? 'the question'} (${shortId(card.dataset.interactionId ?? '')}). ${result.message}`,
        goesOn(result) ? 'ok' : 'warn',
      );
      void this.refresh();
    } catch (error) {
      errorElement.textContent = messageOf(error);
      if (error instanceof ApiError && (error.status === 409 || error.status === 410)) {
        card.classList.add('settled-elsewhere');
        this.notify(error.message, 'warn');
        void this.refresh();
        return;
      }
      buttons.forEach((button) => (button.disabled = false));
    }
  }

  /**
   * Adds a line to "Recently settled" saying how an interaction that left the inbox ended, and who decided;
   * none for one that still waits.
   * @param {UserInteractionRequest} request
   */
  async settle(request) {
    let line;
    try {
      const state = /** @type {InteractionState} */ (await api(`/api/interactions/${request.interactionId}`));
      // Still waiting: the filter hides it (or a later list will show it again), it did not settle.
      if (state.status === 'pending') return;
      line = describeSettlement(request, state);
    } catch {
      line = `${subjectOf(request)}: no longer pending`;
    }
    const item = h(
      'li',
      { class: 'settled-item', dataset: { interactionId: request.interactionId } },
      h('time', null, clockTime(new Date().toISOString())),
      ' ',
      line,
    );
    this.settledList.prepend(item);
    while (this.settledList.children.length > SETTLED_KEPT) this.settledList.lastElementChild?.remove();
  }
}

/**
 * The calls of one model turn share a batch id within their thread.
 * @param {UserInteractionRequest} request
 */
function batchKey(request) {
  const batch = request.toolApproval?.batch;
  return batch === undefined || batch.size < 2 ? undefined : `${request.threadId}/${batch.id}`;
}

/** @param {UserInteractionRequest} request */
function countdown(request) {
  if (request.deadline === null) return h('span', { class: 'countdown none' }, 'no deadline');
  return h('span', {
    class: 'countdown',
    dataset: { deadline: request.deadline },
    title: `deadline ${request.deadline}`,
  });
}

/**
 * A call's approvals so far, as text to compare (empty for a call that needs one).
 * @param {UserInteractionRequest} request
 */
function quorumOf(request) {
  return JSON.stringify(request.toolApproval?.quorum ?? null);
}

/**
 * Where a call that needs several approvers stands (F51): who approved, the edited arguments
 * their approvals are for, and its escalation.
 * @param {NonNullable<NonNullable<UserInteractionRequest['toolApproval']>['quorum']>} quorum
 */
function quorumBlock(quorum) {
  const block = h(
    'div',
    { class: 'quorum-detail' },
    h(
      'p',
      null,
      `Runs once ${quorum.required} different approvers approve the same arguments (the requester does not count): ${quorum.given} so far`,
      quorum.approvedBy.length > 0 ? ` — ${quorum.approvedBy.join(', ')}` : '',
      '.',
    ),
  );
  if (quorum.arguments) {
    const edited = h('pre', { class: 'arguments quorum-arguments' });
    renderRevealed(edited, JSON.stringify(quorum.arguments, null, 2));
    block.append(h('h3', null, 'Edited arguments the approvals so far are for'), edited);
  }
  if (quorum.escalation)
    block.append(
      h(
        'p',
        { class: 'escalation' },
        quorum.escalation.escalated
          ? `Escalated: ${quorum.escalation.approvers.join(', ')} may approve too.`
          : `Escalates at ${new Date(quorum.escalation.at).toLocaleString()} to ${quorum.escalation.approvers.join(', ')}.`,
      ),
    );
  return block;
}

/** @param {unknown} result */
function resultBlock(result) {
  const block = h('pre', { class: 'result' });
  renderRevealed(block, typeof result === 'string' ? result : JSON.stringify(result, null, 2));
  return h('div', null, h('h3', null, 'Result the model would see'), block);
}

/**
 * @param {HTMLElement} editor
 * @param {Record<string, unknown>} parameters
 */
function openEditor(editor, parameters) {
  const text = /** @type {HTMLTextAreaElement} */ (editor.querySelector('.edit-arguments'));
  if (editor.hidden) text.value = JSON.stringify(parameters, null, 2);
  editor.hidden = false;
  text.focus();
}

/** @param {HTMLTextAreaElement} textarea */
function instructionOf(textarea) {
  const text = textarea.value.trim();
  return text === '' ? {} : { instruction: text };
}

/**
 * Whether a stored answer moves its thread on: here, in the process that holds it, or in a live
 * worker of its version. Stalled, or left to a worker none serves now, is said as a warning.
 * @param {AnswerAccepted | { result: 'refused' }} result
 */
function goesOn(result) {
  if (result.result !== 'accepted') return false;
  return result.continuation === 'scheduled' ? result.served === true : result.continuation !== 'stalled';
}

/** @param {AnswerBody} body */
function describeBody(body) {
  const verb = { approve: 'Approved', edit: 'Approved with edited arguments', reject: 'Rejected', answer: 'Answered' }[
    body.action
  ];
  return body.instruction ? `${verb}, with an instruction` : verb;
}

/** @param {UserInteractionRequest} request */
function subjectOf(request) {
  return request.toolApproval
    ? `${request.toolApproval.toolName} (${shortId(request.interactionId)})`
    : `"${request.prompt}"`;
}

/**
 * @param {UserInteractionRequest} request
 * @param {InteractionState} state
 */
function describeSettlement(request, state) {
  const subject = subjectOf(request);
  if (state.status === 'failed') {
    if (state.failureReason === 'timeout') return `${subject}: expired — nobody answered before the deadline`;
    return `${subject}: ${state.failureReason} — ${state.failureMessage ?? ''}`;
  }
  const by = state.response?.responder ?? 'someone';
  // The answer as given: for a tool approval, what the engine reads as a ToolApprovalResponse.
  const input = /** @type {Partial<ToolApprovalResponse> | undefined} */ (state.response?.input);
  if (request.toolApproval === undefined) return `${subject}: answered by ${by}`;
  const verb = input?.approved ? (input.editedParameters ? 'approved with edited arguments' : 'approved') : 'rejected';
  const reason = input?.denyReason ? ` (${input.denyReason})` : '';
  const instruction = input?.userInstruction ? ` with the instruction "${input.userInstruction}"` : '';
  return `${subject}: ${verb} by ${by}${reason}${instruction}`;
}

/**
 * An element whose text shows invisible and direction-changing characters as markers (tool names, prompts, descriptions).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {import('./dom.js').Attributes} attributes
 * @param {string | undefined} text
 */
function revealed(tag, attributes, text) {
  const element = h(tag, attributes);
  renderRevealed(element, text ?? '');
  return element;
}

/**
 * A pinned tool whose definition changed since it was approved: the diff, lines marked - and +.
 * @param {NonNullable<ToolApprovalDetails['definitionChange']>} change
 */
function definitionChangeBlock(change) {
  const diff = h('pre', { class: 'definition-diff' });
  for (const line of change.diff.split('\n')) {
    const kind = line.startsWith('+') ? 'added' : line.startsWith('-') ? 'removed' : 'same';
    diff.append(revealed('span', { class: `diff-${kind}` }, `${line}\n`));
  }
  return h(
    'section',
    { class: 'definition-change' },
    h(
      'p',
      { class: 'invisible-warning' },
      `⚠ This tool's definition changed since it was approved (${change.previousHash.slice(0, 12)} → ${change.hash.slice(0, 12)}). Read the change before you approve:`,
    ),
    diff,
  );
}
