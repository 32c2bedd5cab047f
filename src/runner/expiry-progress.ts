/**
 * Progress while a run waits out a token's lifetime (issue 31): a certifying run proves expiry with
 * a real lifetime (expires_in 3600 and --max-expiry-wait 3600), and a CI system that kills a job
 * silent for 10 minutes must hear from it. The expiry suite waits on the token the runner's
 * preflight obtained (src/battery/expiry.ts: "built on the token the runner obtained"), so this
 * thread knows when that token expires without asking the workers: it prints, at a steady pace,
 * what the run waits for and how long is left, until the token has expired or the battery ends.
 *
 * Output only: no verdict depends on it. A run whose wait is shorter than one interval prints
 * nothing. CARRIER_PROGRESS_INTERVAL (seconds, default 30) sets the pace, for tests.
 */

export const DEFAULT_PROGRESS_INTERVAL_SECONDS = 30;

/** The pace, from CARRIER_PROGRESS_INTERVAL when it is a positive number of seconds. */
export function progressIntervalMs(env: NodeJS.ProcessEnv = process.env): number {
  const given = Number(env.CARRIER_PROGRESS_INTERVAL);
  return (Number.isFinite(given) && given > 0 ? given : DEFAULT_PROGRESS_INTERVAL_SECONDS) * 1000;
}

export interface ExpiryWait {
  /** When the preflight's token arrived (epoch ms), and its expires_in (seconds). */
  receivedAt: number;
  expiresIn: number;
  /** --max-expiry-wait: a longer lifetime is not waited out (the expiry checks say so). */
  maxExpiryWaitSeconds: number;
  /** --expiry-margin: the server's clock margin after expiry. */
  marginSeconds: number;
  /** The expiry checks the run waits for (selected ones only). */
  checks: readonly string[];
}

/**
 * Starts printing progress lines with `print`; the returned function stops it. Nothing is started
 * when no expiry check is selected or the lifetime is longer than --max-expiry-wait (then nothing
 * waits for it).
 */
export function reportExpiryWait(
  wait: ExpiryWait,
  print: (line: string) => void,
  intervalMs = progressIntervalMs(),
  now: () => number = Date.now,
): () => void {
  if (wait.checks.length === 0 || wait.expiresIn > wait.maxExpiryWaitSeconds) return () => undefined;
  // As src/battery/expiry.ts mustBeRefusedFrom: a second of rounding and the margin after expires_in.
  const until = wait.receivedAt + (wait.expiresIn + 1 + wait.marginSeconds) * 1000;
  const timer = setInterval(() => {
    const left = Math.ceil((until - now()) / 1000);
    if (left <= 0) {
      clearInterval(timer);
      return;
    }
    print(
      `waiting for the access token to expire (expires_in ${wait.expiresIn} s) for ${wait.checks.join(', ')}: ${left} s left`,
    );
  }, intervalMs);
  // Never what keeps the process alive.
  timer.unref();
  return () => clearInterval(timer);
}
