/**
 * The entry the harness runs: every suite but expiry, imported into one Vitest file, so that
 * their checks run concurrently (sibling `describe.concurrent` blocks of one file run in
 * parallel; separate files would run one after another in the worker). Each area keeps its own
 * file and can still be run alone. Expiry, which waits, runs as its own file in its own worker.
 *
 * The suites come through one module (every-suite.ts). Vite serves this file to the worker from
 * the main thread, and each of its imports after it, one at a time; at that point the main thread
 * preflights the target, and the ten imports waited on it. One import waits once.
 */
import './every-suite.js';
