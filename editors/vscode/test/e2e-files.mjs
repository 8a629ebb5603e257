// Steps of the end-to-end test (test/e2e.mjs) about an ACP member that works on files through
// VS Code (issue 31). The member is the fake claude-agent-acp (MOCK-MODE=writefile): it reads a
// file with `fs/read_text_file` and writes it back with its first line upper-cased through
// `fs/write_text_file`.
//
// - it reads ledger.rs, open with a change the user has not saved: it gets the editor's text;
//   its write lands in that editor (dirty, the disk unchanged: no "file changed on disk"), the
//   chat lists the file with its diff, byte for byte; Ctrl+Z takes the write back, Ctrl+Shift+Z
//   brings it again;
// - the code action "Undo @writer's changes" (Ctrl+.) on the file's line restores the text, and
//   is refused with its message once the user changed the agent's line;
// - a file not open (notes.txt): it reads the disk; VS Code opens the file in a tab behind the
//   chat (which stays active) with the write in it, dirty, the disk unchanged;
// - a new file (new.txt): VS Code takes the `create` operation (an empty file on disk) and
//   the agent's text goes into its tab, dirty.
//
// What the buffers hold is read from the disk after Ctrl+S, as the other steps read the chat.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const LEDGER = 'fn ledger() {}\n// total\n';
const UNSAVED = 'fn ledger() { todo!() }\n// total\n';
const WRITTEN = 'FN LEDGER() { TODO!() }\n// total\n';
const MINE = 'FN LEDGER() { DONE }\n// total\n';
const NOTES = 'draft notes\nsecond line\n';
/** The member's words after its write (the workspace's FAKE_AGENT_TEXT, set for the others, is not its). */
const SAID = 'Upper-cased the first line.';

/** Creates `ws/files` (its chatmd.toml to trust is `toml`): a chat, ledger.rs and notes.txt. */
export function setUpFiles(ws, root) {
  const folder = join(ws, 'files');
  mkdirSync(folder, { recursive: true });
  const log = join(root, 'files-acp.jsonl');
  const toml = join(folder, 'chatmd.toml');
  writeFileSync(
    toml,
    '[members.writer]\nagent = "acp"\npreset = "claude"\n\n[members.writer.env]\n' +
      `FAKE_ACP_LOG = ${JSON.stringify(log)}\nIS_SANDBOX = "1"\nCLAUDE_CONFIG_DIR = ${JSON.stringify(join(root, 'files-state'))}\n` +
      `FAKE_ACP_CLAUDE_START_MODE = "bypassPermissions"\nFAKE_AGENT_TEXT = ${JSON.stringify(SAID)}\n`,
  );
  const ledger = join(folder, 'ledger.rs');
  const notes = join(folder, 'notes.txt');
  writeFileSync(ledger, LEDGER);
  writeFileSync(notes, NOTES);
  const ask = `## @me\n@writer MOCK-MODE=writefile WRITE-ABS=${ledger} fix it\n`;
  const chat = join(folder, 'agent-files.chat.md');
  writeFileSync(chat, ask);
  return { toml, log, ledger, notes, chat, ask };
}

/** What the client answered the fake agent (permission answers left out), in order. */
function answers(log) {
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((m) => m.method === undefined && m.id !== undefined && (m.result !== undefined || m.error !== undefined))
    .filter((m) => m.result?.outcome === undefined)
    .map((m) => (m.error !== undefined ? { error: m.error } : m.result));
}

export async function filesSteps(t, setup) {
  const { page, step, waitFor, saveUntil, openFile, clearNotifications, waitForTurnOrError } = t;
  const writerTurn = () => page.locator('.statusbar-item', { hasText: /@writer \d+s/ });
  const editor = () => page.locator('.monaco-editor .view-lines').first();
  const disk = (path) => readFileSync(path, 'utf8');
  const dirtyTab = (name) => page.locator('.tabs-container .tab.dirty', { hasText: name });
  const same = (what, expected, actual) => {
    if (expected !== actual) {
      throw new Error(`${what}\n--- expected\n${JSON.stringify(expected)}\n--- actual\n${JSON.stringify(actual)}`);
    }
  };
  const status = /<!-- chatmd id=t\d [^\n]*-->/g;

  /** openFile, once more after a miss: Quick Open's first search of a new folder can take longer. */
  async function open(name) {
    try {
      await openFile(name);
    } catch {
      await page.keyboard.press('Escape');
      await openFile(name);
    }
  }

  /** Saves the active editor (Ctrl+S) and waits for the disk to hold `expected`. */
  async function saveAndExpect(path, expected, what) {
    await editor().click();
    await page.keyboard.press('Control+S');
    await waitFor(what, async () => disk(path) === expected, 10_000).catch((error) => {
      throw new Error(`${error.message}\n--- expected\n${JSON.stringify(expected)}\n--- on disk\n${JSON.stringify(disk(path))}`);
    });
  }

  /** Picks `title` from the code actions (Ctrl+.) of the chat's line of ledger.rs. */
  async function changedLineAction(title) {
    await open('agent-files.chat.md');
    const text = disk(setup.chat);
    const line = text.split('\n').findIndex((l) => l.startsWith('> - changed `files/ledger.rs`')) + 1;
    if (line === 0) {
      throw new Error(`no line for ledger.rs in the chat:\n${text}`);
    }
    await page.keyboard.press('Control+G');
    await page.locator('.quick-input-widget .quick-input-box input').waitFor({ state: 'visible' });
    await page.keyboard.type(String(line));
    await page.keyboard.press('Enter');
    await page.keyboard.press('Control+.');
    const action = page.locator('.action-widget .monaco-list-row', { hasText: title }).first();
    await action.waitFor({ timeout: 15_000 });
    await waitFor(`"${title}" to be the focused action`, async () => {
      if (/\bfocused\b/.test((await action.getAttribute('class')) ?? '')) {
        return true;
      }
      await page.keyboard.press('ArrowDown');
      return false;
    }, 10_000, 50);
    await page.keyboard.press('Enter');
  }

  const ok = await step('an ACP member reads ledger.rs, open with an unsaved change, and gets the editor\'s text; its write lands in the editor (dirty, disk unchanged) and the chat lists the file, byte for byte', async () => {
    await open('ledger.rs');
    await editor().click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('Shift+End');
    await page.keyboard.type('fn ledger() { todo!() }');
    await dirtyTab('ledger.rs').waitFor({ timeout: 5_000 });
    await open('agent-files.chat.md');
    await clearNotifications();
    await editor().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('End');
    await page.keyboard.press('Control+Enter');
    await waitForTurnOrError(writerTurn());
    await waitFor('the @writer turn to end', async () => (await writerTurn().count()) === 0, 60_000, 200);
    const expected =
      `${setup.ask}\n## @writer\n<!-- S -->\n> - changed \`files/ledger.rs\` (+1 \u22121)\n\n` +
      '<details><summary>Diff of `files/ledger.rs`</summary>\n\n' +
      '```diff\n--- a/files/ledger.rs\n+++ b/files/ledger.rs\n@@ -1,2 +1,2 @@\n' +
      `-fn ledger() { todo!() }\n+FN LEDGER() { TODO!() }\n // total\n\`\`\`\n\n</details>\n\n${SAID}\n\n## @me\n`;
    let last = '';
    await saveUntil('the chat on disk, byte for byte', (text) => {
      last = text.replace(status, '<!-- S -->');
      return last === expected;
    }, setup.chat, 15_000).catch((error) => {
      throw new Error(`${error.message}\n--- expected\n${expected}--- got\n${last}`);
    });
    same('what the agent read, then the answer to its write', JSON.stringify([{ content: UNSAVED }, {}]), JSON.stringify(answers(setup.log)));
    same('ledger.rs on disk (not saved)', LEDGER, disk(setup.ledger));
    await dirtyTab('ledger.rs').waitFor({ timeout: 5_000 });
    await open('ledger.rs');
    await saveAndExpect(setup.ledger, WRITTEN, 'the agent\'s write, saved with Ctrl+S');
  });
  if (!ok) {
    return;
  }

  await step('Ctrl+Z in ledger.rs takes the agent\'s write back, Ctrl+Shift+Z brings it again', async () => {
    await editor().click();
    await page.keyboard.press('Control+Z');
    await saveAndExpect(setup.ledger, UNSAVED, 'the text before the write, after Ctrl+Z');
    await page.keyboard.press('Control+Shift+Z');
    await saveAndExpect(setup.ledger, WRITTEN, 'the write again, after Ctrl+Shift+Z');
  });

  await step('"Undo @writer\'s changes" (Ctrl+. on the file\'s line) restores ledger.rs; refused with its message once the user changed the agent\'s line', async () => {
    await changedLineAction("Undo @writer's changes");
    await dirtyTab('ledger.rs').waitFor({ timeout: 10_000 });
    await open('ledger.rs');
    await saveAndExpect(setup.ledger, UNSAVED, 'the text before the write, after the code action');
    // The agent's text again (Ctrl+Z undoes the code action's edit), then the user's change.
    await page.keyboard.press('Control+Z');
    await saveAndExpect(setup.ledger, WRITTEN, 'the write again, after Ctrl+Z');
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('Shift+End');
    await page.keyboard.type('FN LEDGER() { DONE }');
    await saveAndExpect(setup.ledger, MINE, 'the user\'s change');
    await clearNotifications();
    await changedLineAction("Undo @writer's changes");
    await page.locator('.notifications-toasts .notification-toast', {
      hasText: 'files/ledger.rs changed since @writer wrote it; undo by hand',
    }).first().waitFor({ timeout: 15_000 });
    same('ledger.rs after the refused undo', MINE, disk(setup.ledger));
    await clearNotifications();
  });

  await step('a file not open (notes.txt): the agent reads the disk; VS Code opens it in a tab behind the chat with the write in it, dirty, the disk unchanged', async () => {
    await open('agent-files.chat.md');
    await editor().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(`@writer MOCK-MODE=writefile WRITE-ABS=${setup.notes} again`);
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+Enter');
    await waitForTurnOrError(writerTurn());
    await waitFor('the second @writer turn to end', async () => (await writerTurn().count()) === 0, 60_000, 200);
    await saveUntil('the second answer on disk', (text) => /id=t2 [^\n]*status=done/.test(text) && text.endsWith('\n## @me\n'), setup.chat, 15_000);
    same('what the agent read of notes.txt, then the answer to its write', JSON.stringify([{ content: NOTES }, {}]), JSON.stringify(answers(setup.log).slice(2)));
    same('notes.txt on disk', NOTES, disk(setup.notes));
    // VS Code opens the file in a tab of its own, dirty, behind the chat, which stays active.
    await dirtyTab('notes.txt').waitFor({ timeout: 5_000 });
    same('the active tab', 'agent-files.chat.md', (await page.locator('.tabs-container .tab.active').first().innerText()).trim());
    await open('notes.txt');
    await saveAndExpect(setup.notes, 'DRAFT NOTES\nsecond line\n', 'the write to notes.txt, saved with Ctrl+S');
  });

  await step('a new file (new.txt): VS Code creates it empty on disk and opens it in a tab behind the chat with the agent\'s text, dirty', async () => {
    const created = join(setup.chat, '..', 'new.txt');
    await open('agent-files.chat.md');
    await editor().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(`@writer MOCK-MODE=writefile WRITE-ABS=${created} create it`);
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+Enter');
    await waitForTurnOrError(writerTurn());
    await waitFor('the third @writer turn to end', async () => (await writerTurn().count()) === 0, 60_000, 200);
    await saveUntil('the third answer on disk', (text) => /id=t3 [^\n]*status=done/.test(text) && text.endsWith('\n## @me\n'), setup.chat, 15_000);
    same('the answer to the write of a new file', JSON.stringify({}), JSON.stringify(answers(setup.log)[5]));
    same('new.txt on disk', '', disk(created));
    await dirtyTab('new.txt').waitFor({ timeout: 5_000 });
    await open('new.txt');
    await saveAndExpect(created, 'created by the fake agent\n', 'the new file, saved with Ctrl+S');
  });
}
