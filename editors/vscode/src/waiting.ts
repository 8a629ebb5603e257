// The status-bar item that counts the chats waiting for you (the server's `waiting-…`
// diagnostics, pulled or published); a click opens the Problems panel, where each entry
// lands on the waiting block.

import * as vscode from 'vscode';
import { countWaitingChats, waitingText } from './protocol';

export class WaitingStatus implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly listener: vscode.Disposable;

  constructor() {
    this.item = vscode.window.createStatusBarItem('chatmd.waiting', vscode.StatusBarAlignment.Left, 99);
    this.item.name = 'chatmd: chats waiting for you';
    this.item.tooltip = 'Chats whose latest round waits for you (permission, error, question)';
    this.item.command = { command: 'workbench.actions.view.problems', title: 'Show the chats that wait' };
    this.listener = vscode.languages.onDidChangeDiagnostics(() => {
      this.render();
    });
    this.render();
  }

  private render(): void {
    const text = waitingText(countWaitingChats(vscode.languages.getDiagnostics()));
    if (text === '') {
      this.item.hide();
      return;
    }
    this.item.text = text;
    this.item.show();
  }

  dispose(): void {
    this.listener.dispose();
    this.item.dispose();
  }
}
