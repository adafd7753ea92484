import { describe, expect, it } from 'vitest';
import { MemoryError } from '../../../src/core/errors.js';
import { isConnectionBroken, translatePgError, unavailableRetrySeconds } from '../../../src/storage/postgres/errors.js';
import { isPostgresUrl, maskDatabaseUrl } from '../../../src/storage/postgres/url.js';
import { openPgStore } from '../../../src/storage/postgres/index.js';
import { usableTerm } from '../../../src/storage/postgres/words.js';

describe('maskDatabaseUrl', () => {
  it.each([
    ['postgres://agent:s3cret@db.example:5432/memories', 'postgres://agent:***@db.example:5432/memories'],
    ['postgresql://agent:p%40ss%3Aword@db/x?sslmode=require', 'postgresql://agent:***@db/x?sslmode=require'],
    ['postgres://agent@db/x?password=s3cret&application_name=a', 'postgres://agent@db/x?password=***&application_name=a'],
    ['postgres://db/x', 'postgres://db/x'],
  ])('masks %s', (url, masked) => {
    expect(maskDatabaseUrl(url)).toBe(masked);
  });

  it('masks what does not parse as a URL, too', () => {
    expect(maskDatabaseUrl('postgres://agent:s3cret@[bad host/x')).not.toContain('s3cret');
    expect(maskDatabaseUrl('host=db user=agent password=s3cret dbname=x')).toBe('host=db user=agent password=*** dbname=x');
    expect(maskDatabaseUrl("host=db password='s3 cret' dbname=x")).not.toContain('s3');
  });

  it('selects the backend by scheme', () => {
    expect(isPostgresUrl('postgres://db/x')).toBe(true);
    expect(isPostgresUrl('PostgreSQL://db/x')).toBe(true);
    expect(isPostgresUrl('./data/memory.db')).toBe(false);
    expect(isPostgresUrl('mysql://db/x')).toBe(false);
  });
});

describe('word query', () => {
  it('drops what cannot match', () => {
    expect(usableTerm(' ')).toBeUndefined();
    expect(usableTerm('a\u0000b')).toBe('ab');
    expect(usableTerm('\u0000')).toBeUndefined();
  });
});

describe('driver error translation', () => {
  const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

  it.each([
    ['refused', withCode('ECONNREFUSED')],
    ['admin shutdown', withCode('57P01')],
    ['connection exception class', withCode('08006')],
    ['bad password', withCode('28P01')],
    ['statement timeout', withCode('57014')],
    ['pool timeout', new Error('timeout exceeded when trying to connect')],
    ['terminated', new Error('Connection terminated unexpectedly')],
    ['client timeout', new Error('Query read timeout')],
    ['happy eyeballs', new AggregateError([withCode('ECONNREFUSED')], 'connect failed')],
  ])('%s is unavailable', (_name, error) => {
    expect(unavailableRetrySeconds(error)).toBeGreaterThan(0);
    expect(() => translatePgError(error)).toThrow(MemoryError);
  });

  it('keeps other errors as they are, and a timed-out statement leaves its connection usable', () => {
    const unique = withCode('23505');
    expect(() => translatePgError(unique)).toThrow(unique);
    expect(isConnectionBroken(withCode('57014'))).toBe(false);
    expect(isConnectionBroken(new Error('Query read timeout'))).toBe(true);
  });
});

describe('openPgStore with a malformed URL', () => {
  it('names the URL masked and carries nothing that holds the password', async () => {
    const error = await openPgStore('postgres://agent:hunter2@[bad/x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain('postgres://agent:***@');
    expect(JSON.stringify(error)).not.toContain('hunter2');
    expect(String((error as Error).stack)).not.toContain('hunter2');
    expect((error as Error).cause).toBeUndefined();
  });
});
