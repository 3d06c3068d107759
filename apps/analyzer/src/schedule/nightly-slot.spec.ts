import { NIGHTLY_WINDOW, nextNightlyRun, nightlySlot } from './nightly-slot.js';

describe('nightlySlot', () => {
  it('is the same for the same repository, whatever its case', () => {
    expect(nightlySlot('Acme/Widgets')).toEqual(nightlySlot('acme/widgets'));
  });

  it('falls inside the window and spreads repositories over it', () => {
    const slots = Array.from({ length: 200 }, (_, i) => nightlySlot(`acme/repo-${i}`));
    for (const { hour, minute } of slots) {
      expect(hour).toBeGreaterThanOrEqual(NIGHTLY_WINDOW.startHour);
      expect(hour).toBeLessThan(NIGHTLY_WINDOW.startHour + NIGHTLY_WINDOW.hours);
      expect(minute).toBeGreaterThanOrEqual(0);
      expect(minute).toBeLessThan(60);
    }
    expect(new Set(slots.map((s) => s.hour)).size).toBe(NIGHTLY_WINDOW.hours);
    expect(new Set(slots.map((s) => `${s.hour}:${s.minute}`)).size).toBeGreaterThan(100);
  });
});

describe('nextNightlyRun', () => {
  const repository = 'acme/widgets';
  const { hour, minute } = nightlySlot(repository);

  it('is today when the slot is still ahead, tomorrow when it has passed', () => {
    const before = new Date(Date.UTC(2026, 11, 1, 0, 0));
    expect(nextNightlyRun(repository, before)).toEqual(
      new Date(Date.UTC(2026, 11, 1, hour, minute)),
    );
    const after = new Date(Date.UTC(2026, 11, 1, 12, 0));
    expect(nextNightlyRun(repository, after)).toEqual(
      new Date(Date.UTC(2026, 11, 2, hour, minute)),
    );
  });

  it('never returns the instant it is asked at (a run that just fired schedules the next day)', () => {
    const atSlot = new Date(Date.UTC(2026, 11, 31, hour, minute));
    expect(nextNightlyRun(repository, atSlot)).toEqual(
      new Date(Date.UTC(2027, 0, 1, hour, minute)),
    );
  });
});
