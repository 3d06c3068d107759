import { describe, expect, it } from '@jest/globals';
import { silentLogger } from './bus-logger.js';
import { OutageBreaker, type Admission } from './outage-breaker.js';

const FREE = { probe: false };

/** A breaker on a hand-moved clock; its timers are real and short. */
function setup(probeTimeoutMs = 60_000) {
  const clock = { now: 1_000 };
  const breaker = new OutageBreaker({
    delayMs: (failures) => (failures === 1 ? 100 : 200),
    probeTimeoutMs,
    label: 'test',
    logger: silentLogger,
    now: () => clock.now,
  });
  return { clock, breaker };
}

/** What `admit` gave, or 'waiting' if it has not resolved within a few ms. */
function settled(admission: Promise<Admission>): Promise<Admission | 'waiting'> {
  return Promise.race([
    admission,
    new Promise<'waiting'>((r) => setTimeout(() => r('waiting'), 5)),
  ]);
}

const elapse = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('outage breaker', () => {
  it('admits everyone freely while closed', async () => {
    const { breaker } = setup();
    expect(await breaker.admit()).toEqual(FREE);
    breaker.record('up', FREE);
    expect(await breaker.admit()).toEqual(FREE);
    expect(breaker.isOpen).toBe(false);
  });

  it('holds every puller after an outage, then lets one probe when it is due', async () => {
    const { breaker, clock } = setup();
    breaker.record('down', FREE);
    const first = breaker.admit();
    const second = breaker.admit();
    expect(await settled(first)).toBe('waiting');
    clock.now += 100;
    await elapse(120);
    expect(await settled(first)).toEqual({ probe: true });
    expect(await settled(second)).toBe('waiting');
  });

  it('closes on a probe that ran without an outage and releases every waiter', async () => {
    const { breaker, clock } = setup();
    breaker.record('down', FREE);
    clock.now += 100;
    const probe = await breaker.admit();
    const waiting = breaker.admit();
    breaker.record('up', probe);
    expect(await settled(waiting)).toEqual(FREE);
    expect(breaker.isOpen).toBe(false);
  });

  it('opens again for a longer wait when the probe meets the outage', async () => {
    const { breaker, clock } = setup();
    breaker.record('down', FREE);
    clock.now += 100;
    const probe = await breaker.admit();
    breaker.record('down', probe);
    const next = breaker.admit();
    clock.now += 100;
    expect(await settled(next)).toBe('waiting');
    clock.now += 100;
    await elapse(220);
    expect(await settled(next)).toEqual({ probe: true });
  });

  it('hands the probe on when it found nothing to run, and ignores the verdicts of others', async () => {
    const { breaker, clock } = setup();
    breaker.record('down', FREE);
    clock.now += 100;
    const probe = await breaker.admit();
    const next = breaker.admit();
    breaker.record('up', FREE);
    breaker.record('down', FREE);
    breaker.record('up', { probe: true });
    expect(await settled(next)).toBe('waiting');
    breaker.record('unknown', probe);
    expect(await settled(next)).toEqual({ probe: true });
  });

  it('hands the probe on when its handler hangs past the probe timeout, and ignores its late verdict', async () => {
    const { breaker, clock } = setup(50);
    breaker.record('down', FREE);
    clock.now += 100;
    const hung = await breaker.admit();
    const next = breaker.admit();
    await elapse(70);
    const probe = await settled(next);
    expect(probe).toEqual({ probe: true });
    breaker.record('up', hung);
    expect(breaker.isOpen).toBe(true);
    breaker.record('up', probe as Admission);
    expect(breaker.isOpen).toBe(false);
  });

  it('puts a due parked retry ahead of the pulls for the probe', async () => {
    const { breaker, clock } = setup();
    breaker.record('down', FREE);
    const pull = breaker.admit();
    const parked = breaker.admit(true);
    clock.now += 100;
    await elapse(120);
    expect(await settled(parked)).toEqual({ probe: true });
    expect(await settled(pull)).toBe('waiting');
  });

  it('releases everyone when stopped', async () => {
    const { breaker } = setup();
    breaker.record('down', FREE);
    const waiting = breaker.admit();
    breaker.stop();
    expect(await settled(waiting)).toEqual(FREE);
  });
});
