import { describe, expect, it } from '@jest/globals';
import { MAX_UNPUBLISHED_FILES, RunFinishedV1 } from './run.messages.js';

const UNPUBLISHED = {
  ...RunFinishedV1.fixture().data,
  outcome: 'failed',
  exitStatus: 'submitted (exit_unpublished)',
  summary: 'The changes are not in a pull request: their last publish failed.',
};

describe('RunFinishedV1', () => {
  it("carries why a run's changes are not in its pull request, and parses a runner's message without it", () => {
    const why = { reason: 'workflow_permission', files: ['.github/workflows/ci.yml'] };

    expect(RunFinishedV1.dataSchema.parse({ ...UNPUBLISHED, unpublished: why })).toMatchObject({
      unpublished: why,
    });
    expect(RunFinishedV1.dataSchema.parse(UNPUBLISHED)).not.toHaveProperty('unpublished');
  });

  it('refuses a reason that is not a code, and more files or longer names than it carries', () => {
    const parses = (unpublished: unknown) =>
      RunFinishedV1.dataSchema.safeParse({ ...UNPUBLISHED, unpublished }).success;
    const files = (count: number, chars = 10) =>
      Array.from({ length: count }, (_, i) => `${i}`.padEnd(chars, 'x'));

    expect(parses({ reason: 'workflow_permission', files: files(MAX_UNPUBLISHED_FILES) })).toBe(
      true,
    );
    expect(parses({ reason: 'workflow_permission', files: files(MAX_UNPUBLISHED_FILES + 1) })).toBe(
      false,
    );
    expect(parses({ reason: 'workflow_permission', files: files(1, 201) })).toBe(false);
    expect(parses({ reason: 'workflow_permission', files: [''] })).toBe(false);
    expect(parses({ reason: 'GitHub said **no**', files: [] })).toBe(false);
  });
});
