// Keeps the user's cursor where it was when chatmd appends a section right at it.
//
// VS Code carries a cursor that sits exactly where text is inserted along with the text. The
// server appends new sections past the file's final line break, which leaves a cursor at the end
// of the last line alone; but in a file that does not end with a line break the cursor at the
// end of the message is the very end of the file, where the section goes, and the words typed
// next would land inside the new section; and on the empty last line of a file that ends with
// a line break, the cursor is there too. When the section is for the active editor, it goes in
// as a snippet whose final tab stop is at the cursor (placeSection), so VS Code keeps the cursor
// in the same step; otherwise this puts a carried cursor back before the section afterwards.

import * as vscode from 'vscode';
import { cursorBeforeSection, isAppendedSection, type Insert } from './sections';

/** Watches every editor of a chat and puts a carried cursor back. */
export class CursorKeeper implements vscode.Disposable {
  /** The collapsed cursor of each editor as last seen, by editor. */
  private readonly seen = new Map<vscode.TextEditor, number>();
  /** Sections `placeSection` inserted with the cursor already kept in place (uri, offset, text). */
  private readonly placed = new Set<string>();
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

  /**
   * Applies the server's edit when it is a section appended exactly at the cursor of the active
   * editor, so that the cursor stays where the user left it in the same step as the insert:
   * as a snippet whose final tab stop is where the section starts. VS Code places the cursor
   * there as it inserts, in the editor itself, so a key typed at any moment goes in either
   * before the section lands or at the kept place: never after the section. (Moving the
   * cursor back afterwards, from here, races with typing: keys typed before the move arrives
   * went in at the end of the answer.) Returns undefined when the edit is not such a section
   * (apply it as usual).
   */
  async placeSection(uri: string, version: number | null | undefined, change: { range: vscode.Range; newText: string }): Promise<boolean | undefined> {
    const editor = vscode.window.activeTextEditor;
    if (editor?.document.uri.toString() !== uri || editor.document.languageId !== this.languageId) {
      return undefined;
    }
    const doc = editor.document;
    if (typeof version === 'number' && version >= 0 && doc.version !== version) {
      return false; // as the language client answers an edit for another version
    }
    const length = doc.getText().length;
    const offset = doc.offsetAt(change.range.start);
    const insert: Insert = { offset, rangeLength: doc.offsetAt(change.range.end) - offset, text: change.newText };
    const cursor = editor.selection;
    if (
      !change.range.isEmpty ||
      !isAppendedSection(insert, length + insert.text.length) ||
      editor.selections.length !== 1 ||
      !cursor.isEmpty ||
      doc.offsetAt(cursor.active) !== offset
    ) {
      return undefined;
    }
    const snippet = new vscode.SnippetString();
    snippet.appendTabstop(0);
    snippet.appendText(insert.text);
    const edit = new vscode.SnippetTextEdit(change.range, snippet);
    edit.keepWhitespace = true;
    const workspaceEdit = new vscode.WorkspaceEdit();
    workspaceEdit.set(doc.uri, [edit]);
    const key = `${uri}\n${offset}\n${insert.text}`;
    this.placed.add(key);
    const applied = await vscode.workspace.applyEdit(workspaceEdit);
    if (!applied) {
      this.placed.delete(key);
    }
    return applied;
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
      if (this.placed.delete(`${doc.uri.toString()}\n${rangeOffset}\n${text}`)) {
        continue; // inserted by placeSection: the cursor is where it belongs, and may have moved on
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
