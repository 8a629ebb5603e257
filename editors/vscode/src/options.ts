// The server's initializationOptions from the chatmd settings: `chatmd.agentPath`,
// `chatmd.permissionDialog` and the warm-session settings (`chatmd.warm.*`). No `vscode`
// import, so the unit tests run it under plain node.

/**
 * Where `WorkspaceConfiguration.inspect` found a value. In Restricted Mode VS Code drops a
 * restricted setting's workspace values before they get here, so only the user's own remain.
 */
export interface InspectedValue {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

interface WarmSetting {
  /** The key under `chatmd.` in the user's settings. */
  setting: string;
  /** The key in `initializationOptions` the server reads (server/src/lsp/config.rs). */
  option: string;
  /** What the server accepts; anything else it would only log and ignore. */
  valid: (value: unknown) => boolean;
  /** What the user is told a wrong value should be. */
  expected: string;
}

const numberAtLeastZero = (value: unknown): boolean =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0;

export const WARM_SETTINGS: readonly WarmSetting[] = [
  {
    setting: 'warm.idleSeconds',
    option: 'warmIdleSeconds',
    valid: numberAtLeastZero,
    expected: 'a number of seconds, 0 or more',
  },
  {
    setting: 'warm.members',
    option: 'warmMembers',
    valid: (value) => numberAtLeastZero(value) && Number.isInteger(value),
    expected: 'a whole number, 0 or more',
  },
  {
    setting: 'warm.memoryMB',
    option: 'warmMemoryMB',
    valid: numberAtLeastZero,
    expected: 'a number of MB, 0 or more',
  },
  {
    setting: 'warm.headless',
    option: 'warmHeadless',
    valid: (value) => typeof value === 'boolean',
    expected: 'true or false',
  },
];

export interface WarmOptions {
  /** The initialization options of the settings the user set, e.g. `{ warmIdleSeconds: 60 }`. */
  options: Record<string, unknown>;
  /** One line per setting left out for a wrong value, for the user. */
  problems: string[];
}

/**
 * The warm settings the user set (in any scope; the most specific wins, as in
 * `WorkspaceConfiguration.get`). A setting left at its default is not sent: the server's
 * default applies, so a newer server's default is not pinned by the extension's copy of it.
 */
export function warmOptions(inspect: (setting: string) => InspectedValue | undefined): WarmOptions {
  const options: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const { setting, option, valid, expected } of WARM_SETTINGS) {
    const found = inspect(setting);
    const value = found?.workspaceFolderValue ?? found?.workspaceValue ?? found?.globalValue;
    if (value === undefined) {
      continue;
    }
    if (valid(value)) {
      options[option] = value;
    } else {
      problems.push(`chatmd.${setting} is ${JSON.stringify(value)}, not ${expected}: the server's default is used`);
    }
  }
  return { options, problems };
}

/** The settings that make the initialization options (read in server.ts). */
export interface OptionSettings {
  /** `chatmd.agentPath`: sent as agentPath when not empty. */
  agentPath: string;
  /** `chatmd.permissionDialog`: always sent, the extension's default (true) being not the server's. */
  permissionDialog: boolean;
  /** `chatmd.warm.*`: only those the user set. */
  warm: WarmOptions;
}

/** What the server reads from `initializationOptions`. */
export function initializationOptions(settings: OptionSettings): Record<string, unknown> {
  const options: Record<string, unknown> = { ...settings.warm.options, permissionDialog: settings.permissionDialog };
  if (settings.agentPath !== '') {
    options.agentPath = settings.agentPath;
  }
  return options;
}
