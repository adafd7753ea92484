/**
 * Database URLs carry passwords. Nothing in this backend prints, logs or throws a URL that has not been through
 * maskDatabaseUrl first.
 */

/** True for the URLs that select the PostgreSQL backend (`postgres://` or `postgresql://`). */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value.trim());
}

const MASK = '***';
/** Query parameters that libpq and pg accept as secrets. */
const SECRET_PARAMS = new Set(['password', 'sslpassword', 'sslkey', 'passfile']);

/**
 * The URL with its password (in the userinfo or as a `password=` parameter) replaced by `***`, for logs and error
 * messages. Anything that does not parse as a URL is masked by pattern instead, erring towards hiding too much:
 * a malformed URL is exactly the kind that ends up in an error message.
 */
export function maskDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = MASK;
    for (const name of [...parsed.searchParams.keys()]) {
      if (SECRET_PARAMS.has(name.toLowerCase())) parsed.searchParams.set(name, MASK);
    }
    // URLSearchParams percent-encodes the mask; keep it readable.
    return parsed.toString().replaceAll('%2A%2A%2A', MASK);
  } catch {
    return url
      .replace(/(\/\/[^:/?#@\s]*:)[^@\s]*@/g, `$1${MASK}@`)
      .replace(/((?:^|[\s?&;])(?:ssl)?password\s*=\s*)('[^']*'|[^\s&;]*)/gi, `$1${MASK}`);
  }
}
