import { describe, expect, it } from 'vitest';
import { type AgentEvent, EventReporter } from '../../src/agent/events.js';

/** A reporter whose timer is a list the test runs by hand. */
function reporter(send: (batch: AgentEvent[]) => Promise<void>, maxPending = 1000) {
  const due: (() => void)[] = [];
  const r = new EventReporter(send, { schedule: (fn) => due.push(fn), maxPending });
  /** Fires the one armed timer and lets the send settle. */
  const tick = async () => {
    expect(due.length).toBe(1);
    due.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { r, due, tick };
}

describe('agent event reporting', () => {
  it('drains a burst of more than one batch, then keeps reporting later events', async () => {
    const sent: AgentEvent[][] = [];
    const { r, due, tick } = reporter(async (b) => {
      sent.push(b);
    });
    for (let i = 0; i < 250; i++) r.add({ n: i });
    await tick();
    await tick();
    await tick();
    expect(sent.map((b) => b.length)).toEqual([100, 100, 50]);
    expect(sent.flat().map((e) => e.n)).toEqual([...Array(250).keys()]);
    expect(due).toHaveLength(0);
    r.add({ n: 'later' });
    await tick();
    expect(sent[3]).toEqual([{ n: 'later' }]);
  });

  it('goes on after a failed send and keeps at most maxPending events, dropping the oldest', async () => {
    let fail = true;
    const sent: AgentEvent[][] = [];
    const { r, tick } = reporter(async (b) => {
      if (fail) throw new Error('service away');
      sent.push(b);
    }, 150);
    for (let i = 0; i < 200; i++) r.add({ n: i });
    expect(r.dropped).toBe(50);
    await tick();
    fail = false;
    await tick();
    expect(sent).toEqual([[...Array(50).keys()].map((i) => ({ n: 150 + i }))]);
    expect(r.size).toBe(0);
  });
});
