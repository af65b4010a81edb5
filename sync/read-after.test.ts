import { describe, expect, it } from 'vitest';
import { ReadAfter, readAfterOf, UNCERTAIN_WRITE_MS } from './read-after.ts';

describe('what a client sends on its reads after its writes', () => {
  it('nothing before any write; then the highest position the writes were answered with', () => {
    const r = new ReadAfter();
    expect(r.header()).toBeNull();
    r.answered(undefined); // a service without a standby sends none
    expect(r.header()).toBeNull();
    r.answered('0/20');
    r.answered('0/10'); // answers arrive out of order over several connections
    expect(r.header()).toBe('0/20');
  });

  it('the primary for a while after a write it got no position for, then the highest position again', () => {
    let now = 1_000;
    const r = new ReadAfter(() => now);
    r.answered('0/20');
    r.uncertain();
    expect(r.header()).toBe('primary');
    now += UNCERTAIN_WRITE_MS - 1;
    expect(r.header()).toBe('primary');
    now += 1;
    expect(r.header()).toBe('0/20');
    // A 2xx whose position the service could not read counts as no answer.
    r.answered('primary');
    expect(r.header()).toBe('primary');
  });

  it('is kept in the mirror for the next process: what it knows is added to what that process knows', () => {
    expect(new ReadAfter().state()).toBeNull();
    let now = 5_000;
    const first = new ReadAfter(() => now);
    first.answered('0/30');
    const next = new ReadAfter(() => now);
    next.answered('0/10');
    next.restore(first.state());
    expect(next.header()).toBe('0/30');
    first.uncertain();
    next.restore(first.state());
    expect(next.header()).toBe('primary');
    // What the next process knows of later writes is not lowered by an older state; unreadable state is ignored.
    const later = new ReadAfter(() => now);
    later.answered('1/0');
    later.restore(JSON.stringify({ lsn: '0/30', uncertain_at: null }));
    later.restore('not json');
    expect(later.header()).toBe('1/0');
    now += UNCERTAIN_WRITE_MS;
    expect(next.header()).toBe('0/30');
  });

  it('is one per account and service in the process, whatever the URL\'s trailing slash', () => {
    expect(readAfterOf('http://a.example/', 'acc')).toBe(readAfterOf('http://a.example', 'acc'));
    expect(readAfterOf('http://a.example', 'acc')).not.toBe(readAfterOf('http://a.example', 'other'));
  });
});
