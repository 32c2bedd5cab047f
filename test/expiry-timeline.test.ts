import { describe, expect, it } from 'vitest';
import { reissuedAfterExpiry } from '../src/battery/expiry.js';

// The runner's token: asked for at 0, received at 100 ms, expires_in 3 s. It may have expired from
// 2000 ms (whole-second rounding) and must be refused from 4100 ms (3100 + 1 s, margin 0).
const runners = { token: 'tok', expiresIn: 3, sentAt: 0, receivedAt: 100 };
const again = (sentAt: number, status: number, expiresIn = 3, answeredAfterMs = 20) => ({
  token: 'tok',
  expiresIn,
  sentAt,
  first: { status, receivedAt: sentAt + answeredAfterMs },
});

describe('a renewal that hands back the runner token (EXPIRY-RENEW, whenever the suite starts)', () => {
  it('fails when asked for after the runner token must be refused, and refused', () => {
    expect(reissuedAfterExpiry(runners, again(5000, 401), 0)).toEqual({ secondsAfter: 4, expiresIn: 3 });
  });

  it('fails between expiry and the deadline when refused while its own expires_in still vouches for it', () => {
    expect(reissuedAfterExpiry(runners, again(3500, 401), 0)).toEqual({ secondsAfter: 3, expiresIn: 3 });
  });

  it('is not a failed renewal when the reissue declares what is left of the lifetime and is refused once that runs out', () => {
    expect(reissuedAfterExpiry(runners, again(3500, 401, 0), 0)).toBeUndefined();
    expect(reissuedAfterExpiry(runners, again(3500, 401, 1, 1100), 0)).toBeUndefined();
  });

  it('is not a renewal at all before the runner token may have expired', () => {
    expect(reissuedAfterExpiry(runners, again(1500, 401), 0)).toBeUndefined();
  });

  it('is nothing to report when the reissued token works, or when the token is a new one', () => {
    expect(reissuedAfterExpiry(runners, again(5000, 200), 0)).toBeUndefined();
    expect(reissuedAfterExpiry(runners, { ...again(5000, 401), token: 'other' }, 0)).toBeUndefined();
  });

  it('counts the clock margin in the deadline', () => {
    expect(reissuedAfterExpiry(runners, again(5000, 401, 0), 2)).toBeUndefined();
    expect(reissuedAfterExpiry(runners, again(6200, 401, 0), 2)).toEqual({ secondsAfter: 6, expiresIn: 3 });
  });
});
