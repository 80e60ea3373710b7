import { scriptedModel, type ModelRequest, type ModelResponse, type ScriptedModel } from '@interlock/core';
import type { Message } from '@interlock/sdk-types';
import { codingAgentTurn } from './coding-agent-turns.js';

const DRAFT_REQUEST = /Draft a plan for:\s*([\s\S]+)/;
const REVISION_NUMBER = /revision\s+(\d+)/i;

/**
 * The offline model of `interlock demo` and `interlock run --model scripted` (the default).
 * It answers by node: `draft` → a numbered three-step plan for the task in the conversation,
 * `revise` → a revised plan naming the revision, `execute` → a short report, `agent` → the
 * coding agent's four tool calls, then a summary of what ran and what was refused (see
 * {@link codingAgentTurn}), anything else → a short answer that quotes the person's last
 * message. Like a real model, it stops when the request's signal has aborted.
 *
 * @example
 * const interlock = await createInterlock({ models: { default: createDemoModel() } });
 */
export function createDemoModel(): ScriptedModel {
  return scriptedModel(replyTo);
}

function replyTo(request: ModelRequest): string | ModelResponse {
  if (request.nodeId === 'agent') return codingAgentTurn(request);
  const task = taskOf(request.messages);
  switch (request.nodeId) {
    case 'draft':
      return [
        `Plan for "${task}":`,
        '1. Read the code it touches and list what must change.',
        '2. Make the change, with a test that shows it works.',
        '3. Run the whole test suite and update the docs.',
      ].join('\n');
    case 'revise': {
      const revision = REVISION_NUMBER.exec(lastUserMessage(request.messages))?.[1] ?? '1';
      return [
        `Revised plan (revision ${revision}) for "${task}":`,
        `1. Write a failing test for "${task}" first.`,
        '2. Make the smallest change that passes it, behind a review.',
        '3. Run the whole test suite, then ask for approval before merging.',
      ].join('\n');
    }
    case 'execute':
      return `Done: carried out the approved plan for "${task}". All 3 steps finished and the tests pass.`;
    default: {
      const said = lastUserMessage(request.messages);
      return said === ''
        ? 'Hello! What should I do?'
        : `You said: "${said}" Here is a short answer: that sounds good, let's go with it.`;
    }
  }
}

function taskOf(messages: readonly Message[]): string {
  for (const message of messages) {
    const match = message.role === 'user' ? DRAFT_REQUEST.exec(message.content) : null;
    if (match?.[1] !== undefined) return match[1].trim();
  }
  return lastUserMessage(messages) || 'the task';
}

function lastUserMessage(messages: readonly Message[]): string {
  return messages.findLast((message) => message.role === 'user')?.content.trim() ?? '';
}
