import {
  SANDBOX_REQUESTS,
  SandboxAcquire,
  SandboxCallerAlive,
  SandboxWrite,
} from './sandbox.requests.js';

const threadId = '5f2b7c1e-8d44-5a36-9a0e-2f6a1b3c4d5e';

describe('sandbox requests', () => {
  it('gives every operation its own subject under sandbox.<threadId>', () => {
    const subjects = SANDBOX_REQUESTS.map((definition) => definition.subjectFor(threadId));
    expect(new Set(subjects).size).toBe(SANDBOX_REQUESTS.length);
    for (const subject of subjects) expect(subject).toMatch(/^sandbox\.[0-9a-f-]{36}\.[a-z-]+$/);
  });

  it('keeps the caller-liveness probe off the broker subjects', () => {
    expect(SandboxCallerAlive.subjectFor(threadId)).toBe(`sandbox-caller.${threadId}.alive`);
    expect(SANDBOX_REQUESTS.map((d) => d.pattern)).not.toContain(SandboxCallerAlive.pattern);
  });

  it('defaults an acquire to an agent thread and refuses a bad branch', () => {
    expect(SandboxAcquire.parseRequest({ threadId, branch: 'caravel/x' })).toMatchObject({
      purpose: 'agent',
    });
    expect(() => SandboxAcquire.parseRequest({ threadId, branch: '' })).toThrow(/branch/);
  });

  it('writes text unless told the content is base64', () => {
    expect(SandboxWrite.parseRequest({ threadId, path: 'a', content: 'x' }).encoding).toBe('utf8');
  });
});
