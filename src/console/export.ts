/**
 * "Export" on a user's page: the user's memories as the JSON lines `agent-memory export` writes (core/export.ts:
 * userId, text, appId as the slug, metadata, createdAt, updatedAt, expiresAt and key when set; oldest first), so the
 * file imports back with `agent-memory import`. Read through the same list API the page uses, a page of 100 at a
 * time, and handed to the browser as a download; nothing leaves the page but the API calls.
 */
import type { Api, ListItem } from './api.js';

const PAGE_SIZE = 100;

/** One line of the export format; the list API's item holds every field it needs. */
export function exportLine(userId: string, memory: ListItem): string {
  return JSON.stringify({
    userId,
    text: memory.text,
    appId: memory.appId,
    metadata: memory.metadata,
    createdAt: memory.createdAt,
    updatedAt: memory.updatedAt,
    ...(memory.expiresAt == null ? {} : { expiresAt: memory.expiresAt }),
    ...(memory.key === undefined ? {} : { key: memory.key }),
  });
}

/** Every memory of the user (in the app, if one is named), as JSONL, oldest first; and how many. */
export async function exportUser(api: Api, userId: string, appId: string | undefined): Promise<{ jsonl: string; count: number }> {
  const items: ListItem[] = [];
  for (let page = 0; ; page++) {
    const result = await api.listMemories({ userId, appId, page, pageSize: PAGE_SIZE });
    items.push(...result.memories);
    if (result.memories.length < PAGE_SIZE || items.length >= result.total) break;
  }
  // The list is newest first; the CLI's export is oldest first.
  items.reverse();
  return { jsonl: items.map((m) => `${exportLine(userId, m)}\n`).join(''), count: items.length };
}

/** A file name from a user id: letters, digits, "-", "_" and "." kept, anything else "_". */
export function exportFileName(userId: string, appId: string | undefined): string {
  const safe = (s: string) => s.replace(/[^\p{L}\p{N}._-]+/gu, '_').slice(0, 80) || 'user';
  return `${safe(userId)}${appId ? `-${safe(appId)}` : ''}.jsonl`;
}

/** Hands the text to the browser as a downloaded file. */
export function download(fileName: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // After the click has started the download.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
