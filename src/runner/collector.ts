import type { Reporter, TestModule } from 'vitest/node';
import type { CheckMeta } from '../battery/check.js';
import { mark } from '../core/startup-timing.js';

/**
 * A Vitest reporter that collects what each check left in its test's meta. It is the only
 * reporter of the battery's Vitest instance: reports are written by the harness (src/report),
 * not by Vitest, so that every consumer gets the shape it needs.
 */

export interface CollectedTest {
  checkId: string;
  state: 'passed' | 'failed' | 'skipped' | 'pending';
  /** The reason given to ctx.skip(). */
  note?: string;
  /** Messages of the errors Vitest saw (a timeout, a throw outside the check's control). */
  errors: string[];
  meta?: CheckMeta;
  durationMs: number;
}

export interface Collected {
  tests: Map<string, CollectedTest>;
  /** Suite files that failed to load: suite name → the error. */
  moduleErrors: Map<string, string>;
  unhandledErrors: string[];
  /** Vitest's reason for ending the run, e.g. 'interrupted'. */
  reason?: string;
  /** Token requests the checks made to renew the shared token. */
  sharedTokenRequests?: number;
}

/** The check id a test of the battery is named after: "<ID> <title>". */
export function checkIdOfTestName(name: string): string | undefined {
  return /^([A-Z]+(?:-[A-Z0-9]+)+) /.exec(name)?.[1];
}

export class CheckCollector implements Reporter {
  readonly collected: Collected = { tests: new Map(), moduleErrors: new Map(), unhandledErrors: [] };
  #runStarted!: () => void;
  /** Resolves when Vitest starts the run: its workers are being spawned. */
  readonly runStarted = new Promise<void>((resolve) => (this.#runStarted = resolve));

  onTestRunStart(): void {
    mark('battery: run started');
    this.#runStarted();
  }

  #checksStarted!: () => void;
  /** Resolves when a battery file starts running its checks (its modules loaded, its tests collected). */
  readonly checksStarted = new Promise<void>((resolve) => (this.#checksStarted = resolve));

  onTestModuleStart(module: TestModule): void {
    mark(`battery: ${module.relativeModuleId} started`);
    this.#checksStarted();
  }

  onTestModuleEnd(module: TestModule): void {
    mark(`battery: ${module.relativeModuleId} ended`);
  }

  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<{ message?: string }>,
    reason: string,
  ): void {
    this.collected.reason = reason;
    for (const error of unhandledErrors) this.collected.unhandledErrors.push(messageWithCauses(error));
    for (const module of testModules) {
      const errors = module.errors();
      // Keyed by suite, or BATTERY_ENTRY for the file that runs every suite but expiry.
      const file = /([a-z]+)\.test\.[jt]s$/.exec(module.moduleId)?.[1] ?? module.relativeModuleId;
      if (errors.length > 0) this.collected.moduleErrors.set(file, errors.map((e) => e.message).join('; '));
      for (const test of module.children.allTests()) {
        const meta = test.meta().carrier;
        if (meta)
          this.collected.sharedTokenRequests = (this.collected.sharedTokenRequests ?? 0) + meta.sharedTokenRequests;
        const checkId = meta?.checkId ?? checkIdOfTestName(test.name);
        if (!checkId) continue;
        const result = test.result();
        this.collected.tests.set(checkId, {
          checkId,
          state: result.state,
          ...(result.state === 'skipped' && result.note !== undefined ? { note: result.note } : {}),
          errors: (result.errors ?? []).map((e) => e.message),
          ...(meta ? { meta } : {}),
          // The check's own time (CheckMeta.ownMs), else Vitest's: started with every other check, it includes their turns.
          durationMs: meta?.ownMs ?? test.diagnostic()?.duration ?? 0,
        });
      }
    }
  }
}

/**
 * An error's message followed by its causes': Vitest says why a worker did not start (a Node
 * option that worker threads refuse, say) only in the cause of "Failed to start threads worker".
 */
export function messageWithCauses(error: unknown): string {
  const messages: string[] = [];
  // Bounded: a serialized cause chain can be cyclic.
  for (
    let e = error, depth = 0;
    typeof e === 'object' && e !== null && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && message !== '' && !messages.includes(message)) messages.push(message);
  }
  return messages.length > 0 ? messages.join(' ') : 'an error without a message';
}
