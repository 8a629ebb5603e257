// The chatmd commands. Each sends `workspace/executeCommand` with exactly one JSON object
// argument, as the server's command contract says. Called from the palette or a keybinding they
// build that object from the active editor (and a quick pick where one is needed); called from a
// code lens or another extension with the object already made, they pass it on unchanged.
// A menu (editor context menu, editor title, explorer) passes the file's `vscode.Uri` instead.

import * as path from 'node:path';
import * as vscode from 'vscode';
import { ExecuteCommandRequest, ResponseError } from 'vscode-languageclient/node';
import type { LanguageClient } from 'vscode-languageclient/node';
import { listMembers, type Member } from './members';
import { fetchTurns, fileName, formatElapsed, type Turn } from './turns';

/** The commands of the server contract; the extension registers a VS Code command for each. */
export const SERVER_COMMANDS = [
  'chatmd.send',
  'chatmd.ask',
  'chatmd.next',
  'chatmd.cancel',
  'chatmd.retry',
  'chatmd.fork',
  'chatmd.answer',
  'chatmd.newChat',
  'chatmd.askAbout',
] as const;

export type Args = Record<string, unknown>;

/** What the commands need from the extension. */
export interface Host {
  /** The running client, or undefined after telling the user why there is none. */
  client(): Promise<LanguageClient | undefined>;
  /** The server binary and its environment, for `chatmd members`; undefined when not found. */
  server(): Promise<{ path: string; env: NodeJS.ProcessEnv } | undefined>;
  /** Turns as the status bar last saw them. */
  knownTurns(): Turn[];
}

/**
 * Ready-made arguments (from a code lens, a code action or another extension). A `vscode.Uri` is
 * an object too, but it is what VS Code passes from the editor context menu, the editor title and
 * the explorer: the file the menu was opened on, not the server's arguments.
 */
function isArgs(value: unknown): value is Args {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof vscode.Uri);
}

/** The file a menu passed, if the command came from one. */
function menuUri(value: unknown): vscode.Uri | undefined {
  return value instanceof vscode.Uri ? value : undefined;
}

/** The chat a menu names, or the active one. */
async function chatFrom(arg: unknown, commandTitle: string): Promise<vscode.TextDocument | undefined> {
  const uri = menuUri(arg);
  if (uri?.path.endsWith('.chat.md') === true) {
    return vscode.workspace.openTextDocument(uri);
  }
  return activeChat(commandTitle);
}

function errorText(error: unknown): string {
  if (error instanceof ResponseError || error instanceof Error) {
    return error.message;
  }
  return String(error);
}

/** Sends the command; an error answer (e.g. "nobody is mentioned") is shown to the user. */
export async function execute(host: Host, command: string, args: Args): Promise<unknown> {
  const client = await host.client();
  if (client === undefined) {
    return undefined;
  }
  try {
    return await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [args] });
  } catch (error) {
    void vscode.window.showWarningMessage(`chatmd: ${errorText(error)}`);
    return undefined;
  }
}

/** The chat in the active editor, or undefined after saying that one is needed. */
function activeChat(commandTitle: string): vscode.TextDocument | undefined {
  const doc = vscode.window.activeTextEditor?.document;
  if (doc?.languageId !== 'chatmd') {
    void vscode.window.showInformationMessage(`chatmd: ${commandTitle} works on a .chat.md file: open one first.`);
    return undefined;
  }
  return doc;
}

/**
 * Send, Ask and Continue answer `{members}` once the turns started, or `{members: [], reason}`
 * when nobody could be asked (the server has shown the reason as a message already).
 */
function announceStarted(result: unknown): void {
  const members = isArgs(result) && Array.isArray(result.members) ? result.members : [];
  const names = members.filter((m): m is string => typeof m === 'string').map((m) => `@${m}`);
  if (names.length > 0) {
    vscode.window.setStatusBarMessage(`chatmd: asked ${names.join(', ')}`, 4000);
  } else if (isArgs(result) && typeof result.reason === 'string' && result.reason !== '') {
    vscode.window.setStatusBarMessage(`chatmd: nobody asked: ${result.reason}`, 8000);
  }
}

async function send(host: Host, arg?: unknown): Promise<unknown> {
  let args: Args;
  if (isArgs(arg)) {
    args = arg;
  } else {
    const doc = await chatFrom(arg, 'Send');
    if (doc === undefined) {
      return undefined;
    }
    args = { uri: doc.uri.toString() };
  }
  const result = await execute(host, 'chatmd.send', args);
  announceStarted(result);
  return result;
}

async function next(host: Host, arg?: unknown): Promise<unknown> {
  let args: Args;
  if (isArgs(arg)) {
    args = arg;
  } else {
    const doc = await chatFrom(arg, 'Continue');
    if (doc === undefined) {
      return undefined;
    }
    args = { uri: doc.uri.toString() };
  }
  const result = await execute(host, 'chatmd.next', args);
  announceStarted(result);
  return result;
}

async function pickMember(host: Host, doc: vscode.TextDocument): Promise<string | undefined> {
  let members: Member[] | undefined;
  let problem: string | undefined;
  const server = await host.server();
  if (doc.uri.scheme !== 'file') {
    problem = 'the chat is not saved to a file yet';
  } else if (server === undefined) {
    problem = 'the chatmd binary was not found';
  } else {
    try {
      members = await listMembers(server.path, doc.uri.fsPath, server.env);
    } catch (error) {
      problem = errorText(error);
    }
  }
  if (members === undefined || members.length === 0) {
    // Without a list, the handle can still be typed.
    const handle = await vscode.window.showInputBox({
      title: 'chatmd: Ask…',
      prompt: `Which member? (${problem ?? 'the team has no members'})`,
      placeHolder: 'reviewer',
      validateInput: (v) => (/^@?[\w.-]+$/u.test(v.trim()) ? undefined : 'a member handle, e.g. reviewer'),
    });
    return handle?.trim().replace(/^@/u, '');
  }
  const items = members.map((m) => ({
    label: `@${m.handle}`,
    description: m.cliMissing !== undefined ? `${m.agent} (not installed: ${m.cliMissing})` : m.agent,
    detail: m.roleSummary,
    handle: m.handle,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: 'chatmd: Ask…',
    placeHolder: `Ask which member of the team? (${fileName(doc.uri.toString())})`,
    matchOnDescription: true,
    matchOnDetail: true,
  });
  return picked?.handle;
}

async function ask(host: Host, arg?: unknown): Promise<unknown> {
  if (isArgs(arg) && typeof arg.member === 'string') {
    const result = await execute(host, 'chatmd.ask', arg);
    announceStarted(result);
    return result;
  }
  const doc =
    isArgs(arg) && typeof arg.uri === 'string'
      ? await vscode.workspace.openTextDocument(vscode.Uri.parse(arg.uri))
      : await chatFrom(arg, 'Ask');
  if (doc === undefined) {
    return undefined;
  }
  const member = await pickMember(host, doc);
  if (member === undefined || member === '') {
    return undefined;
  }
  const result = await execute(host, 'chatmd.ask', { uri: doc.uri.toString(), member });
  announceStarted(result);
  return result;
}

async function cancel(host: Host, arg?: unknown): Promise<unknown> {
  if (isArgs(arg)) {
    return execute(host, 'chatmd.cancel', arg);
  }
  const client = await host.client();
  if (client === undefined) {
    return undefined;
  }
  let turns: Turn[];
  try {
    turns = await fetchTurns(client);
  } catch {
    // A server without `chatmd/turns`: what the notifications said is all there is.
    turns = host.knownTurns();
  }
  if (turns.length === 0) {
    void vscode.window.showInformationMessage('chatmd: no turn is running.');
    return undefined;
  }
  const active = vscode.window.activeTextEditor?.document.uri.toString();
  const inActive = turns.filter((t) => t.uri === active);
  type Item = vscode.QuickPickItem & { args: Args };
  const items: Item[] = [...inActive, ...turns.filter((t) => t.uri !== active)].map((t) => ({
    label: `$(debug-stop) @${t.member}`,
    description: `${fileName(t.uri)} · ${t.status} · ${formatElapsed(t.elapsedMs)}`,
    args: { uri: t.uri, member: t.member },
  }));
  if (active !== undefined && inActive.length > 1) {
    items.push({
      label: '$(close-all) Every turn in this chat',
      description: fileName(active),
      args: { uri: active },
    });
  }
  const picked = await vscode.window.showQuickPick(items, {
    title: 'chatmd: Cancel',
    placeHolder: 'Cancel which running turn?',
    matchOnDescription: true,
  });
  if (picked === undefined) {
    return undefined;
  }
  return execute(host, 'chatmd.cancel', picked.args);
}

async function newChat(host: Host, arg?: unknown): Promise<unknown> {
  let args: Args;
  if (isArgs(arg)) {
    args = arg;
  } else {
    const title = await vscode.window.showInputBox({
      title: 'chatmd: New Chat',
      prompt: 'Title of the new chat (Escape cancels; empty gives the default title)',
      placeHolder: 'Release review',
    });
    if (title === undefined) {
      return undefined;
    }
    args = {};
    const doc = vscode.window.activeTextEditor?.document;
    const folder =
      doc?.uri.scheme === 'file'
        ? path.dirname(doc.uri.fsPath)
        : vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    if (folder !== undefined) {
      args.folder = vscode.Uri.file(folder).toString();
    }
    if (title.trim() !== '') {
      args.title = title.trim();
    }
  }
  const result = await execute(host, 'chatmd.newChat', args);
  // The server shows the new chat with window/showDocument; open it here too in case it did not.
  if (isArgs(result) && typeof result.uri === 'string') {
    await vscode.window.showTextDocument(vscode.Uri.parse(result.uri), { preview: false });
  }
  return result;
}

/**
 * "Ask the Team About the Selection…": the selection of the active editor (any file) goes to
 * the most recent chat (`newChat`: a new chat beside it) as a new message, and is sent, or
 * queued while that chat's members answer. The member is asked for; empty leaves it to the
 * chat's routing.
 */
async function askAbout(host: Host, arg?: unknown, newChat = false): Promise<unknown> {
  if (isArgs(arg)) {
    return execute(host, 'chatmd.askAbout', arg);
  }
  // From the context menu `arg` is the file the menu was opened on: the active editor's, whose
  // selection is the one to ask about.
  const editor = vscode.window.activeTextEditor;
  const fromMenu = menuUri(arg);
  if (fromMenu !== undefined && editor !== undefined && editor.document.uri.toString() !== fromMenu.toString()) {
    void vscode.window.showInformationMessage('chatmd: select the code to ask about in the editor first.');
    return undefined;
  }
  if (editor === undefined || editor.selection.isEmpty) {
    void vscode.window.showInformationMessage('chatmd: select the code to ask about first.');
    return undefined;
  }
  const member = await vscode.window.showInputBox({
    title: 'chatmd: Ask the Team About the Selection',
    prompt: 'Which member (Escape cancels; empty lets the chat decide)?',
    placeHolder: 'reviewer',
  });
  if (member === undefined) {
    return undefined;
  }
  const { start, end } = editor.selection;
  const args: Args = {
    uri: editor.document.uri.toString(),
    range: {
      start: { line: start.line, character: start.character },
      end: { line: end.line, character: end.character },
    },
    // The buffer's text: what the user sees, saved or not.
    text: editor.document.getText(editor.selection),
  };
  if (member.trim() !== '') {
    args.member = member.trim().replace(/^@/, '');
  }
  if (newChat) {
    args.newChat = true;
  }
  const result = await execute(host, 'chatmd.askAbout', args);
  if (isArgs(result) && typeof result.chat === 'string') {
    await vscode.window.showTextDocument(vscode.Uri.parse(result.chat), { preview: false, preserveFocus: true });
    if (result.queued === true) {
      void vscode.window.showInformationMessage(
        'chatmd: your question is queued; it is sent when the members answering in that chat finish.',
      );
    }
  }
  return result;
}

/** Commands that need no help from the extension: the object comes from a code lens. */
function passThrough(host: Host, command: string): (arg?: unknown) => Promise<unknown> {
  return async (arg?: unknown) => {
    if (!isArgs(arg)) {
      void vscode.window.showInformationMessage(
        `chatmd: ${command} is run from a code lens or code action in a chat file.`,
      );
      return undefined;
    }
    return execute(host, command, arg);
  };
}

export function registerCommands(host: Host): vscode.Disposable[] {
  const handlers: Record<(typeof SERVER_COMMANDS)[number], (arg?: unknown) => Promise<unknown>> = {
    'chatmd.send': (arg) => send(host, arg),
    'chatmd.ask': (arg) => ask(host, arg),
    'chatmd.next': (arg) => next(host, arg),
    'chatmd.cancel': (arg) => cancel(host, arg),
    'chatmd.retry': passThrough(host, 'chatmd.retry'),
    'chatmd.fork': passThrough(host, 'chatmd.fork'),
    'chatmd.answer': passThrough(host, 'chatmd.answer'),
    'chatmd.newChat': (arg) => newChat(host, arg),
    'chatmd.askAbout': (arg) => askAbout(host, arg),
  };
  return [
    ...SERVER_COMMANDS.map((command) => vscode.commands.registerCommand(command, handlers[command])),
    vscode.commands.registerCommand('chatmd.askAboutInNewChat', (arg?: unknown) => askAbout(host, arg, true)),
  ];
}
