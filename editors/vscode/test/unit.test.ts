// Unit tests of the parts of the extension that need no VS Code: what the server and
// `chatmd members --json` send, how the status bar words running turns, and the
// initializationOptions the settings make.
// Bundled by esbuild and run with `node --test` (npm run test:unit).

import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { cursorBeforeSection, isAppendedSection } from '../src/sections';
import { parseMembers } from '../src/members';
import { initializationOptions, warmOptions, WARM_SETTINGS, type InspectedValue } from '../src/options';
import { countWaitingChats, formatElapsed, isWaiting, parseTurns, statusText, waitingText, type Turn } from '../src/protocol';

const turn = (member: string, elapsedMs: number): Turn => ({
  uri: 'file:///w/a.chat.md',
  member,
  status: 'streaming',
  elapsedMs,
});

void test('formatElapsed counts seconds, then minutes, then hours', () => {
  assert.equal(formatElapsed(0), '0s');
  assert.equal(formatElapsed(12_345), '12s');
  assert.equal(formatElapsed(65_000), '1m 05s');
  assert.equal(formatElapsed(3_725_000), '1h 02m');
  assert.equal(formatElapsed(-5), '0s');
});

void test('statusText shows two turns and counts the rest', () => {
  assert.equal(statusText([turn('reviewer', 12_000)]), '$(sync~spin) @reviewer 12s');
  assert.equal(
    statusText([turn('reviewer', 12_000), turn('tester', 3_000), turn('writer', 1_000), turn('x', 0)]),
    '$(sync~spin) @reviewer 12s · @tester 3s +2',
  );
});

void test('parseTurns takes the contract shape and drops malformed entries', () => {
  const good = { uri: 'file:///w/a.chat.md', member: 'reviewer', status: 'streaming', elapsedMs: 1234, bytes: 456 };
  assert.deepEqual(parseTurns({ turns: [good, { member: 'x' }, null, 'y'] }), [good]);
  assert.deepEqual(parseTurns({ turns: [] }), []);
  assert.deepEqual(parseTurns(null), []);
  assert.deepEqual(parseTurns({}), []);
  assert.deepEqual(parseTurns({ turns: 'no' }), []);
});

void test('parseMembers reads `chatmd members --json`', () => {
  const json = JSON.stringify({
    members: [
      {
        handle: 'reviewer',
        agent: 'claude',
        role_summary: 'Reviewer: reviews Rust changes',
        cli: { binary: 'claude', path: null, version: null, install_command: 'npm install -g @anthropic-ai/claude-code' },
      },
      { handle: 'tester', agent: 'codex', role_summary: null, cli: { binary: 'codex', path: '/bin/codex' } },
      { agent: 'gemini' },
    ],
    problems: [],
  });
  assert.deepEqual(parseMembers(json), [
    {
      handle: 'reviewer',
      agent: 'claude',
      roleSummary: 'Reviewer: reviews Rust changes',
      cliMissing: 'npm install -g @anthropic-ai/claude-code',
    },
    { handle: 'tester', agent: 'codex' },
  ]);
  assert.throws(() => parseMembers('not json'));
});

void test('isAppendedSection takes a new section or the reply stub at the very end only', () => {
  const section = '\n\n## @writer\n<!-- chatmd id=t1 agent=gemini status=queued -->\n';
  assert.equal(isAppendedSection({ offset: 30, rangeLength: 0, text: section }, 30 + section.length), true);
  assert.equal(isAppendedSection({ offset: 30, rangeLength: 0, text: '\r\n\r\n## @me\r\n' }, 42), true);
  // Not at the end, replacing text, typed words, a heading that is not a message.
  assert.equal(isAppendedSection({ offset: 10, rangeLength: 0, text: section }, 30 + section.length), false);
  assert.equal(isAppendedSection({ offset: 30, rangeLength: 2, text: section }, 28 + section.length), false);
  assert.equal(isAppendedSection({ offset: 30, rangeLength: 0, text: ' Also' }, 35), false);
  assert.equal(isAppendedSection({ offset: 30, rangeLength: 0, text: '\n## Notes\n' }, 40), false);
});

void test('cursorBeforeSection puts back only a cursor the section carried', () => {
  const change = { offset: 30, rangeLength: 0, text: '\n\n## @writer\n' };
  assert.equal(cursorBeforeSection(30, change), 30, 'seen before the change, at the insertion point');
  assert.equal(cursorBeforeSection(30 + change.text.length, change), 30, 'seen already carried past it');
  assert.equal(cursorBeforeSection(12, change), undefined, 'elsewhere: left alone');
});

void test('countWaitingChats counts the files with a waiting-… diagnostic of chatmd', () => {
  const waiting = { source: 'chatmd', code: 'waiting-permission' };
  const other = { source: 'chatmd', code: 'unknown-mention' };
  const foreign = { source: 'eslint', code: 'waiting-x' };
  assert.equal(isWaiting({ source: 'chatmd', code: { value: 'waiting-error' } }), true);
  assert.equal(isWaiting(foreign), false);
  assert.equal(
    countWaitingChats([
      ['a', [other, waiting, waiting]],
      ['b', [other]],
      ['c', [foreign]],
      ['d', [{ source: 'chatmd', code: 'waiting-question' }]],
    ]),
    2,
  );
  assert.equal(waitingText(0), '');
  assert.equal(waitingText(1), '$(bell) 1 chat waits');
  assert.equal(waitingText(3), '$(bell) 3 chats wait');
});

// The server's defaults (server/src/turns/runs/kept: WarmSettings::default, checked by
// config.rs's tests): the settings editor shows them when nothing is set.
const SERVER_DEFAULTS: Record<string, unknown> = {
  'warm.idleSeconds': 300,
  'warm.members': 8,
  'warm.memoryMB': 4096,
  'warm.headless': false,
};

/**
 * The initializationOptions sent when the user's settings hold `user` and the workspace's
 * `workspace`, read through an `inspect` that answers as VS Code's does: every declared
 * setting has its defaultValue, and globalValue/workspaceValue only when set there.
 */
function sent(user: Record<string, unknown>, workspace: Record<string, unknown> = {}) {
  const inspect = (setting: string): InspectedValue & { key: string; defaultValue: unknown } => ({
    key: `chatmd.${setting}`,
    defaultValue: SERVER_DEFAULTS[setting],
    ...(setting in user ? { globalValue: user[setting] } : {}),
    ...(setting in workspace ? { workspaceValue: workspace[setting] } : {}),
  });
  const warm = warmOptions(inspect);
  return { options: initializationOptions({ agentPath: '', permissionDialog: true, warm }), problems: warm.problems };
}

void test('nothing set: no warm option is sent, the server keeps its defaults', () => {
  // inspect's defaultValue (the server's defaults, declared in package.json) is no set value.
  assert.deepEqual(sent({}), { options: { permissionDialog: true }, problems: [] });
  // A setting VS Code does not know (an older package.json) is not set either.
  const unknown = warmOptions(() => undefined);
  assert.deepEqual(initializationOptions({ agentPath: '/opt/bin', permissionDialog: false, warm: unknown }), {
    permissionDialog: false,
    agentPath: '/opt/bin',
  });
});

void test('each warm setting the user set is sent under the server\'s name', () => {
  assert.deepEqual(sent({ 'warm.idleSeconds': 0.5 }).options, { warmIdleSeconds: 0.5, permissionDialog: true });
  assert.deepEqual(sent({ 'warm.idleSeconds': 0 }).options, { warmIdleSeconds: 0, permissionDialog: true });
  assert.deepEqual(sent({ 'warm.members': 2 }).options, { warmMembers: 2, permissionDialog: true });
  assert.deepEqual(sent({ 'warm.memoryMB': 512.5 }).options, { warmMemoryMB: 512.5, permissionDialog: true });
  assert.deepEqual(sent({ 'warm.headless': true }).options, { warmHeadless: true, permissionDialog: true });
  // Set to the default's value is still set: sent as the user wrote it.
  assert.deepEqual(sent({ 'warm.headless': false }).options, { warmHeadless: false, permissionDialog: true });
  const all = { 'warm.idleSeconds': 60, 'warm.members': 3, 'warm.memoryMB': 1024, 'warm.headless': true };
  assert.deepEqual(sent(all), {
    options: { warmIdleSeconds: 60, warmMembers: 3, warmMemoryMB: 1024, warmHeadless: true, permissionDialog: true },
    problems: [],
  });
  // The workspace's value wins over the user's, as in WorkspaceConfiguration.get.
  assert.deepEqual(sent({ 'warm.members': 3 }, { 'warm.members': 1 }).options, { warmMembers: 1, permissionDialog: true });
});

void test('a warm setting of the wrong type is not sent, and the user is told why', () => {
  const wrong = { 'warm.idleSeconds': '5', 'warm.members': 2.5, 'warm.memoryMB': -1, 'warm.headless': 'yes' };
  assert.deepEqual(sent(wrong), {
    options: { permissionDialog: true },
    problems: [
      'chatmd.warm.idleSeconds is "5", not a number of seconds, 0 or more: the server\'s default is used',
      'chatmd.warm.members is 2.5, not a whole number, 0 or more: the server\'s default is used',
      'chatmd.warm.memoryMB is -1, not a number of MB, 0 or more: the server\'s default is used',
      'chatmd.warm.headless is "yes", not true or false: the server\'s default is used',
    ],
  });
  // One wrong setting leaves the others alone.
  assert.deepEqual(sent({ 'warm.members': null, 'warm.idleSeconds': 10, 'warm.headless': 1 }).options, {
    warmIdleSeconds: 10,
    permissionDialog: true,
  });
});

void test('package.json declares the warm settings with the server\'s defaults, restricted in untrusted workspaces', () => {
  // The bundle runs from out-test/, beside package.json's folder.
  const manifest = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, { default?: unknown } | undefined> } };
    capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
  };
  const properties = manifest.contributes.configuration.properties;
  const restricted = manifest.capabilities.untrustedWorkspaces.restrictedConfigurations;
  for (const { setting } of WARM_SETTINGS) {
    assert.equal(properties[`chatmd.${setting}`]?.default, SERVER_DEFAULTS[setting], setting);
    assert.ok(restricted.includes(`chatmd.${setting}`), `chatmd.${setting} is not restricted`);
  }
  assert.deepEqual(
    WARM_SETTINGS.map((s) => s.setting),
    Object.keys(SERVER_DEFAULTS),
  );
});
