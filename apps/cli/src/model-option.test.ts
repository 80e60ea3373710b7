import { describe, expect, it } from 'vitest';
import { parseApprovalMode } from './approval-mode-option.js';
import { createModel } from './model-option.js';
import { UsageError } from './usage-error.js';

describe('createModel', () => {
  it('uses the scripted demo model by default', () => {
    expect(createModel({}, 'run', {}).name).toBe('scripted');
    expect(createModel({ model: 'scripted' }, 'run', {}).name).toBe('scripted');
  });

  it('builds an OpenAI-compatible model from openai:<model>, with a local base URL needing no key', () => {
    expect(createModel({ model: 'openai:gpt-4o-mini' }, 'run', { OPENAI_API_KEY: 'sk-test' }).name).toBe(
      'openai:gpt-4o-mini',
    );
    expect(createModel({ model: 'openai:llama3.1:8b', baseUrl: 'http://localhost:11434/v1' }, 'run', {}).name).toBe(
      'openai:llama3.1:8b',
    );
  });

  it('refuses what it cannot run, as usage errors that never show the key', () => {
    expect(() => createModel({ model: 'claude' }, 'run', {})).toThrow(UsageError);
    expect(() => createModel({ model: 'openai:' }, 'run', {})).toThrow('needs the model name');
    expect(() => createModel({ model: 'openai:gpt-4o-mini' }, 'run', {})).toThrow('needs OPENAI_API_KEY');
    expect(() => createModel({ baseUrl: 'http://localhost:1234/v1' }, 'run', {})).toThrow(
      '--base-url applies to --model openai:<model> or anthropic:<model> only',
    );
    expect(() =>
      createModel({ model: 'openai:m', baseUrl: 'ftp://host' }, 'run', { OPENAI_API_KEY: 'sk-secret' }),
    ).toThrow(UsageError);
    try {
      createModel({ model: 'openai:m', baseUrl: 'ftp://host' }, 'run', { OPENAI_API_KEY: 'sk-secret' });
    } catch (error) {
      expect(String(error)).not.toContain('sk-secret');
    }
  });
});

describe('parseApprovalMode', () => {
  it('accepts the three modes, defaults to default, and refuses anything else', () => {
    expect(parseApprovalMode(undefined, 'run')).toBe('default');
    expect(parseApprovalMode('autoEdit', 'run')).toBe('autoEdit');
    expect(parseApprovalMode('yolo', 'run')).toBe('yolo');
    expect(() => parseApprovalMode('auto', 'run')).toThrow('use one of default, autoEdit, yolo');
  });
});
