import { describe, expect, it } from 'vitest';
import { parseToolArguments, toChatMessages, ToolCallAssembler } from './openai-messages.js';

describe('parseToolArguments', () => {
  it('reads a JSON object', () => {
    expect(parseToolArguments('{"city":"Paris","days":[1,2]}')).toEqual({ arguments: { city: 'Paris', days: [1, 2] } });
  });

  it('takes no arguments at all as an empty object', () => {
    expect(parseToolArguments('')).toEqual({ arguments: {} });
    expect(parseToolArguments('  ')).toEqual({ arguments: {} });
  });

  it('accepts the object itself from servers that do not encode it', () => {
    expect(parseToolArguments({ city: 'Paris' })).toEqual({ arguments: { city: 'Paris' } });
  });

  it.each([
    ['{"city": "Par', 'are not valid JSON'],
    ['[1, 2]', 'must be a JSON object, but they are a list'],
    ['"Paris"', 'must be a JSON object, but they are a string'],
    ['42', 'must be a JSON object, but they are a number'],
    ['null', 'must be a JSON object, but they are null'],
  ])('turns %s into an argumentsError quoting it', (raw, problem) => {
    const parsed = parseToolArguments(raw);

    expect(parsed.arguments).toEqual({});
    expect(parsed.argumentsError).toContain(problem);
    expect(parsed.argumentsError).toContain(`Received: ${raw}`);
  });

  it('quotes at most 200 characters of long arguments', () => {
    const raw = `{"text": "${'x'.repeat(1000)}`;

    const parsed = parseToolArguments(raw);

    expect(parsed.argumentsError).toContain(`Received: ${raw.slice(0, 200)}… (${raw.length} characters)`);
    expect(parsed.argumentsError?.length).toBeLessThan(400);
  });

  it('says when the reply was cut off at the token limit', () => {
    expect(parseToolArguments('{"a":', true).argumentsError).toContain('cut off at the token limit');
  });
});

describe('ToolCallAssembler', () => {
  it('starts a new call when a taken index brings a different id', () => {
    const assembler = new ToolCallAssembler();
    assembler.add([{ index: 0, id: 'call_a', function: { name: 'first', arguments: '{}' } }]);
    assembler.add([{ index: 0, id: 'call_b', function: { name: 'second', arguments: '{"n":' } }]);
    assembler.add([{ index: 0, function: { arguments: '1}' } }]);

    expect(assembler.finish(false)).toEqual([
      { id: 'call_a', name: 'first', arguments: {} },
      { id: 'call_b', name: 'second', arguments: { n: 1 } },
    ]);
  });

  it('gives a call without an id one, so its result can answer it', () => {
    const assembler = new ToolCallAssembler();
    assembler.add([{ index: 0, function: { name: 'lookup', arguments: '{}' } }]);

    const [call] = assembler.finish(false);

    expect(call?.id).toMatch(/^call_\S+$/);
  });
});

describe('toChatMessages', () => {
  it('keeps an assistant text beside its tool calls', () => {
    expect(
      toChatMessages([
        { role: 'assistant', content: 'Looking.', toolCalls: [{ id: 'c1', name: 'find', arguments: { q: 'x' } }] },
      ]),
    ).toEqual([
      {
        role: 'assistant',
        content: 'Looking.',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'find', arguments: '{"q":"x"}' } }],
      },
    ]);
  });

  it('refuses a tool result that does not say which call it answers', () => {
    expect(() =>
      toChatMessages([
        { role: 'user', content: 'Hi' },
        { role: 'tool', content: '42' },
      ]),
    ).toThrow(
      expect.objectContaining({
        code: 'MODEL_FAILED',
        message: expect.stringContaining('message 1 of the conversation is a tool result without a toolCallId'),
      }),
    );
  });
});
