/**
 * Prints one closing line "N passed, N failed, N skipped" after the whole run, so that CI and
 * people reading a log see the totals in one place (Jest's own summary spreads them out).
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests, numFailedTestSuites, numRuntimeErrorTestSuites } = results;
    const brokenSuites = numFailedTestSuites + numRuntimeErrorTestSuites > 0 && numFailedTests === 0 ? 1 : 0;
    process.stdout.write(`\n${numPassedTests} passed, ${numFailedTests + brokenSuites} failed, ${numPendingTests + numTodoTests} skipped\n`);
  }
}
module.exports = SummaryReporter;
