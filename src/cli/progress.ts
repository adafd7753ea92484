/**
 * Progress of a long command (import, export) on stderr: a bar redrawn in place on a terminal, plain periodic
 * lines otherwise (logs, CI, pipes), so that the output stays readable wherever it goes.
 */

export interface ProgressState {
  /** Units done (bytes read for import, memories written for export). */
  done: number;
  /** Units expected, when known. */
  total?: number | undefined;
  /** A short status after the figures, e.g. "1,234 imported, 3 invalid". */
  detail?: string;
}

export interface Progress {
  update(state: ProgressState): void;
  /** Clears the bar (on a terminal) so that the summary that follows starts on a clean line. */
  done(): void;
}

export interface ProgressOptions {
  label: string;
  stream?: NodeJS.WriteStream | { write(chunk: string): boolean; isTTY?: boolean; columns?: number };
  /** Redraw interval on a terminal (ms). */
  ttyIntervalMs?: number;
  /** Interval between plain lines (ms). */
  lineIntervalMs?: number;
  /** Formats `done`/`total` (e.g. as bytes). */
  unit?: (n: number) => string;
  now?: () => number;
}

export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  if (seconds < 60) return `${Math.round(seconds)}s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m}m${String(Math.round(seconds % 60)).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

export function createProgress(options: ProgressOptions): Progress {
  const stream = options.stream ?? process.stderr;
  const tty = stream.isTTY === true;
  const now = options.now ?? (() => Date.now());
  const unit = options.unit ?? formatCount;
  const interval = tty ? (options.ttyIntervalMs ?? 100) : (options.lineIntervalMs ?? 5_000);
  const started = now();
  let last = -Infinity;
  let drawn = false;

  const render = (state: ProgressState): string => {
    const elapsed = (now() - started) / 1000;
    const rate = elapsed > 0 ? state.done / elapsed : 0;
    const figures = state.total ? `${unit(state.done)}/${unit(state.total)}` : unit(state.done);
    const detail = state.detail ? `  ${state.detail}` : '';
    if (!state.total) return `${options.label}: ${figures}${detail}  ${formatDuration(elapsed)}`;
    const fraction = Math.min(1, state.done / state.total);
    const eta = rate > 0 ? (state.total - state.done) / rate : Infinity;
    const percent = `${Math.floor(fraction * 100)}%`.padStart(4);
    if (!tty) return `${options.label}: ${percent} ${figures}${detail}  elapsed ${formatDuration(elapsed)}, eta ${formatDuration(eta)}`;
    const width = 24;
    const filled = Math.round(fraction * width);
    return `${options.label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${percent} ${figures}${detail}  eta ${formatDuration(eta)}`;
  };

  return {
    update(state) {
      const t = now();
      const finished = state.total !== undefined && state.done >= state.total;
      if (t - last < interval && !(finished && tty)) return;
      last = t;
      const line = render(state);
      if (tty) {
        const columns = stream.columns ?? 100;
        stream.write(`\r${line.slice(0, Math.max(20, columns - 1)).padEnd(Math.max(20, columns - 1))}`);
        drawn = true;
      } else {
        stream.write(`${line}\n`);
      }
    },
    done() {
      if (tty && drawn) stream.write(`\r${' '.repeat(Math.max(20, (stream.columns ?? 100) - 1))}\r`);
      drawn = false;
    },
  };
}
