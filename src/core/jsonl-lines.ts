import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';

/** One line of a JSONL input: its text, or why it has none. */
export interface JsonlLine {
  /** From 1. */
  lineNo: number;
  /** The line without its line break (and without a UTF-8 BOM on the first line); undefined when `problem` is set. */
  raw: string | undefined;
  problem?: 'too-long' | 'not-utf8' | 'too-deep';
  /** Bytes of the input up to the end of this line, its line break included. */
  endOffset: number;
}

const NEWLINE = 0x0a;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Splits a byte stream into lines without ever holding more than `maxLineBytes` of one line: a longer line is
 * skipped to its end and reported as `too-long` (a multi-gigabyte line without a break used to be read whole).
 * Each line is checked to be UTF-8 before it is decoded (else `not-utf8`, never silently U+FFFD), `\r\n` is
 * accepted, and a UTF-8 byte order mark at the start of the input is dropped.
 */
export async function* readJsonlLines(input: Readable, maxLineBytes: number): AsyncGenerator<JsonlLine> {
  let parts: Buffer[] = [];
  let length = 0;
  let tooLong = false;
  let offset = 0;
  let lineNo = 0;

  const finish = (): JsonlLine => {
    lineNo++;
    const line: JsonlLine = { lineNo, raw: undefined, endOffset: offset };
    if (tooLong) return { ...line, problem: 'too-long' };
    let bytes = Buffer.concat(parts, length);
    if (lineNo === 1 && bytes.subarray(0, 3).equals(BOM)) bytes = bytes.subarray(3);
    if (bytes.at(-1) === 0x0d) bytes = bytes.subarray(0, -1);
    if (!isUtf8(bytes)) return { ...line, problem: 'not-utf8' };
    return { ...line, raw: bytes.toString('utf8') };
  };

  const take = (chunk: Buffer) => {
    if (tooLong) return;
    if (length + chunk.length > maxLineBytes) {
      tooLong = true;
      parts = [];
      length = 0;
      return;
    }
    parts.push(chunk);
    length += chunk.length;
  };

  for await (const data of input) {
    const chunk = typeof data === 'string' ? Buffer.from(data) : (data as Buffer);
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      take(chunk.subarray(start, end));
      offset += end + 1 - start;
      yield finish();
      parts = [];
      length = 0;
      tooLong = false;
      start = end + 1;
    }
    take(chunk.subarray(start));
    offset += chunk.length - start;
  }
  if (length > 0 || tooLong) yield finish();
}
