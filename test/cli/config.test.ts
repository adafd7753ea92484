import { describe, expect, it } from 'vitest';
import { runtimeConfig, serveConfig } from '../../src/cli/config.js';
import { ConfigError } from '../../src/runtime/config.js';
import { defaultWorkerCount, MAX_DEFAULT_WORKERS } from '../../src/embeddings/embed-pool.js';

describe('embedding workers setting', () => {
  it('takes --embed-workers before MEMORY_EMBED_WORKERS, and leaves the default to the cores when neither is set', () => {
    expect(runtimeConfig({ 'embed-workers': '3' }, { MEMORY_EMBED_WORKERS: '2' }).embedWorkers).toBe(3);
    expect(runtimeConfig({}, { MEMORY_EMBED_WORKERS: '2' }).embedWorkers).toBe(2);
    expect(runtimeConfig({}, { MEMORY_EMBED_WORKERS: '' }).embedWorkers).toBeUndefined();
    expect(runtimeConfig({}, {}).embedWorkers).toBeUndefined();
    expect(defaultWorkerCount()).toBeGreaterThanOrEqual(1);
    expect(defaultWorkerCount()).toBeLessThanOrEqual(MAX_DEFAULT_WORKERS);
  });

  it('refuses a count that is not an integer from 1 to 64, naming the setting', () => {
    for (const bad of ['0', '65', '1.5', 'two', '-1']) {
      expect(() => runtimeConfig({ 'embed-workers': bad }, {})).toThrow(ConfigError);
    }
    expect(() => runtimeConfig({}, { MEMORY_EMBED_WORKERS: 'x' })).toThrow('MEMORY_EMBED_WORKERS must be an integer from 1 to 64, not "x".');
  });
});

describe('the OAuth settings', () => {
  it('is off by default, and on with --oauth or MEMORY_OAUTH=1 and a public URL', () => {
    expect(serveConfig({}, {}).oauth).toBeUndefined();
    expect(serveConfig({}, { MEMORY_PUBLIC_URL: 'https://m.example.com' }).oauth).toBeUndefined();
    expect(serveConfig({ oauth: true, 'public-url': 'https://m.example.com' }, {}).oauth?.publicUrl).toBe('https://m.example.com');
    expect(serveConfig({}, { MEMORY_OAUTH: '1', MEMORY_PUBLIC_URL: 'http://127.0.0.1:8787' }).oauth?.publicUrl).toBe('http://127.0.0.1:8787');
    expect(serveConfig({}, { MEMORY_OAUTH: '1', MEMORY_PUBLIC_URL: 'http://[::1]:8787', MEMORY_OAUTH_ACCESS_TTL: '120' }).oauth?.accessTtlSeconds).toBe(120);
  });

  it('refuses OAuth without a public URL, over plain http off loopback, or with a path', () => {
    expect(() => serveConfig({ oauth: true }, {})).toThrow('--oauth needs the URL clients reach this server at');
    expect(() => serveConfig({ oauth: true, 'public-url': 'http://memory.example.com' }, {})).toThrow('must be https (plain http only on loopback)');
    expect(() => serveConfig({ oauth: true, 'public-url': 'http://10.0.0.5:8787' }, {})).toThrow(ConfigError);
    expect(() => serveConfig({ oauth: true, 'public-url': 'https://m.example.com/memory' }, {})).toThrow('an origin only');
    expect(() => serveConfig({ oauth: true, 'public-url': 'not a url' }, {})).toThrow('not an absolute URL');
    expect(() => serveConfig({}, { MEMORY_OAUTH: '1', MEMORY_PUBLIC_URL: 'https://m.example.com', MEMORY_OAUTH_ACCESS_TTL: '5' })).toThrow(ConfigError);
  });
});

describe('metrics token setting', () => {
  it('takes --metrics-token before MEMORY_METRICS_TOKEN; none (or empty) means no /metrics', () => {
    expect(serveConfig({ 'metrics-token': 'a'.repeat(16) }, { MEMORY_METRICS_TOKEN: 'b'.repeat(16) }).metricsToken).toBe('a'.repeat(16));
    expect(serveConfig({}, { MEMORY_METRICS_TOKEN: 'b'.repeat(20) }).metricsToken).toBe('b'.repeat(20));
    expect(serveConfig({}, { MEMORY_METRICS_TOKEN: '' }).metricsToken).toBeUndefined();
    expect(serveConfig({}, {}).metricsToken).toBeUndefined();
  });

  it('refuses a token shorter than 16 characters or with spaces', () => {
    for (const bad of ['short', 'a'.repeat(15), `${'a'.repeat(10)} ${'b'.repeat(10)}`]) {
      expect(() => serveConfig({ 'metrics-token': bad }, {})).toThrow(ConfigError);
    }
  });
});

describe('embedding endpoint setting', () => {
  it('takes --embed-url before MEMORY_EMBED_URL, the key from MEMORY_EMBED_API_KEY only, and prefix overrides', () => {
    const env = { MEMORY_EMBED_URL: 'http://10.0.0.1:11434/v1', MEMORY_EMBED_MODEL: 'bge-m3', MEMORY_EMBED_API_KEY: 'sk-x', MEMORY_EMBED_QUERY_PREFIX: '' };
    expect(runtimeConfig({}, env)).toMatchObject({ model: 'bge-m3', endpoint: { url: 'http://10.0.0.1:11434/v1', apiKey: 'sk-x', queryPrefix: '' } });
    expect(runtimeConfig({ 'embed-url': 'https://api.openai.com/v1', model: 'text-embedding-3-small' }, env)).toMatchObject({
      model: 'text-embedding-3-small',
      endpoint: { url: 'https://api.openai.com/v1' },
    });
    expect(runtimeConfig({}, { MEMORY_EMBED_URL: '' }).endpoint).toBeUndefined();
    expect(runtimeConfig({}, {}).endpoint).toBeUndefined();
  });

  it('refuses a URL that is not http(s), and an endpoint without a model name', () => {
    expect(() => runtimeConfig({ 'embed-url': 'ftp://x/v1', model: 'm' }, {})).toThrow(/must be an http\(s\) URL/);
    expect(() => runtimeConfig({ 'embed-url': 'not a url', model: 'm' }, {})).toThrow(ConfigError);
    expect(() => runtimeConfig({ 'embed-url': 'http://127.0.0.1:11434/v1' }, {})).toThrow(/needs the model served there/);
  });
});
