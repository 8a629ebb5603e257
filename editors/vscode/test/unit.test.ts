// Unit tests of the parts of the extension that need no VS Code: what the server and
// `chatmd members --json` send, and how the status bar words running turns.
// Bundled by esbuild and run with `node --test` (npm run test:unit).

import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { cursorBeforeSection, isAppendedSection } from '../src/sections';
import { parseMembers } from '../src/members';
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
