// Steps of the end-to-end test (test/e2e.mjs) about the end of the file while answers stream
// (issue 25): what the user types after a streaming section stays below it, the answer keeps
// growing at its own end, and every record lands in its own section. Each step checks the whole
// file on disk byte for byte (times, sessions and message hashes redacted).
//
// - the next message typed at the end of the file while a slow member streams, key by key at
//   human speed (30–80 ms a key) and at 1000 keys/s, then sent with Ctrl+Enter (queued while
//   the member answers, then answered);
// - a draft typed once the new section's heading shows and before its first words;
// - keys typed right after Ctrl+Enter with the cursor on the empty last line: none may land
//   inside the answer;
// - an ACP member's permission request (the fake `gemini --acp`, MOCK-MODE=toolwrite)
//   answered in the dialog and with the code action (Ctrl+.), the answer streaming on after.
//
// Each kind runs in a team folder of its own under `streaming/`, whose chatmd.toml sets the
// members' pace.

import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { normalize } from './e2e-drafts.mjs';

/** The slow members' answer: 32 deltas, one every 250 ms (about 8 s of streaming). */
export const SLOW_ANSWER =
  'Checked: the totals add up after the refund conversion, the rounding happens once at the end, and the partial refunds keep their cents.';
/** The late member's answer: its first words come 2 s or more after its heading. */
export const LATE_ANSWER = 'Late but sure: the totals are right.';
/** The ACP member's words after the tool call. */
export const ACP_TEXT = 'Created the notes file, as asked; nothing else changed.';

/** The slow answer's `tokens=` (in/out, as the fake counts them). */
const SLOW_TOKENS = '10/27';
const ASK_TOTALS = '## @me\n@writer please check the totals.\n';
const ASK_TOOL = '## @me\n@writer MOCK-MODE=toolwrite WRITE=notes.txt please create the file.\n';

/** Creates `ws/streaming/{slow,late,acp}`; returns their paths and the chatmd.toml files to trust. */
export function setUpStreaming(repo, ws) {
  const base = join(ws, 'streaming');
  const teams = {
    slow: `[members.writer]\nenv = { FAKE_AGENT_TEXT = ${JSON.stringify(SLOW_ANSWER)}, FAKE_AGENT_CHUNKS = "32", FAKE_AGENT_DELAY_MS = "250" }\n`,
    late: `[members.writer]\nenv = { FAKE_AGENT_TEXT = ${JSON.stringify(LATE_ANSWER)}, FAKE_AGENT_CHUNKS = "2", FAKE_AGENT_DELAY_MS = "1200" }\n`,
    acp:
      '[members.writer]\nagent = "acp"\npreset = "gemini"\n\n[members.writer.env]\n' +
      `FAKE_AGENT_TEXT = ${JSON.stringify(ACP_TEXT)}\nFAKE_AGENT_CHUNKS = "8"\nFAKE_AGENT_DELAY_MS = "250"\n`,
  };
  const tomls = [];
  const folders = {};
  for (const [name, toml] of Object.entries(teams)) {
    const folder = join(base, name);
    mkdirSync(folder, { recursive: true });
    cpSync(join(repo, 'tests', 'fixtures', 'editor-demo', 'writer'), join(folder, 'writer'), { recursive: true });
    writeFileSync(join(folder, 'chatmd.toml'), toml);
    tomls.push(join(folder, 'chatmd.toml'));
    folders[name] = folder;
  }
  const chats = {
    human: [folders.slow, 'next-message-human-speed.chat.md', ASK_TOTALS],
    fast: [folders.slow, 'next-message-fast.chat.md', ASK_TOTALS],
    late: [folders.late, 'draft-before-first-words.chat.md', ASK_TOTALS],
    afterSend: [folders.slow, 'typing-on-the-last-line.chat.md', ASK_TOTALS],
    dialog: [folders.acp, 'permission-dialog.chat.md', ASK_TOOL],
    action: [folders.acp, 'permission-code-action.chat.md', ASK_TOOL],
  };
  for (const [folder, name, text] of Object.values(chats)) {
    writeFileSync(join(folder, name), text);
  }
  return { tomls, chats };
}

/** Sleeps `ms`. */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The expected files, normalized (see `redact`). */
const writerSection = (id, answer, tokens) =>
  `## @writer\n<!-- chatmd id=${id} agent=gemini status=done seen=<H> started=<T> model=auto session=<S> took=<D> exit=0 tokens=${tokens} -->\n${answer}\n`;

/** normalize() and the message records (`seen=0:abcdef`, `seen=+2:abcdef`), which depend on when keys landed. */
export function redact(text) {
  return normalize(text).replace(/ seen=\S+/g, ' seen=<H>');
}

export async function streamingSteps(t, setup) {
  const { page, step, waitFor, saveUntil, openFile, clearNotifications, waitForTurnOrError, log } = t;
  const writerTurn = () => page.locator('.statusbar-item', { hasText: /@writer \d+s/ });
  const anyTurn = () => page.locator('.statusbar-item', { hasText: /@\w+ \d+s/ });
  const editor = () => page.locator('.monaco-editor .view-lines').first();
  const file = (key) => join(setup.chats[key][0], setup.chats[key][1]);

  /** Opens the chat, puts the cursor at the end of the message's last line and sends it. */
  async function openAndSend(key) {
    await openFile(setup.chats[key][1]);
    await clearNotifications();
    await editor().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('End');
    await page.keyboard.press('Control+Enter');
    await waitForTurnOrError(writerTurn());
  }

  /**
   * Types `text` key by key, each key `pace()` ms after the previous one; with no `pace`, one key
   * a millisecond (about 1000 keys/s). Before each Enter, Escape closes a
   * completion list (after `@`), which would take the Enter.
   */
  async function typeKeys(text, pace) {
    const lines = text.split('\n');
    for (const [i, line] of lines.entries()) {
      if (i > 0) {
        await page.keyboard.press('Escape');
        await page.keyboard.press('Enter');
      }
      if (pace === undefined) {
        // Each key sent 1 ms after the previous one without waiting for the browser to take it
        // (awaiting each key's round trip gives only some 50 keys/s here).
        const keys = [];
        for (const ch of line) {
          keys.push(page.keyboard.type(ch));
          await sleep(1);
        }
        await Promise.all(keys);
        continue;
      }
      for (const ch of line) {
        await page.keyboard.type(ch);
        await sleep(pace());
      }
    }
    await page.keyboard.press('Escape');
  }

  /** Waits for every turn to end, then for the saved file to equal `expected` (normalized). */
  async function expectFile(key, expected, timeoutMs = 60_000) {
    await waitFor('the turns to end', async () => (await anyTurn().count()) === 0, timeoutMs, 200);
    let last = '';
    await saveUntil(
      'the file on disk, byte for byte',
      (text) => {
        last = text;
        return redact(text) === expected;
      },
      file(key),
      10_000,
    ).catch((error) => {
      throw new Error(`${error.message}\n--- expected (normalized):\n${expected}\n--- got (normalized):\n${redact(last)}`);
    });
  }

  // ----- (a) the next message at the end while a slow member streams, sent (queued) ----------------
  const next = '\n\n## @me\n@writer QUEUED-MARK-5 and then this. ASK-QUEUED';
  for (const [key, speed, pace] of [
    ['human', 'key by key at human speed (30–80 ms a key)', () => 30 + Math.floor(Math.random() * 51)],
    ['fast', 'at 1000 keys/s', undefined],
  ]) {
    await step(`the next message typed at the end while @writer streams, ${speed}, then sent (queued), stays below the answer`, async () => {
      await openAndSend(key);
      await page.locator('.monaco-editor .view-line', { hasText: /Checked:/ }).first().waitFor({ timeout: 15_000 });
      await editor().click();
      await page.keyboard.press('Control+End');
      const typing = Date.now();
      await typeKeys(next, pace);
      log(`typed ${next.length} keys in ${Date.now() - typing} ms`);
      if (!(await writerTurn().isVisible())) {
        throw new Error('the @writer turn ended before the message was typed: the step tested nothing');
      }
      await page.keyboard.press('Control+Enter'); // queued while @writer answers
      const expected =
        `${ASK_TOTALS}\n${writerSection('t1', SLOW_ANSWER, SLOW_TOKENS)}${next}\n\n` +
        `${writerSection('t2', SLOW_ANSWER, SLOW_TOKENS)}\n## @me\n`;
      await expectFile(key, expected);
    });
  }

  // ----- (b) a draft after the heading shows and before the first words ----------------------------
  await step('a draft typed after the new section\'s heading shows and before its first words stays below the answer', async () => {
    await openAndSend('late');
    await page.locator('.monaco-editor .view-line', { hasText: '## @writer' }).first().waitFor({ timeout: 15_000 });
    await editor().click();
    await page.keyboard.press('Control+End');
    const draft = '\n\n## @me\nA draft before the first words.';
    await typeKeys(draft);
    const early = await page.locator('.monaco-editor .view-line', { hasText: /Late but/ }).count();
    if (early > 0) {
      throw new Error('the answer\'s first words showed before the draft was typed: the step tested nothing');
    }
    const expected = `${ASK_TOTALS}\n${writerSection('t1', LATE_ANSWER, '10/2')}${draft}`;
    await expectFile('late', expected);
  });

  // ----- (c) keys right after Ctrl+Enter on the empty last line ------------------------------------
  // The section lands at the cursor: VS Code would carry the cursor past it, and keys typed
  // before the extension moved it back went in at the end of the answer (4 runs of 5 before
  // CursorKeeper.placeSection). The keys are typed at once, 40 ms apart, while the section lands.
  {
    await step('keys typed right after Ctrl+Enter on the empty last line never land in the answer', async () => {
      await openFile(setup.chats.afterSend[1]);
      await clearNotifications();
      await editor().click();
      await page.keyboard.press('Control+End'); // the empty last line
      await page.keyboard.press('Control+Enter');
      const typed = 'And the rounding is right?';
      await page.keyboard.type(typed, { delay: 40 });
      await page.keyboard.press('Escape');
      await waitFor('the @writer turn to end', async () => (await anyTurn().count()) === 0, 60_000, 200);
      // The typed words are the message's last line, whole: typed before the section landed,
      // the server puts a blank line between them and the section; typed after, they fill the
      // blank line the section left.
      const answer = `${writerSection('t1', SLOW_ANSWER, SLOW_TOKENS)}\n## @me\n`;
      const shapes = [`${ASK_TOTALS}${typed}\n\n${answer}`, `${ASK_TOTALS}${typed}\n${answer}`];
      let last = '';
      await saveUntil(
        'the file on disk, byte for byte: the typed words all in the message',
        (text) => {
          last = text;
          return shapes.includes(redact(text));
        },
        file('afterSend'),
        10_000,
      ).catch((error) => {
        throw new Error(`${error.message}\n--- expected (normalized) one of:\n${shapes.join('\n--- or:\n')}\n--- got (raw):\n${JSON.stringify(last)}`);
      });
    });
  }

  // ----- (d) an ACP permission request answered, the answer streaming on -----------------------------
  const acpExpected = (record) =>
    `${ASK_TOOL}\n## @writer\n<!-- chatmd id=t1 agent=acp status=done started=<T> model=auto session=<S> took=<D> stop=end_turn exit=0 tokens=11865/10 -->\n` +
    `I'll run a command.\n\n> - Execute: touch notes.txt — completed\n\n> **Permission** t1-p1 — ${record}\n\n${ACP_TEXT}\n\n## @me\n`;
  await step('an ACP permission request answered in the dialog: the answer streams on, written once', async () => {
    await openAndSend('dialog');
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 't1-p1' }).first();
    await toast.waitFor({ timeout: 20_000 });
    await toast.locator('.monaco-button', { hasText: /^Allow$/ }).first().click();
    await expectFile('dialog', acpExpected('allowed once ("Allow"), by the editor\'s dialog'));
  });

  await step('an ACP permission request answered with the code action (Ctrl+.), the status bar saying @writer waits for your answer: the answer streams on, written once', async () => {
    await openAndSend('action');
    const text = await saveUntil('the permission block on disk', (s) => s.includes('- [ ] Reject'), file('action'), 20_000);
    // While it waits, the turn's progress in the status bar says so (it said "starting").
    await page.locator('.statusbar-item', { hasText: /@writer.*waits for your answer/ }).first()
      .waitFor({ timeout: 15_000 });
    const line = text.split('\n').findIndex((l) => l.startsWith('> **Permission**')) + 1;
    await page.keyboard.press('Control+G');
    await page.locator('.quick-input-widget .quick-input-box input').waitFor({ state: 'visible' });
    await page.keyboard.type(String(line));
    await page.keyboard.press('Enter');
    await page.keyboard.press('Control+.');
    const action = page.locator('.action-widget .monaco-list-row', { hasText: /^Allow \(t1-p1\)/ }).first();
    await action.waitFor({ timeout: 15_000 });
    await waitFor('"Allow (t1-p1)" to be the focused action', async () => {
      if (/\bfocused\b/.test((await action.getAttribute('class')) ?? '')) {
        return true;
      }
      await page.keyboard.press('ArrowDown');
      return false;
    }, 10_000, 50);
    await page.keyboard.press('Enter');
    await clearNotifications(); // the dialog for the same request, answered already
    await expectFile('action', acpExpected('allowed once ("Allow")'));
  });
}
