// What the server sends about running turns, and how the status bar words it. No VS Code API
// here, so that it can be unit-tested under plain Node (test/unit.test.ts).

/** One running turn, as the server reports it. */
export interface Turn {
  uri: string;
  member: string;
  status: string;
  elapsedMs: number;
  bytes?: number;
}

export interface TurnsPayload {
  turns: Turn[];
}

/** Accepts what the server sent when it has the expected shape; drops malformed entries. */
export function parseTurns(payload: unknown): Turn[] {
  if (payload === null || typeof payload !== 'object') {
    return [];
  }
  const turns = (payload as { turns?: unknown }).turns;
  if (!Array.isArray(turns)) {
    return [];
  }
  return turns.filter(
    (t): t is Turn =>
      t !== null &&
      typeof t === 'object' &&
      typeof (t as Turn).uri === 'string' &&
      typeof (t as Turn).member === 'string' &&
      typeof (t as Turn).status === 'string' &&
      typeof (t as Turn).elapsedMs === 'number',
  );
}

/** "12s", "3m 05s", "1h 02m". */
export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) {
    return `${h}h ${String(m).padStart(2, '0')}m`;
  }
  if (m > 0) {
    return `${m}m ${String(s).padStart(2, '0')}s`;
  }
  return `${s}s`;
}

/** The status-bar text: "$(sync~spin) @reviewer 12s", two turns at most, then "+n". */
export function statusText(turns: readonly Turn[]): string {
  const shown = turns.slice(0, 2).map((t) => `@${t.member} ${formatElapsed(t.elapsedMs)}`);
  const more = turns.length > 2 ? ` +${turns.length - 2}` : '';
  return `$(sync~spin) ${shown.join(' · ')}${more}`;
}

/** A diagnostic as far as the waiting count cares: its source and code. */
export interface DiagnosticLike {
  source?: string;
  code?: string | number | { value: string | number };
}

/** Whether a diagnostic is one of the server's "waits for you" (`waiting-…` codes). */
export function isWaiting(d: DiagnosticLike): boolean {
  const code = typeof d.code === 'object' ? d.code.value : d.code;
  return d.source === 'chatmd' && typeof code === 'string' && code.startsWith('waiting-');
}

/** How many chats wait for the user: files with at least one waiting diagnostic. */
export function countWaitingChats(files: readonly (readonly [unknown, readonly DiagnosticLike[]])[]): number {
  return files.filter(([, diagnostics]) => diagnostics.some(isWaiting)).length;
}

/** The status-bar text for chats that wait: "$(bell) 2 chats wait"; empty for none. */
export function waitingText(chats: number): string {
  if (chats === 0) {
    return '';
  }
  return chats === 1 ? '$(bell) 1 chat waits' : `$(bell) ${chats} chats wait`;
}
