// Running turns: the `chatmd/turns` request, the `chatmd/turnsChanged` notification and the
// status-bar item that shows them (click = chatmd: Cancel).

import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { formatElapsed, parseTurns, statusText, type Turn } from './protocol';

export { formatElapsed, parseTurns, type Turn } from './protocol';

export const TURNS_REQUEST = 'chatmd/turns';
export const TURNS_CHANGED = 'chatmd/turnsChanged';

export async function fetchTurns(client: LanguageClient): Promise<Turn[]> {
  return parseTurns(await client.sendRequest(TURNS_REQUEST, {}));
}

export function fileName(uri: string): string {
  try {
    return path.basename(vscode.Uri.parse(uri).path);
  } catch {
    return uri;
  }
}

/** How often the item asks the server for fresh numbers (status, bytes) while turns run. */
const POLL_MS = 2000;

/**
 * The status-bar item: hidden when no turn runs, else "$(sync~spin) @reviewer 12s".
 * `chatmd/turnsChanged` says when turns start and end; while some run, the item ticks every
 * second and asks `chatmd/turns` every two for their status and size.
 */
export class TurnsStatus implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private turns: Turn[] = [];
  private receivedAt = Date.now();
  private timer: NodeJS.Timeout | undefined;
  /** Bumped by every update, so that a poll answered after a newer update is dropped. */
  private generation = 0;
  private polling = false;
  private lastPoll = 0;

  constructor(private readonly poll?: () => Promise<Turn[]>) {
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
    this.generation++;
    this.turns = turns;
    this.receivedAt = Date.now();
    this.lastPoll = Date.now();
    this.render();
    if (turns.length > 0 && this.timer === undefined) {
      this.timer = setInterval(() => {
        this.tick();
      }, 1000);
    } else if (turns.length === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private tick(): void {
    this.render();
    if (this.poll === undefined || this.polling || Date.now() - this.lastPoll < POLL_MS) {
      return;
    }
    const generation = this.generation;
    this.polling = true;
    this.lastPoll = Date.now();
    this.poll().then(
      (turns) => {
        this.polling = false;
        if (generation === this.generation) {
          this.update(turns);
        }
      },
      () => {
        this.polling = false; // an older server without chatmd/turns: the notifications suffice
      },
    );
  }

  private render(): void {
    const turns = this.current();
    if (turns.length === 0) {
      this.item.hide();
      return;
    }
    this.item.text = statusText(turns);
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
