// Running turns: the `chatmd/turns` request, the `chatmd/turnsChanged` notification and the
// status-bar item that shows them (click = chatmd: Cancel).

import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';

export const TURNS_REQUEST = 'chatmd/turns';
export const TURNS_CHANGED = 'chatmd/turnsChanged';

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

export async function fetchTurns(client: LanguageClient): Promise<Turn[]> {
  return parseTurns(await client.sendRequest(TURNS_REQUEST, {}));
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

export function fileName(uri: string): string {
  try {
    return path.basename(vscode.Uri.parse(uri).path);
  } catch {
    return uri;
  }
}

/** The status-bar item: hidden when no turn runs, else "$(sync~spin) @reviewer 12s". */
export class TurnsStatus implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private turns: Turn[] = [];
  private receivedAt = Date.now();
  private timer: NodeJS.Timeout | undefined;

  constructor() {
    this.item = vscode.window.createStatusBarItem('chatmd.turns', vscode.StatusBarAlignment.Left, 100);
    this.item.name = 'chatmd: running turns';
    this.item.command = { command: 'chatmd.cancel', title: 'Cancel a running turn' };
  }

  /** The turns as last reported, with their elapsed time brought up to now. */
  current(): Turn[] {
    const since = Date.now() - this.receivedAt;
    return this.turns.map((t) => ({ ...t, elapsedMs: t.elapsedMs + since }));
  }

  update(turns: Turn[]): void {
    this.turns = turns;
    this.receivedAt = Date.now();
    this.render();
    if (turns.length > 0 && this.timer === undefined) {
      this.timer = setInterval(() => {
        this.render();
      }, 1000);
    } else if (turns.length === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private render(): void {
    const turns = this.current();
    if (turns.length === 0) {
      this.item.hide();
      return;
    }
    const shown = turns.slice(0, 2).map((t) => `@${t.member} ${formatElapsed(t.elapsedMs)}`);
    const more = turns.length > 2 ? ` +${turns.length - 2}` : '';
    this.item.text = `$(sync~spin) ${shown.join(' · ')}${more}`;
    const tooltip = new vscode.MarkdownString(undefined, true);
    tooltip.appendMarkdown('**chatmd: running turns**\n\n');
    for (const t of turns) {
      const bytes = t.bytes !== undefined ? `, ${t.bytes} bytes` : '';
      tooltip.appendMarkdown(
        `- @${t.member} in ${fileName(t.uri)}: ${t.status}, ${formatElapsed(t.elapsedMs)}${bytes}\n`,
      );
    }
    tooltip.appendMarkdown('\nClick to cancel a turn.');
    this.item.tooltip = tooltip;
    this.item.accessibilityInformation = {
      label: `chatmd running turns: ${turns.map((t) => `${t.member} ${formatElapsed(t.elapsedMs)}`).join(', ')}`,
    };
    this.item.show();
  }

  dispose(): void {
    if (this.timer !== undefined) {
      clearInterval(this.timer);
    }
    this.item.dispose();
  }
}
