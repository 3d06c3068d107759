export {
  evalAttemptSchema,
  evalRunSchema,
  evalTaskResultSchema,
  taskResolveRate,
  type EvalAttempt,
  type EvalRun,
  type EvalTaskResult,
} from './results/eval-run.js';
export {
  evalRunOfRecords,
  recordedAttemptsOf,
  type RecordedAttempt,
  type RecordedRun,
} from './results/eval-run-records.js';
export {
  predictionsOf,
  resultsReportOf,
  type Prediction,
  type ResultsReport,
} from './results/swebench-files.js';
export { proportion, type Proportion } from './stats/proportion.js';
export { signTest, type SignTest } from './stats/sign-test.js';
export { distribution, type Distribution } from './stats/distribution.js';
export { bootstrapInterval, type BootstrapInterval } from './stats/bootstrap.js';
export {
  compareRuns,
  type Flip,
  type RunComparison,
  type RunSide,
  type TaskComparison,
} from './compare/compare-runs.js';
export {
  DEFAULT_GATE_POLICY,
  gateNumbers,
  gateVerdict,
  type GateNumbers,
  type GatePolicy,
  type GateSide,
  type GateVerdict,
} from './compare/regression-gate.js';
export { comparisonTable } from './report/comparison-table.js';
export { comparisonChart } from './report/comparison-chart.js';
export {
  attemptKeySchema,
  attemptLedgerSchema,
  evalRunOfLedger,
  openLedger,
  pendingAttempts,
  withFinished,
  withStarted,
  type AttemptKey,
  type AttemptLedger,
  type LedgerIdentity,
  type OpenedLedger,
} from './run/attempt-ledger.js';
export { runBounded, type PoolOptions } from './run/bounded-pool.js';
export { runAttempts, type RunAttemptsOptions } from './run/run-attempts.js';
export {
  parseReviewSet,
  reviewSetSchema,
  type ExpectedDefect,
  type ReviewCase,
  type ReviewSet,
} from './review/review-set.js';
export {
  REVIEW_SEVERITIES,
  candidatePairs,
  placeMatches,
  scoreCase,
  scoredFindings,
  scoresOf,
  totalScores,
  type CaseScore,
  type DefectMatch,
  type MatchOptions,
  type ReviewScores,
  type ReviewSeverity,
  type ScoredFinding,
} from './review/review-score.js';
export {
  reviewEvalCaseSchema,
  reviewEvalResultSchema,
  reviewEvalTotals,
  type ReviewEvalCase,
  type ReviewEvalResult,
  type ReviewedFinding,
} from './review/review-result.js';
export { placeOf, reviewEvalTable } from './review/review-table.js';
export {
  caseF1,
  compareReviewRuns,
  reviewF1Interval,
  reviewGateVerdict,
  reviewScoresOf,
  type ReviewCaseComparison,
  type ReviewCaseCounts,
  type ReviewComparison,
  type ReviewRunRecord,
  type ReviewSide,
} from './review/review-compare.js';
export { reviewComparisonTable } from './review/review-compare-table.js';
