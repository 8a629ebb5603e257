// Unit tests of the parts of the extension that need no VS Code: what the server and
// `chatmd members --json` send, and how the status bar words running turns.
// Bundled by esbuild and run with `node --test` (npm run test:unit).

import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseMembers } from '../src/members';
import { formatElapsed, parseTurns, statusText, type Turn } from '../src/protocol';

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
