// A Jest reporter that appends one line per test file started and finished (and one when the run
// is complete) to the file CARAVEL_JEST_PROGRESS names. tools/scripts/jest.mjs reads it when a run
// overstays its ceiling, to say which files were still running, or when Jest finished but did not
// exit (a test left a process or socket open).
const { appendFileSync } = require('node:fs');

class ProgressReporter {
  constructor() {
    this.file = process.env.CARAVEL_JEST_PROGRESS;
  }

  write(line) {
    if (this.file) appendFileSync(this.file, `${Date.now()} ${line}\n`);
  }

  onTestFileStart(test) {
    this.write(`start ${test.path}`);
  }

  onTestFileResult(test) {
    this.write(`end ${test.path}`);
  }

  onRunComplete(_contexts, results) {
    // (`results.success` is set only after the reporters have run.)
    const passed =
      results.numFailedTests === 0 &&
      results.numFailedTestSuites === 0 &&
      results.numRuntimeErrorTestSuites === 0;
    this.write(`complete ${passed ? 1 : 0}`);
  }
}

module.exports = ProgressReporter;
