/**
 * Every suite but expiry, for the entry the harness runs (battery.test.ts). A plain module, not a
 * test file: in the CLI's runs Node loads it natively, as it loads the suites (Vitest's
 * `server.deps.external`, src/runner/vitest-run.ts), so that Vite serves the worker one file, the
 * entry, instead of the entry and then each of its imports (docs/design.md, *Start-up*).
 */
// First: with CARRIER_PROFILE=1 it marks when the worker has booted and starts loading the battery.
import '../src/core/startup-timing.js';
import './token.test.js';
import './auth.test.js';
import './versioning.test.js';
import './user.test.js';
import './legacy.test.js';
import './tenant.test.js';
import './writes.test.js';
import './pagination.test.js';
import './nulls.test.js';
import './resources.test.js';
// The team's own checks (--team-checks), when the run has any.
import './team.test.js';
import { afterAll } from 'vitest';
import { otherChecksDone, runsOtherChecks } from '../src/battery/observed-tokens.js';

// The expiry suite, in a worker of its own, probes a token too long-lived to wait out once these
// checks have ended (EXPIRY-VALID-BEFORE, judgeObservedPart in src/battery/expiry.ts).
runsOtherChecks();
afterAll(otherChecksDone);
