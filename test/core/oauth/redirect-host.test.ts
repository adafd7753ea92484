import { describe, expect, it } from 'vitest';
import { redirectTarget, scriptsOf } from '../../../src/core/oauth/redirect-host.js';

describe('the redirect host the consent page shows', () => {
  it('shows a look-alike host in its ASCII form and warns that it mixes alphabets', () => {
    const t = redirectTarget('https://cl\u0430ude.ai/api/mcp/auth_callback');
    expect(t.host).toBe('xn--clude-5ve.ai');
    expect(t.href).toBe('https://xn--clude-5ve.ai/api/mcp/auth_callback');
    expect(t.unicodeHost).toBe('cl\u0430ude.ai');
    expect(t.warnings[0]).toMatch(/mixes alphabets .*xn--clude-5ve\.ai/);
    expect(t.warnings[1]).toMatch(/internationalized/);
  });

  it('warns for an internationalized host in one script, and not at all for an ASCII one', () => {
    const german = redirectTarget('https://m\u00fcnchen.de/cb');
    expect(german.host).toBe('xn--mnchen-3ya.de');
    expect(german.warnings).toHaveLength(1);
    expect(german.warnings[0]).toMatch(/internationalized/);
    expect(redirectTarget('https://claude.ai/api/mcp/auth_callback')).toEqual({ host: 'claude.ai', href: 'https://claude.ai/api/mcp/auth_callback', warnings: [] });
    expect(redirectTarget('http://127.0.0.1:33418/cb').warnings).toEqual([]);
    expect(redirectTarget('com.example.app:/cb')).toEqual({ host: 'com.example.app:', href: 'com.example.app:/cb', warnings: [] });
  });

  it('takes Latin with Han and kana as one writing, Latin with Cyrillic or Greek as a mix', () => {
    expect(redirectTarget('https://\u4f8b\u3048abc.jp/').warnings).toHaveLength(1);
    expect(redirectTarget('https://p\u03b1ypal.com/').warnings[0]).toMatch(/mixes alphabets/);
    expect([...scriptsOf('cl\u0430ude')].sort()).toEqual(['Cyrillic', 'Latin']);
    expect([...scriptsOf('a-1')]).toEqual(['Latin']);
  });
});
