import { describe, expect, it } from 'vitest';
import type { InterlockEvent } from '@interlock/sdk-types';
import { EventBus } from './event-bus.js';

const event = (threadId: string, nodeId: string): InterlockEvent => ({
  type: 'NODE_STARTED',
  threadId,
  workflowId: 'w',
  timestamp: '2026-01-01T00:00:00.000Z',
  nodeId,
  nodeType: 'START',
});

describe('EventBus.thread$', () => {
  it("delivers a thread's events, and only them, alongside events$", () => {
    const bus = new EventBus();
    const ofA: string[] = [];
    const all: string[] = [];
    bus.thread$('a').subscribe((e) => ofA.push(`${e.threadId}:${'nodeId' in e ? e.nodeId : ''}`));
    bus.events$.subscribe((e) => all.push(e.threadId));
    bus.publish(event('a', '1'));
    bus.publish(event('b', '2'));
    bus.publish(event('a', '3'));
    expect(ofA).toEqual(['a:1', 'a:3']);
    expect(all).toEqual(['a', 'b', 'a']);
  });

  it('forgets a thread once nobody follows it, and counts its subscriptions as open until then', () => {
    const bus = new EventBus();
    const first = bus.thread$('a').subscribe();
    const second = bus.thread$('a').subscribe();
    expect(bus.openSubscriptions).toBe(2);
    first.unsubscribe();
    second.unsubscribe();
    expect(bus.openSubscriptions).toBe(0);
    const late: InterlockEvent[] = [];
    bus.thread$('a').subscribe((e) => late.push(e));
    bus.publish(event('a', '4'));
    expect(late).toHaveLength(1);
  });
});
