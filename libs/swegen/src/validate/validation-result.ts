/** One trial of a validation (NOP or Oracle). */
export interface TrialOutcome {
  readonly agent: 'nop' | 'oracle';
  /** The reward the verifier wrote; null when the environment failed or no reward was written. */
  readonly reward: number | null;
  /** Why there is no reward, or what went wrong around it. */
  readonly error?: string;
  /** Where the trial's logs are kept. */
  readonly logDir?: string;
}

/** The validation of one task: NOP must score 0 and Oracle 1. */
export interface TaskValidation {
  readonly taskId: string;
  readonly taskDir: string;
  readonly runner: 'bwrap-host' | 'harbor';
  readonly nop: TrialOutcome;
  readonly oracle: TrialOutcome;
  readonly passed: boolean;
  /** The environment build's log (host runner). */
  readonly buildLog?: string;
}

/** SWE-gen's pass condition: exactly NOP 0 and Oracle 1; a missing reward fails. */
export function validationPassed(nop: TrialOutcome, oracle: TrialOutcome): boolean {
  return nop.reward === 0 && oracle.reward === 1;
}

/** `TASK_ID: NOP=<r|ERROR> ORACLE=<r|ERROR> PASS|FAIL` as SWE-gen's results file writes it. */
export function summaryLine(result: TaskValidation): string {
  const r = (t: TrialOutcome): string => (t.reward === null ? 'ERROR' : String(t.reward));
  const errors = [result.nop.error, result.oracle.error].filter(Boolean).join('; ');
  const verdict = result.passed ? 'PASS' : errors ? `FAIL: ${errors}` : 'FAIL';
  return `${result.taskId}: NOP=${r(result.nop)} ORACLE=${r(result.oracle)} ${verdict}`;
}
