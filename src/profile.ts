import { envSwitch } from './environment.js';

/**
 * Where a run's time goes, for people tuning it: with CARRIER_PROFILE=1 each phase of the run
 * prints a line to stderr, `profile <ms since process start> <phase>`. Off, it costs nothing.
 */
const enabled = envSwitch('CARRIER_PROFILE');

export function mark(phase: string): void {
  if (enabled) process.stderr.write(`profile ${Math.round(performance.now())} ${phase}\n`);
}
