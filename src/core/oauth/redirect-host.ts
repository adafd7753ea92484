/**
 * How the consent page names where an answer goes. A registered redirect on `https://clаude.ai/...` (a Cyrillic "а")
 * reads as claude.ai to a person; its ASCII form (`xn--clude-4qf.ai`) does not. So the page shows the host in ASCII,
 * prominently, and warns when a host is internationalized, and louder when one of its labels mixes scripts (the
 * look-alike trick of UTS #39; Latin with Han and kana, Bopomofo or Hangul is ordinary writing, not a mix).
 */
import { domainToUnicode } from 'node:url';

export interface RedirectTarget {
  /** The host as the browser will resolve it: ASCII, punycode labels as `xn--`; for a private-use scheme its scheme. */
  host: string;
  /** The whole redirect in ASCII form (what the browser is sent to). */
  href: string;
  /** The host as Unicode, when it differs from `host`. */
  unicodeHost?: string;
  /** What a person should be told about this host, most serious first; none for an ordinary ASCII host. */
  warnings: string[];
}

const SCRIPTS = ['Latin', 'Cyrillic', 'Greek', 'Armenian', 'Georgian', 'Hebrew', 'Arabic', 'Devanagari', 'Thai', 'Han', 'Hiragana', 'Katakana', 'Hangul', 'Bopomofo', 'Cherokee'] as const;
type Script = (typeof SCRIPTS)[number];
const SCRIPT_PATTERNS = new Map<Script, RegExp>(SCRIPTS.map((s) => [s, new RegExp(`\\p{Script=${s}}`, 'u')]));

/** Script sets that are one writing system, not a mix (UTS #39 "highly restrictive"). */
const ALLOWED_MIXES: readonly (readonly Script[])[] = [
  ['Latin', 'Han', 'Hiragana', 'Katakana'],
  ['Latin', 'Han', 'Bopomofo'],
  ['Latin', 'Han', 'Hangul'],
];

/** The scripts of a label's letters (digits, hyphens and marks belong to none). */
export function scriptsOf(label: string): Set<Script | 'Other'> {
  const found = new Set<Script | 'Other'>();
  for (const char of label) {
    if (!/\p{L}/u.test(char)) continue;
    const script = SCRIPTS.find((s) => SCRIPT_PATTERNS.get(s)?.test(char));
    found.add(script ?? 'Other');
  }
  return found;
}

function mixesScripts(label: string): boolean {
  const scripts = [...scriptsOf(label)];
  if (scripts.length <= 1) return false;
  return !ALLOWED_MIXES.some((allowed) => scripts.every((s) => (allowed as readonly string[]).includes(s)));
}

export function redirectTarget(redirectUri: string): RedirectTarget {
  const url = new URL(redirectUri);
  if (url.hostname === '') return { host: url.protocol, href: url.href, warnings: [] };
  // WHATWG URL parsing has already turned the host into ASCII (punycode labels).
  const host = url.hostname;
  const unicodeHost = domainToUnicode(host);
  const warnings: string[] = [];
  if (unicodeHost !== '' && unicodeHost !== host) {
    const mixed = unicodeHost.split('.').filter(mixesScripts);
    if (mixed.length > 0) {
      warnings.push(`The address mixes alphabets in "${mixed.join('", "')}": it may be made to look like another site. Its real name is ${host}.`);
    }
    warnings.push(`The address is internationalized: it is ${host}, however it looks written out (${unicodeHost}).`);
  }
  return { host, href: url.href, ...(unicodeHost !== host && unicodeHost !== '' ? { unicodeHost } : {}), warnings };
}
