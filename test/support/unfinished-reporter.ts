/**
 * Names the test files that never finished. When a Vitest worker process dies (a native crash, an
 * exit, a signal), Vitest 4 says only "Worker exited unexpectedly", without the file, its exit
 * code or its signal (vitest-dev/vitest#10894), and the file's tests are merely missing from the
 * totals. This reporter prints, last (where a CI log's tail shows it), each file whose tests did
 * not all end, with the tests that were running when it stopped.
 */
import type { Reporter, TestCase, TestModule } from 'vitest/node';

const ENDED = new Set(['passed', 'failed', 'skipped']);

export default class UnfinishedReporter implements Reporter {
  private readonly running = new Map<string, Set<string>>();

  onTestCaseReady(test: TestCase): void {
    const file = test.module.relativeModuleId;
    const names = this.running.get(file) ?? new Set<string>();
    names.add(test.fullName);
    this.running.set(file, names);
  }

  onTestCaseResult(test: TestCase): void {
    this.running.get(test.module.relativeModuleId)?.delete(test.fullName);
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    for (const module of modules) {
      const tests = [...module.children.allTests()];
      const ended = tests.filter((t) => ENDED.has(t.result().state)).length;
      if (ENDED.has(module.state()) && ended === tests.length) continue;
      const file = module.relativeModuleId;
      const running = [...(this.running.get(file) ?? [])];
      lines.push(
        `unfinished test file: ${file}: ${ended} of ${tests.length} tests ended${running.length > 0 ? `; running when it stopped: ${running.map((n) => JSON.stringify(n)).join(', ')}` : ''}`,
      );
    }
    if (lines.length > 0) process.stderr.write(`\n${lines.join('\n')}\n`);
  }
}
