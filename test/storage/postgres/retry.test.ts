import { describe, expect, it } from 'vitest';
import { CONFLICT_RETRY, conflictDelayMs, isRetryableConflict, retryConflicts } from '../../../src/storage/postgres/retry.js';

const conflict = (code: string) => Object.assign(new Error(`sqlstate ${code}`), { code });

describe('retrying what PostgreSQL says to retry', () => {
  it('retries serialization failures and deadlocks only', () => {
    expect(isRetryableConflict(conflict('40001'))).toBe(true);
    expect(isRetryableConflict(conflict('40P01'))).toBe(true);
    for (const code of ['23505', '57014', '08006', '40002', '25P02']) expect(isRetryableConflict(conflict(code))).toBe(false);
    expect(isRetryableConflict(new Error('no code'))).toBe(false);
    expect(isRetryableConflict(null)).toBe(false);
  });

  it('waits a random pause under a cap that doubles per retry', () => {
    expect([1, 2, 3, 4, 5].map((n) => conflictDelayMs(n, 0.999))).toEqual([9, 19, 39, 79, 99]);
    expect(conflictDelayMs(3, 0)).toBe(0);
  });

  it("stops after the policy's tries and passes the last failure on; other failures are not retried", async () => {
    let calls = 0;
    const always = retryConflicts(() => {
      calls++;
      return Promise.reject(conflict('40P01'));
    });
    await expect(always).rejects.toMatchObject({ code: '40P01' });
    expect(calls).toBe(CONFLICT_RETRY.attempts);

    calls = 0;
    await expect(
      retryConflicts(() => {
        calls++;
        return Promise.reject(conflict('23505'));
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(calls).toBe(1);

    calls = 0;
    expect(await retryConflicts(() => (++calls < 3 ? Promise.reject(conflict('40001')) : Promise.resolve('done')))).toBe('done');
    expect(calls).toBe(3);
  });
});
