import type { ChildProcess } from 'node:child_process';

/** What `agent-memory serve` prints on stderr once it accepts connections: "... listening on http://HOST:PORT (...)". */
const LISTENING = /listening on (http:\/\/[^\s()]+)/;

/**
 * The URL a spawned `agent-memory serve` announces on stderr. Rejects, with what stderr said so far, when the
 * process exits first or takes longer than `timeoutMs`. Reads stderr beside any other listener of the caller's.
 */
export function announcedUrl(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let said = '';
    const done = (): void => {
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
    };
    const onData = (chunk: Buffer | string): void => {
      said += chunk.toString();
      const url = LISTENING.exec(said)?.[1];
      if (url === undefined) return;
      done();
      resolve(url);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      done();
      reject(new Error(`the server exited (code ${code}, signal ${signal}) before listening:\n${said}`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`the server did not announce its URL within ${timeoutMs / 1000} s:\n${said}`));
    }, timeoutMs);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}
