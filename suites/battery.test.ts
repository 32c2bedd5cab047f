/**
 * The entry the harness runs: every suite but expiry, imported into one Vitest file, so that
 * their checks run concurrently (sibling `describe.concurrent` blocks of one file run in
 * parallel; separate files would run one after another in the worker). Each area keeps its own
 * file and can still be run alone. Expiry, which waits, runs as its own file in its own worker.
 */
// First: with CARRIER_PROFILE=1 it marks when the worker has booted and starts loading the battery.
import '../src/profile.js';
import './token.test.js';
import './auth.test.js';
import './versioning.test.js';
import './user.test.js';
import './legacy.test.js';
import './tenant.test.js';
import './pagination.test.js';
import './nulls.test.js';
import './resources.test.js';
