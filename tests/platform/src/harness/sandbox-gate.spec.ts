import { BWRAP_MISSING, isolationGate } from './sandbox-gate.js';

describe('isolation gate', () => {
  it('lets isolation scenarios run where bubblewrap is installed', () => {
    expect(isolationGate({ bwrap: true, ci: false }).missing).toBeNull();
    expect(isolationGate({ bwrap: true, ci: true }).missing).toBeNull();
  });

  it('skips them with the reason and the fix outside CI', () => {
    expect(isolationGate({ bwrap: false, ci: false }).missing).toBe(BWRAP_MISSING);
    expect(BWRAP_MISSING).toBe('bubblewrap is not installed (apt-get install bubblewrap)');
  });

  it('fails under CI=true instead of skipping', () => {
    expect(() => isolationGate({ bwrap: false, ci: true })).toThrow(
      'CI=true requires bubblewrap: bubblewrap is not installed (apt-get install bubblewrap)',
    );
  });
});
