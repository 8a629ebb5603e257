// The chatmd extension: starts `chatmd lsp` for *.chat.md files and adds the commands,
// the keybinding and the running-turns status-bar item around it.

import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  ApplyWorkspaceEditRequest,
  ExecuteCommandRequest,
  LanguageClient,
  TextDocumentEdit,
  type ApplyWorkspaceEditParams,
  type ApplyWorkspaceEditResult,
  type DynamicFeature,
  type LanguageClientOptions,
  type ServerOptions,
  type StaticFeature,
} from 'vscode-languageclient/node';
import { execute, registerCommands, SERVER_COMMANDS, type Host } from './commands';
import { CursorKeeper } from './cursor';
import { initializationOptions } from './options';
import {
  readSettings,
  reportMissingServer,
  bundledServer,
  resolveServerPath,
  serverEnvironment,
  type ServerSettings,
} from './server';
import { READ_BUFFER, READ_BUFFER_CAPABILITY, SOURCE_DIAGNOSTICS } from './context';
import { fetchTurns, parseTurns, TURNS_CHANGED, TURNS_REQUEST, TurnsStatus } from './turns';
import { WaitingStatus } from './waiting';

/**
 * vscode-languageclient registers a VS Code command for every command the server lists in
 * executeCommandProvider. The extension registers those itself (they build their argument from
 * the active editor when run from the palette), so the client must not: two registrations of
 * one command id fail.
 */
class ChatmdLanguageClient extends LanguageClient {
  public override registerFeature(feature: StaticFeature | DynamicFeature<unknown>): void {
    if ('registrationType' in feature && feature.registrationType.method === ExecuteCommandRequest.method) {
      return;
    }
    super.registerFeature(feature);
  }
}

type State =
  | { kind: 'stopped' }
  | { kind: 'starting'; done: Promise<void> }
  | { kind: 'running'; client: LanguageClient; serverPath: string; settings: ServerSettings }
  | { kind: 'missing'; settings: ServerSettings; detail?: string };

class Extension implements Host, vscode.Disposable {
  private state: State = { kind: 'stopped' };
  private readonly output = vscode.window.createOutputChannel('chatmd Language Server');
  private readonly trace = vscode.window.createOutputChannel('chatmd Language Server Trace');
  private readonly status = new TurnsStatus(() => {
    const state = this.state;
    return state.kind === 'running' ? fetchTurns(state.client) : Promise.resolve([]);
  });
  /** The chats that wait for you, counted from the server's diagnostics. */
  private readonly waiting = new WaitingStatus();
  /** Keeps the cursor where the user left it when a section is appended at it. */
  private readonly keeper = new CursorKeeper('chatmd');
  /** Commands the server offers beyond the contract, forwarded as they are. */
  private extraCommands: vscode.Disposable[] = [];

  /** `extensionPath`: where a platform-specific .vsix keeps its bundled server. */
  constructor(private readonly extensionPath: string) {}

  /** The server to run: the setting, else `chatmd` on PATH, else the bundled one. */
  private async findServer(settings: ServerSettings): Promise<string | undefined> {
    return resolveServerPath(settings, await bundledServer(this.extensionPath));
  }

  async start(): Promise<void> {
    if (this.state.kind === 'starting') {
      return this.state.done;
    }
    if (this.state.kind === 'running') {
      return;
    }
    const done = this.doStart();
    this.state = { kind: 'starting', done };
    return done;
  }

  private async doStart(): Promise<void> {
    const settings = readSettings();
    const serverPath = await this.findServer(settings);
    if (serverPath === undefined) {
      this.state = { kind: 'missing', settings };
      this.output.appendLine(`chatmd: server not found (chatmd.server.path = ${settings.configuredPath})`);
      void reportMissingServer(settings);
      return;
    }
    this.output.appendLine(`chatmd: starting ${serverPath} lsp`);
    for (const problem of settings.warm.problems) {
      this.output.appendLine(`chatmd: ${problem}`);
      void vscode.window.showWarningMessage(`chatmd: ${problem}`);
    }
    const serverOptions: ServerOptions = {
      command: serverPath,
      args: ['lsp'],
      options: { env: serverEnvironment(settings) },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: 'file', language: 'chatmd' },
        { scheme: 'untitled', language: 'chatmd' },
      ],
      initializationOptions: initializationOptions(settings),
      outputChannel: this.output,
      traceOutputChannel: this.trace,
      markdown: { isTrusted: false, supportHtml: false },
    };
    const client = new ChatmdLanguageClient('chatmd', 'chatmd Language Server', serverOptions, clientOptions);
    client.onNotification(TURNS_CHANGED, (payload: unknown) => {
      this.status.update(parseTurns(payload));
    });
    // `#diagnostics:path` in a sent message: the problems VS Code shows for that file, from
    // every extension, as LSP diagnostics.
    client.onRequest(SOURCE_DIAGNOSTICS, async (params: { uri?: unknown } | null) => {
      if (typeof params?.uri !== 'string') {
        return null;
      }
      const uri = vscode.Uri.parse(params.uri);
      const found = vscode.languages.getDiagnostics(uri);
      return { diagnostics: await client.code2ProtocolConverter.asDiagnostics(found) };
    });
    // An agent reads a file: the buffer the user is looking at, unsaved changes included.
    client.registerFeature({
      fillClientCapabilities(capabilities): void {
        const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
        capabilities.experimental = { ...experimental, [READ_BUFFER_CAPABILITY]: true };
      },
      // A capability only: nothing to set up when the server starts, nothing to undo.
      initialize: () => undefined,
      getState: () => ({ kind: 'static' }),
      clear: () => undefined,
    });
    client.onRequest(READ_BUFFER, (params: { uri?: unknown } | null) => {
      if (typeof params?.uri !== 'string') {
        return null;
      }
      const wanted = vscode.Uri.parse(params.uri).toString();
      const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === wanted);
      return open ? { text: open.getText() } : null;
    });
    try {
      await client.start();
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      this.output.appendLine(`chatmd: the server did not start: ${detail}`);
      this.state = { kind: 'missing', settings, detail };
      void reportMissingServer(settings, detail);
      return;
    }
    this.state = { kind: 'running', client, serverPath, settings };
    this.takeApplyEdit(client);
    this.registerExtraCommands(client);
    // Turns that were already running (after a restart of the extension host, say).
    client.sendRequest(TURNS_REQUEST, {}).then(
      (payload: unknown) => {
        this.status.update(parseTurns(payload));
      },
      () => undefined, // an older server without chatmd/turns
    );
  }

  /**
   * Takes over `workspace/applyEdit` from the language client: a section appended at the
   * active editor's cursor goes in through the cursor keeper (see CursorKeeper.placeSection),
   * every other edit through the client's own handler, as before. One at a time, in the
   * order they came.
   */
  private takeApplyEdit(client: LanguageClient): void {
    const own = client as unknown as { handleApplyWorkspaceEdit(params: ApplyWorkspaceEditParams): Promise<ApplyWorkspaceEditResult> };
    const usual = own.handleApplyWorkspaceEdit.bind(client);
    let queue: Promise<unknown> = Promise.resolve();
    client.onRequest(ApplyWorkspaceEditRequest.type, (params: ApplyWorkspaceEditParams) => {
      const next = queue.then(async () => (await this.placeSection(client, params)) ?? usual(params));
      queue = next.catch(() => undefined);
      return next;
    });
  }

  /** Applies `params` when it is one section appended at the cursor; undefined otherwise. */
  private async placeSection(client: LanguageClient, params: ApplyWorkspaceEditParams): Promise<ApplyWorkspaceEditResult | undefined> {
    const changes = params.edit.documentChanges;
    let target: { uri: string; version: number | null | undefined; edits: unknown[] } | undefined;
    if (changes !== undefined) {
      const [only] = changes;
      if (changes.length === 1 && TextDocumentEdit.is(only)) {
        target = { uri: only.textDocument.uri, version: only.textDocument.version, edits: only.edits };
      }
    } else if (params.edit.changes !== undefined) {
      const entries = Object.entries(params.edit.changes);
      if (entries.length === 1) {
        target = { uri: entries[0][0], version: undefined, edits: entries[0][1] };
      }
    }
    const [edit] = target?.edits ?? [];
    if (target?.edits.length !== 1 || typeof edit !== 'object' || edit === null) {
      return undefined;
    }
    if (!('range' in edit) || !('newText' in edit) || 'annotationId' in edit || typeof edit.newText !== 'string') {
      return undefined;
    }
    const range = client.protocol2CodeConverter.asRange(edit.range as Parameters<typeof client.protocol2CodeConverter.asRange>[0]);
    if (range === undefined) {
      return undefined;
    }
    const uri = client.protocol2CodeConverter.asUri(target.uri).toString();
    const applied = await this.keeper.placeSection(uri, target.version, { range, newText: edit.newText });
    return applied === undefined ? undefined : { applied };
  }

  private registerExtraCommands(client: LanguageClient): void {
    const offered = client.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
    const known = new Set<string>(SERVER_COMMANDS);
    for (const command of offered) {
      if (!known.has(command)) {
        this.extraCommands.push(
          vscode.commands.registerCommand(command, (arg?: unknown) =>
            execute(this, command, arg !== null && typeof arg === 'object' ? (arg as Record<string, unknown>) : {}),
          ),
        );
      }
    }
  }

  private disposeExtraCommands(): void {
    for (const command of this.extraCommands) {
      command.dispose();
    }
    this.extraCommands = [];
  }

  async stop(): Promise<void> {
    const state = this.state;
    if (state.kind === 'starting') {
      await state.done;
      return this.stop();
    }
    this.state = { kind: 'stopped' };
    this.disposeExtraCommands();
    this.status.update([]);
    if (state.kind === 'running') {
      try {
        await state.client.stop(5000);
      } catch (error) {
        // A server that crashed or hangs on shutdown: the client has given up on it already.
        this.output.appendLine(`chatmd: stopping the server: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  // ----- Host ------------------------------------------------------------------------------------

  async client(): Promise<LanguageClient | undefined> {
    if (this.state.kind === 'stopped') {
      await this.start();
    } else if (this.state.kind === 'starting') {
      await this.state.done;
    }
    const state: State = this.state;
    if (state.kind === 'running') {
      return state.client;
    }
    if (state.kind === 'missing') {
      void reportMissingServer(state.settings, state.detail);
    }
    return undefined;
  }

  async server(): Promise<{ path: string; env: NodeJS.ProcessEnv } | undefined> {
    const settings = readSettings();
    const serverPath = await this.findServer(settings);
    if (serverPath === undefined) {
      return undefined;
    }
    const env = serverEnvironment(settings);
    if (settings.agentPath !== '') {
      // `chatmd members` finds agent CLIs on PATH; agentPath is searched first, as in the server.
      env.PATH = [settings.agentPath, env.PATH ?? ''].filter((p) => p !== '').join(path.delimiter);
    }
    return { path: serverPath, env };
  }

  knownTurns() {
    return this.status.current();
  }

  dispose(): void {
    this.disposeExtraCommands();
    this.keeper.dispose();
    this.status.dispose();
    this.waiting.dispose();
    this.output.dispose();
    this.trace.dispose();
  }
}

let extension: Extension | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const ext = new Extension(context.extensionPath);
  extension = ext;
  context.subscriptions.push(
    ext,
    ...registerCommands(ext),
    vscode.commands.registerCommand('chatmd.restartServer', () => ext.restart()),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (
        event.affectsConfiguration('chatmd.server.path') ||
        event.affectsConfiguration('chatmd.server.env') ||
        event.affectsConfiguration('chatmd.agentPath') ||
        event.affectsConfiguration('chatmd.permissionDialog') ||
        // Read once, at initialize: a new idle time or cap applies to a new server.
        event.affectsConfiguration('chatmd.warm')
      ) {
        void ext.restart();
      }
    }),
  );
  await ext.start();
}

export async function deactivate(): Promise<void> {
  await extension?.stop();
  extension = undefined;
}
