/**
 * Hamming distances from one query code to many stored codes: the inner loop of the vector pre-filter
 * (vector-search.ts). A tiny WebAssembly function does it with 64-bit popcount, about ten times faster than the
 * best JS (which has no popcount instruction); the module is assembled here, byte by byte, for the code length in
 * use, so there is no build step and no dependency. JS stays as the fallback and the reference.
 */

export interface HammingTable {
  readonly count: number;
  /** The stored codes' bytes: code i at i x words x 4, little-endian words (byte b holds dimensions 8b to 8b+7). */
  readonly codeBytes: Uint8Array;
  /** Distance of every stored code to `query` (same word count), in storage order. Valid until the next call. */
  distances(query: Uint32Array): Uint16Array;
}

function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

/** Plain JS: any word count. */
export function jsHammingTable(codes: Uint32Array, words: number, count: number): HammingTable {
  const out = new Uint16Array(count);
  return {
    count,
    codeBytes: new Uint8Array(codes.buffer, codes.byteOffset, count * words * 4),
    distances(q) {
      for (let i = 0, o = 0; i < count; i++, o += words) {
        let d = 0;
        for (let w = 0; w < words; w++) d += popcount32(codes[o + w]! ^ q[w]!);
        out[i] = d;
      }
      return out;
    },
  };
}

// ---- WebAssembly ------------------------------------------------------------------------------------------------

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

function section(id: number, body: number[]): number[] {
  return [id, ...uleb(body.length), ...body];
}

function name(s: string): number[] {
  return [...uleb(s.length), ...[...s].map((c) => c.charCodeAt(0))];
}

/**
 * `h(codes, n, q, out)`: for i < n, out[i] (u16) = sum over the `words64` 64-bit words of popcnt(code_i ^ q), with
 * the query words held in locals and the loop body unrolled. Memory is imported as `e.m`.
 */
function assemble(words64: number): Uint8Array {
  const I32 = 0x7f;
  const I64 = 0x7e;
  const [CODES, N, Q, OUT, I, P] = [0, 1, 2, 3, 4, 5];
  const qLocal = (j: number) => 6 + j;
  const code: number[] = [];
  for (let j = 0; j < words64; j++) code.push(0x20, Q, 0x29, 3, ...uleb(8 * j), 0x21, qLocal(j)); // q_j = i64.load(q + 8j)
  code.push(0x20, CODES, 0x21, P); // p = codes
  code.push(0x41, 0, 0x21, I); // i = 0
  code.push(0x02, 0x40, 0x03, 0x40); // block, loop
  code.push(0x20, I, 0x20, N, 0x4f, 0x0d, 1); // if i >= n: break
  code.push(0x20, OUT, 0x20, I, 0x41, 1, 0x74, 0x6a); // address: out + (i << 1)
  for (let j = 0; j < words64; j++) {
    code.push(0x20, P, 0x29, 3, ...uleb(8 * j), 0x20, qLocal(j), 0x85, 0x7b); // popcnt(load(p + 8j) ^ q_j)
    if (j > 0) code.push(0x7c); // i64.add
  }
  code.push(0xa7, 0x3b, 1, 0); // i32.wrap_i64, i32.store16
  code.push(0x20, P, 0x41, ...sleb(8 * words64), 0x6a, 0x21, P); // p += 8 * words64
  code.push(0x20, I, 0x41, 1, 0x6a, 0x21, I); // i += 1
  code.push(0x0c, 0, 0x0b, 0x0b, 0x0b); // br loop; end loop; end block; end function
  const locals = [3, 1, I32, 1, I32, ...uleb(words64), I64];
  const body = [...locals, ...code];
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 4, I32, I32, I32, I32, 0]),
    ...section(2, [1, ...name('e'), ...name('m'), 0x02, 0x00, 1]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name('h'), 0x00, 0]),
    ...section(10, [1, ...uleb(body.length), ...body]),
  ]);
}

/** The part of the WebAssembly JS API used here (the project's `lib` has no DOM typings). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer };
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

const modules = new Map<number, object | null>();

function moduleFor(words64: number): object | null {
  const known = modules.get(words64);
  if (known !== undefined) return known;
  let mod: object | null = null;
  try {
    if (wasm) mod = new wasm.Module(assemble(words64));
  } catch {
    mod = null;
  }
  modules.set(words64, mod);
  return mod;
}

const PAGE = 65536;
/** Below this many codes, plain JS. */
export const WASM_MIN_COUNT = 4096;

/**
 * The codes copied once into a WebAssembly memory of their own (so a cached table costs one copy, not one per
 * query); JS when the code length is not a whole number of 64-bit words or WebAssembly is unavailable.
 */
export function hammingTable(codes: Uint32Array, words: number, count: number): HammingTable {
  // A few thousand codes take microseconds in JS; a WebAssembly instance of its own would cost more than that.
  const mod = words % 2 === 0 && words > 0 && count >= WASM_MIN_COUNT ? moduleFor(words / 2) : null;
  if (!mod || !wasm) return jsHammingTable(codes, words, count);
  const queryBytes = words * 4;
  const codesAt = Math.ceil(queryBytes / 8) * 8;
  const outAt = codesAt + count * words * 4;
  const memory = new wasm.Memory({ initial: Math.ceil((outAt + count * 2) / PAGE) });
  const instance = new wasm.Instance(mod, { e: { m: memory } });
  const run = instance.exports.h as (codes: number, n: number, q: number, out: number) => void;
  new Uint32Array(memory.buffer, codesAt, count * words).set(codes.subarray(0, count * words));
  const query = new Uint32Array(memory.buffer, 0, words);
  const out = new Uint16Array(memory.buffer, outAt, count);
  return {
    count,
    codeBytes: new Uint8Array(memory.buffer, codesAt, count * words * 4),
    distances(q) {
      query.set(q.subarray(0, words));
      run(codesAt, count, 0, outAt);
      return out;
    },
  };
}
