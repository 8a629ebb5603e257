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
