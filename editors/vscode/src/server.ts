// Finding and starting the `chatmd lsp` language server.

import { constants, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { warmOptions, type OptionSettings } from './options';

export const INSTALL_COMMAND = 'cargo install --path server';
export const DOCS_URL = 'https://github.com/chatmd/chatmd/blob/main/docs/editors.md';

/** What the chatmd settings say about the server. */
export interface ServerSettings extends OptionSettings {
  /** `chatmd.server.path` as written: a command name or a path. */
  configuredPath: string;
  /** `chatmd.server.env`: added to the server's environment. */
  env: Record<string, string>;
}

export function readSettings(): ServerSettings {
  const config = vscode.workspace.getConfiguration('chatmd');
  const env: Record<string, string> = {};
  const rawEnv = config.get<unknown>('server.env');
  if (rawEnv !== null && typeof rawEnv === 'object') {
    for (const [key, value] of Object.entries(rawEnv as Record<string, unknown>)) {
      // Numbers and booleans are accepted as their text; null removes nothing and is skipped.
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
        env[key] = String(value);
      }
    }
  }
  return {
    configuredPath: (config.get<string>('server.path') ?? '').trim() || 'chatmd',
    env,
    agentPath: (config.get<string>('agentPath') ?? '').trim(),
    permissionDialog: config.get<boolean>('permissionDialog') ?? true,
    warm: warmOptions((setting) => config.inspect(setting)),
  };
}

/** The server's environment: the extension host's, with `chatmd.server.env` on top. */
export function serverEnvironment(settings: ServerSettings): NodeJS.ProcessEnv {
  return { ...process.env, ...settings.env };
}

function expandHome(p: string): string {
  if (p === '~') {
    return os.homedir();
  }
  if (p.startsWith('~/') || p.startsWith('~\\')) {
    return path.join(os.homedir(), p.slice(2));
  }
  return p;
}

async function isExecutableFile(candidate: string): Promise<boolean> {
  try {
    const stat = await fs.stat(candidate);
    if (!stat.isFile()) {
      return false;
    }
    if (process.platform !== 'win32') {
      await fs.access(candidate, constants.X_OK);
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * The server a platform-specific .vsix carries (`server/chatmd` inside the extension, as
 * rust-analyzer ships its own), or undefined for the universal .vsix, which carries none.
 */
export async function bundledServer(extensionPath: string): Promise<string | undefined> {
  const candidate = path.join(extensionPath, 'server', process.platform === 'win32' ? 'chatmd.exe' : 'chatmd');
  if (await isExecutableFile(candidate)) {
    return candidate;
  }
  // An unzip that dropped the file's mode: the binary is there but not executable.
  try {
    if (process.platform !== 'win32' && (await fs.stat(candidate)).isFile()) {
      await fs.chmod(candidate, 0o755);
      return candidate;
    }
  } catch {
    // Not there: this .vsix has no server.
  }
  return undefined;
}

/**
 * The absolute path of the server executable, or undefined when it cannot be found:
 * `chatmd.server.path` when set; else `chatmd` on PATH (or in ~/.cargo/bin); else the
 * server bundled in the extension (`bundled`), so a user without a Rust toolchain needs
 * nothing else. A bare name is looked up on the PATH the server will get (chatmd.server.env
 * may set PATH); a relative path is taken relative to the first workspace folder. A
 * setting that names another server never falls back to the bundled one.
 */
export async function resolveServerPath(settings: ServerSettings, bundled?: string): Promise<string | undefined> {
  const configured = expandHome(settings.configuredPath);
  const extensions =
    process.platform === 'win32' ? ['', ...(process.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';')] : [''];
  const hasSeparator = configured.includes('/') || (process.platform === 'win32' && configured.includes('\\'));
  if (path.isAbsolute(configured) || hasSeparator) {
    const base = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd();
    const full = path.resolve(base, configured);
    for (const ext of extensions) {
      if (await isExecutableFile(full + ext)) {
        return full + ext;
      }
    }
    return undefined;
  }
  const env = serverEnvironment(settings);
  const searchPath = env.PATH ?? env.Path ?? '';
  const folders = [
    ...searchPath.split(path.delimiter).filter((d) => d !== ''),
    // `cargo install` puts binaries here; VS Code started from a desktop often lacks it on PATH.
    path.join(os.homedir(), '.cargo', 'bin'),
  ];
  for (const folder of folders) {
    for (const ext of extensions) {
      const candidate = path.join(folder, configured + ext);
      if (await isExecutableFile(candidate)) {
        return candidate;
      }
    }
  }
  return settings.configuredPath === 'chatmd' ? bundled : undefined;
}

/** Tells the user the server is missing, how to install it, and offers the settings. */
export async function reportMissingServer(settings: ServerSettings, detail?: string): Promise<void> {
  const openSettings = 'Open Settings';
  const openDocs = 'Installation Guide';
  const what =
    settings.configuredPath === 'chatmd'
      ? 'the language server "chatmd" was not found on PATH (VS Code takes its PATH from a login shell, not from the terminal that started it) nor in ~/.cargo/bin, and this build of the extension carries none (only the linux-x64 one does)'
      : `the language server "${settings.configuredPath}" (setting chatmd.server.path) was not found or is not executable`;
  const message =
    `chatmd: ${what}${detail ? ` (${detail})` : ''}. ` +
    `Install it by running "${INSTALL_COMMAND}" in a chatmd checkout, ` +
    `or set chatmd.server.path to the absolute path of the chatmd binary.`;
  const choice = await vscode.window.showErrorMessage(message, openSettings, openDocs);
  if (choice === openSettings) {
    // The server settings are machine settings: in a remote window (Remote-SSH, code-server)
    // they are set on the remote, and the User settings do not show them.
    const command = vscode.env.remoteName ? 'workbench.action.openRemoteSettings' : 'workbench.action.openSettings';
    await vscode.commands.executeCommand(command, { query: 'chatmd.server.path' });
  } else if (choice === openDocs) {
    await vscode.env.openExternal(vscode.Uri.parse(DOCS_URL));
  }
}
