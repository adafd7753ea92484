/**
 * Dates named in a query ("on 9 November, 2022", "in August 2023", "2023-05-07"). A memory stored on the named day
 * or in the named month is more likely to be the one meant: people and agents ask "what did I say on March 3".
 * Only explicit calendar dates count; relative ones ("last week") would need the asker's clock and time zone.
 */

const MONTHS = [
  'january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december',
];
const MONTH_ALIASES = new Map<string, number>([
  ...MONTHS.map((m, i) => [m, i] as [string, number]),
  ...MONTHS.map((m, i) => [m.slice(0, 3), i] as [string, number]),
  ['sept', 8],
]);
const MONTH = `(${[...MONTH_ALIASES.keys()].sort((a, b) => b.length - a.length).join('|')})\\.?`;
const DAY = '(\\d{1,2})(?:st|nd|rd|th)?';
const YEAR = '(\\d{4})';

/** A span of whole UTC days, inclusive, as epoch milliseconds at midnight. */
export interface DateSpan {
  from: number;
  to: number;
}

const DAY_MS = 86_400_000;

function day(year: number, month: number, date: number): number | undefined {
  const t = Date.UTC(year, month, date);
  const d = new Date(t);
  // Reject impossible dates ("31 February") instead of letting Date roll them over.
  return d.getUTCMonth() === month && d.getUTCDate() === date ? t : undefined;
}

const PATTERNS: readonly { re: RegExp; span: (m: RegExpExecArray) => DateSpan | undefined }[] = [
  {
    // 2023-05-07
    re: /\b(\d{4})-(\d{2})-(\d{2})\b/,
    span: (m) => single(day(Number(m[1]), Number(m[2]) - 1, Number(m[3]))),
  },
  {
    // 7 May 2023, 7th May, 2023
    re: new RegExp(`\\b${DAY}\\s+(?:of\\s+)?${MONTH},?\\s+${YEAR}\\b`, 'i'),
    span: (m) => single(day(Number(m[3]), monthIndex(m[2]), Number(m[1]))),
  },
  {
    // May 7, 2023; May 7 2023
    re: new RegExp(`\\b${MONTH}\\s+${DAY},?\\s+${YEAR}\\b`, 'i'),
    span: (m) => single(day(Number(m[3]), monthIndex(m[1]), Number(m[2]))),
  },
  {
    // May 2023, May, 2023
    re: new RegExp(`\\b${MONTH},?\\s+${YEAR}\\b`, 'i'),
    span: (m) => {
      const year = Number(m[2]);
      const month = monthIndex(m[1]);
      const from = day(year, month, 1);
      if (from === undefined) return undefined;
      return { from, to: Date.UTC(year, month + 1, 1) - DAY_MS };
    },
  },
];

function monthIndex(name: string | undefined): number {
  return MONTH_ALIASES.get((name ?? '').toLowerCase()) ?? -1;
}

function single(t: number | undefined): DateSpan | undefined {
  return t === undefined ? undefined : { from: t, to: t };
}

/** Every explicit date (day or month) a text names, e.g. a memory that says "moved to Lisbon in March 2025". */
export function dateSpansIn(text: string): DateSpan[] {
  const spans: DateSpan[] = [];
  // Day patterns come first in PATTERNS: a day found there also matches the month pattern, which adds nothing.
  for (const { re, span } of PATTERNS) {
    const global = new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`);
    for (const m of text.matchAll(global)) {
      const s = span(m as RegExpExecArray);
      if (s !== undefined) spans.push(s);
    }
  }
  return spans;
}

/** True when two spans of days overlap. */
export function overlaps(a: DateSpan, b: DateSpan): boolean {
  return a.from <= b.to && b.from <= a.to;
}

/** The first explicit date (day or month) the query names, if any. */
export function dateSpanOf(query: string): DateSpan | undefined {
  for (const { re, span } of PATTERNS) {
    const m = re.exec(query);
    if (m) {
      const s = span(m);
      if (s !== undefined) return s;
    }
  }
  return undefined;
}

/**
 * True when an ISO timestamp falls in the span, widened by one day on each side: the span is the asker's
 * calendar day, the timestamp is UTC, and the two may differ by a time zone.
 */
export function inSpan(iso: string, span: DateSpan): boolean {
  const t = Date.parse(iso);
  return Number.isFinite(t) && t >= span.from - DAY_MS && t < span.to + 2 * DAY_MS;
}
