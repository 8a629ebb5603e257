// The members a chat can ask, for "chatmd: Ask…".
//
// They come from `chatmd members --json <chat>`: the same binary as the language server, so the
// same team lookup (front matter `team:`, else the chat's folder, chatmd.toml, role files). It
// reads the chat from disk, so a `team:` changed in an unsaved buffer is seen after saving.

import { execFile } from 'node:child_process';

export interface Member {
  handle: string;
  agent: string;
  roleSummary?: string;
  /** Set when the member's agent CLI is not installed: the install command, or a note. */
  cliMissing?: string;
}

interface MembersReport {
  members?: {
    handle?: unknown;
    agent?: unknown;
    role_summary?: unknown;
    cli?: { path?: unknown; install_command?: unknown };
  }[];
}

export function parseMembers(json: string): Member[] {
  const report = JSON.parse(json) as MembersReport;
  const members: Member[] = [];
  for (const m of report.members ?? []) {
    if (typeof m.handle !== 'string') {
      continue;
    }
    const member: Member = { handle: m.handle, agent: typeof m.agent === 'string' ? m.agent : '' };
    if (typeof m.role_summary === 'string') {
      member.roleSummary = m.role_summary;
    }
    if (m.cli !== undefined && (m.cli.path === null || m.cli.path === undefined)) {
      member.cliMissing =
        typeof m.cli.install_command === 'string' ? m.cli.install_command : 'the agent CLI is not installed';
    }
    members.push(member);
  }
  return members;
}

/** Runs `<server> members --json <chatPath>` and parses its output. */
export function listMembers(server: string, chatPath: string, env: NodeJS.ProcessEnv): Promise<Member[]> {
  return new Promise((resolve, reject) => {
    execFile(
      server,
      ['members', '--json', chatPath],
      { env, timeout: 15_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(stderr.trim() || error.message));
          return;
        }
        try {
          resolve(parseMembers(stdout));
        } catch (parseError) {
          reject(new Error(`cannot read the output of \`chatmd members --json\`: ${String(parseError)}`));
        }
      },
    );
  });
}
