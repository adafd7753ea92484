import { describe, expect, it } from 'vitest';
import { TokenBucketRateLimiter } from '../../src/core/rate-limit.js';

describe('TokenBucketRateLimiter', () => {
  it('allows a burst, refuses, and refills over time', async () => {
    let now = 0;
    const limiter = new TokenBucketRateLimiter({ perMinute: 60, burst: 3, now: () => now });
    const taken = [];
    for (let i = 0; i < 4; i++) taken.push((await limiter.take('k'))?.allowed);
    expect(taken).toEqual([true, true, true, false]);
    const refused = await limiter.take('k');
    expect(refused?.retryAfterSeconds).toBe(1);
    now += 1_000;
    expect((await limiter.take('k'))?.allowed).toBe(true);
    expect((await limiter.take('other'))?.allowed).toBe(true);
  });

  it('is off at 0', async () => {
    expect(await new TokenBucketRateLimiter({ perMinute: 0 }).take('k')).toBeNull();
  });
});
