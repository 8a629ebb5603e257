// Keeps the user's cursor where it was when chatmd appends a section right at it.
//
// VS Code carries a cursor that sits exactly where text is inserted along with the text. The
// server appends new sections past the file's final line break, which leaves a cursor at the end
// of the last line alone; but in a file that does not end with a line break the cursor at the
// end of the message is the very end of the file, where the section goes, and the words typed
// next would land inside the new section. This puts such a cursor back before the section.

import * as vscode from 'vscode';
import { cursorBeforeSection, isAppendedSection, type Insert } from './sections';

/** Watches every editor of a chat and puts a carried cursor back. */
export class CursorKeeper implements vscode.Disposable {
  /** The collapsed cursor of each editor as last seen, by editor. */
  private readonly seen = new Map<vscode.TextEditor, number>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly languageId: string) {
    this.subscriptions = [
      vscode.window.onDidChangeTextEditorSelection((event) => {
        this.remember(event.textEditor);
      }),
      vscode.window.onDidChangeVisibleTextEditors((editors) => {
        for (const editor of [...this.seen.keys()]) {
          if (!editors.includes(editor)) {
            this.seen.delete(editor);
          }
        }
        for (const editor of editors) {
          this.remember(editor);
        }
      }),
      vscode.workspace.onDidChangeTextDocument((event) => {
        this.onChange(event);
      }),
    ];
    for (const editor of vscode.window.visibleTextEditors) {
      this.remember(editor);
    }
  }

  private remember(editor: vscode.TextEditor): void {
    if (editor.document.languageId !== this.languageId) {
      return;
    }
    const selection = editor.selection;
    if (editor.selections.length === 1 && selection.isEmpty) {
      this.seen.set(editor, editor.document.offsetAt(selection.active));
    } else {
      this.seen.delete(editor);
    }
  }

  private onChange(event: vscode.TextDocumentChangeEvent): void {
    const doc = event.document;
    // Undo and redo move the cursor on purpose.
    if (doc.languageId !== this.languageId || event.reason !== undefined) {
      return;
    }
    const length = doc.getText().length;
    for (const { rangeOffset, rangeLength, text } of event.contentChanges) {
      const change: Insert = { offset: rangeOffset, rangeLength, text };
      if (!isAppendedSection(change, length)) {
        continue;
      }
      for (const editor of vscode.window.visibleTextEditors) {
        const before = editor.document === doc ? this.seen.get(editor) : undefined;
        const back = before === undefined ? undefined : cursorBeforeSection(before, change);
        if (back !== undefined) {
          const position = doc.positionAt(back);
          editor.selection = new vscode.Selection(position, position);
          this.seen.set(editor, back);
        }
      }
    }
  }

  dispose(): void {
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
    this.seen.clear();
  }
}
