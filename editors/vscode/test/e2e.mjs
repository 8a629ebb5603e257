// End-to-end test of the chatmd VS Code extension in a real VS Code: code-server 4.100.3
// (VS Code 1.100.3) with the built .vsix installed, driven by playwright-core in headless
// Chromium. Run by scripts/test-editors-vscode, which builds everything and sets:
//
//   CHATMD_BIN        the built `chatmd` binary (absolute path)
//   FAKE_AGENT_BIN    the built `fake-agent` binary (symlinked as claude, codex and gemini)
//   CODE_SERVER       code-server's executable
//   CHATMD_VSIX       the packaged extension
//   PLAYWRIGHT_CORE   the playwright-core package folder (installed outside the extension)
//   CHROMIUM          the browser (default /usr/bin/chromium)
//   E2E_ARTIFACTS     where logs and failure screenshots go (default: a temp folder)
//   E2E_SCREENSHOTS   where the documentation screenshots go (default: E2E_ARTIFACTS);
//                     scripts/test-editors-vscode --screenshots sets docs/images
//   E2E_KEEP=1        keep the temp folder
//   E2E_ONLY=<regex>  run only the steps whose name matches (while working on them; the
//                     workbench still opens first)
//
// What a user does, step by step: open the demo chat, see the language, a diagnostic squiggle
// and completion after `@`; "chatmd: Send" from the palette; the running turn in the status bar;
// the answers in the file (read from disk after saving, never from the page); "chatmd: Ask…"
// with the member quick pick, then cancelling that turn from the status-bar item; both "Ask the
// Team About the Selection…" items from the editor's context menu (VS Code passes the file's Uri);
// "chatmd: Continue", "chatmd: Cancel" from the palette, the editor title's Send button and
// "chatmd: Restart Language Server". Then what the
// user types while a turn runs (test/e2e-drafts.mjs): a draft is never sent, and words typed right
// after Ctrl+Enter stay in the message; and the end of the file while answers stream
// (test/e2e-streaming.mjs): the next message typed there at human speed and at 1000 keys/s and
// sent (queued), a draft before the first words, keys right after Ctrl+Enter on the empty last
// line, an ACP permission answered in the dialog and with Ctrl+. — each checked byte for byte;
// and an ACP member working on files through the editor (test/e2e-files.mjs): it reads the unsaved
// editor, its write lands there, Ctrl+Z and "Undo @x's changes" take it back; then
// chatmd.warm.idleSeconds set in the Settings editor restarts the server, which ends that
// member's kept agent after that long.
// Every wait is for a condition, with a timeout; a failed step says what it waited for.
// The last line is "N passed, N failed".

import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { draftSteps, setUpDrafts } from './e2e-drafts.mjs';
import { filesSteps, setUpFiles } from './e2e-files.mjs';
import { setUpStreaming, streamingSteps } from './e2e-streaming.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..', '..');

function need(name) {
  const value = process.env[name];
  if (value === undefined || value === '') {
    console.error(`e2e: ${name} is not set (run scripts/test-editors-vscode, which sets it)`);
    process.exit(2);
  }
  if (!existsSync(value)) {
    console.error(`e2e: ${name}=${value} does not exist`);
    process.exit(2);
  }
  return resolve(value);
}

const CHATMD_BIN = need('CHATMD_BIN');
const FAKE_AGENT_BIN = need('FAKE_AGENT_BIN');
const CODE_SERVER = need('CODE_SERVER');
const CHATMD_VSIX = need('CHATMD_VSIX');
const PLAYWRIGHT_CORE = need('PLAYWRIGHT_CORE');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const { chromium } = createRequire(import.meta.url)(PLAYWRIGHT_CORE);

const root = mkdtempSync(join(tmpdir(), 'chatmd-vscode-e2e-'));
const ARTIFACTS = resolve(process.env.E2E_ARTIFACTS || join(root, 'artifacts'));
const SCREENSHOTS = resolve(process.env.E2E_SCREENSHOTS || ARTIFACTS);
mkdirSync(ARTIFACTS, { recursive: true });
mkdirSync(SCREENSHOTS, { recursive: true });

const ANSWER = 'The refund path converts before rounding, so the totals match; ship it after one more test of partial refunds.';
const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
const log = (msg) => console.log(`[${elapsed()}] ${msg}`);

// ----- the workspace, the agents, the profile -----------------------------------------------------
const ws = join(root, 'ws');
cpSync(join(repo, 'tests', 'fixtures', 'editor-demo'), ws, { recursive: true });
const chatPath = join(ws, 'release-review.chat.md');
const notesPath = join(ws, 'notes.chat.md');
writeFileSync(notesPath, '## @me\n@nobody please check the refund rounding.\n');
writeFileSync(join(ws, 'ended.chat.md'), '---\nstatus: ended\n---\n\n## @me\n@reviewer one more thing.\n');
// @reviewer's answer hands the word to @tester: "chatmd: Continue" lets @tester answer, slowly
// enough (a line every 3 s, set in its team's chatmd.toml) to be cancelled from the palette.
const slowTeam = join(ws, 'slow');
for (const member of ['reviewer', 'tester']) {
  cpSync(join(repo, 'tests', 'fixtures', 'editor-demo', member), join(slowTeam, member), { recursive: true });
}
const slowToml = join(slowTeam, 'chatmd.toml');
writeFileSync(slowToml, '[members.tester]\nenv = { FAKE_AGENT_DELAY_MS = "3000" }\n');
const continuePath = join(slowTeam, 'continue.chat.md');
writeFileSync(
  continuePath,
  '## @me\n@reviewer please review the refund changes.\n\n## @reviewer\n<!-- chatmd id=t1 agent=claude status=done -->\n' +
    'Two bugs in refund(). @tester can you write a test for each?\n',
);
const drafts = setUpDrafts(repo, ws, root);
const streaming = setUpStreaming(repo, ws);
const files = setUpFiles(ws, root);
// The warm settings' step: the files' ACP member (@writer), asked in a chat of its own.
const warmChatPath = join(ws, 'files', 'warm.chat.md');
writeFileSync(warmChatPath, '## @me\n@writer hello\n');
// The drafts' chatmd.toml sets `env`, which applies once the user trusts the file: trusted
// with `chatmd trust`, in a config folder of this run's own (the server gets it below).
const xdgConfig = join(root, 'xdg-config');
for (const toml of [join(ws, 'drafts', 'chatmd.toml'), slowToml, ...streaming.tomls, files.toml]) {
  execFileSync(CHATMD_BIN, ['trust', toml], {
    env: { ...process.env, XDG_CONFIG_HOME: xdgConfig },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
const agents = join(root, 'agents');
mkdirSync(agents);
// claude-agent-acp: the ACP member of the files steps (e2e-files.mjs).
for (const cli of ['claude', 'codex', 'gemini', 'claude-agent-acp']) {
  symlinkSync(FAKE_AGENT_BIN, join(agents, cli));
}
const user = join(root, 'user');
const exts = join(root, 'ext');
mkdirSync(join(user, 'User'), { recursive: true });
writeFileSync(
  join(user, 'User', 'settings.json'),
  JSON.stringify(
    {
      // No chatmd.server.path and no `chatmd` on code-server's PATH: the extension runs the
      // server its linux-x64 .vsix carries (CHATMD_VSIX, packaged with CHATMD_BIN).
      'chatmd.agentPath': agents,
      'chatmd.server.env': {
        FAKE_AGENT_TEXT: ANSWER,
        // One stdout line every 400 ms: a turn runs for a few seconds, long enough to be seen.
        FAKE_AGENT_DELAY_MS: '400',
        // This machine sets IS_SANDBOX=yes; the fake agents must not see it.
        IS_SANDBOX: '',
        // What the user trusts (the drafts' chatmd.toml), not the real user's.
        XDG_CONFIG_HOME: xdgConfig,
      },
      'files.hotExit': 'off',
      'files.autoSave': 'off',
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'workbench.enableExperiments': false,
      'security.workspace.trust.enabled': false,
      'telemetry.telemetryLevel': 'off',
      'extensions.autoUpdate': false,
      'extensions.autoCheckUpdates': false,
      'update.mode': 'none',
      'chat.disableAIFeatures': true,
      'editor.minimap.enabled': false,
      'window.commandCenter': false,
      'workbench.colorTheme': 'Default Light Modern',
    },
    null,
    2,
  ),
);
const config = join(root, 'config.yaml');
writeFileSync(config, 'auth: none\ncert: false\n');
const csLog = join(ARTIFACTS, 'code-server.log');

// ----- helpers -----------------------------------------------------------------------------------
/** Polls `check` until it returns a truthy value; an error marked `fatal` ends the wait at once. */
async function waitFor(what, check, timeoutMs = 20_000, intervalMs = 100) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const value = await check();
      if (value) {
        return value;
      }
    } catch (error) {
      if (error.fatal) {
        throw error;
      }
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}${last ? ` (last error: ${last.message})` : ''}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

function run(cmd, args, options = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolvePromise(out) : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}:\n${out}`))));
  });
}

async function freePort() {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

function section(text, member) {
  // The answer section of `member`: from its heading to the next `## ` heading.
  const start = text.indexOf(`\n## @${member}\n`);
  if (start < 0) {
    return undefined;
  }
  const rest = text.slice(start + 1);
  const next = rest.indexOf('\n## ', 3);
  return next < 0 ? rest : rest.slice(0, next + 1);
}

function findFiles(dir, accept) {
  if (!existsSync(dir)) {
    return [];
  }
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && accept(e.name))
    .map((e) => join(e.parentPath ?? e.path, e.name));
}

const results = [];
const only = process.env.E2E_ONLY ? new RegExp(process.env.E2E_ONLY) : undefined;
let page;
async function step(name, fn) {
  if (only && results.length > 0 && !only.test(name)) {
    log(`skip ${name}`);
    return true;
  }
  const started = Date.now();
  try {
    // Start from a quiet workbench: no menu, list or palette left open by an earlier step.
    await page?.keyboard.press('Escape');
    await page?.keyboard.press('Escape');
    await fn();
    results.push({ name, ok: true });
    log(`PASS ${name} (${((Date.now() - started) / 1000).toFixed(1)}s)`);
    return true;
  } catch (error) {
    results.push({ name, ok: false, error });
    log(`FAIL ${name}: ${error.message}`);
    if (page) {
      const shot = join(ARTIFACTS, `failure-${results.length}.png`);
      await page.screenshot({ path: shot }).catch(() => undefined);
      log(`     screenshot: ${shot}`);
    }
    return false;
  }
}

const palette = '.quick-input-widget';
const paletteInput = '.quick-input-widget .quick-input-box input';

async function runPaletteCommand(title) {
  await page.keyboard.press('F1');
  await page.locator(paletteInput).waitFor({ state: 'visible' });
  await page.keyboard.type(title);
  const row = page.locator(`${palette} .quick-input-list .monaco-list-row`, { hasText: title }).first();
  await row.waitFor({ state: 'visible', timeout: 10_000 });
  await row.click();
}

/**
 * Right-clicks the editor's text and picks `title` from its context menu: what VS Code runs then
 * gets the file's Uri as its argument (the palette passes none).
 */
async function runEditorContextMenuItem(title) {
  await page.locator('.monaco-editor .view-lines').first().click({ button: 'right' });
  // The editor's context menu lives in a shadow root; Playwright's CSS locators pierce it.
  const menu = page.locator('.context-view .monaco-menu').first();
  const item = menu.locator('.action-item', { hasText: title }).first();
  await item.waitFor({ state: 'visible', timeout: 10_000 });
  await item.hover();
  await item.click();
  // A click the menu swallowed (seen once in CI: the item highlighted, the menu still open):
  // the hovered item has the focus, and Enter runs it, as a user's second try would.
  try {
    await menu.waitFor({ state: 'hidden', timeout: 3_000 });
  } catch {
    await page.keyboard.press('Enter');
    await menu.waitFor({ state: 'hidden', timeout: 5_000 });
  }
}

/** Waits until a new `chatmd lsp` runs and none of the `before` processes does. */
async function newServerInPlaceOf(before) {
  await waitFor(
    'a new `chatmd lsp` process, and the old one gone',
    async () => {
      const now = serverPids();
      return now.length > 0 && now.every((pid) => !before.includes(pid));
    },
    30_000,
    200,
  );
}

async function openFile(name) {
  await page.keyboard.press('Control+P');
  await page.locator(paletteInput).waitFor({ state: 'visible' });
  await page.keyboard.type(name);
  const row = page.locator(`${palette} .quick-input-list .monaco-list-row`, { hasText: name }).first();
  await row.waitFor({ state: 'visible', timeout: 10_000 });
  // A click, not Enter: Enter opens the focused row, which can still be a recent file while
  // the list filters.
  await row.click();
  await page.locator('.tabs-container .tab.active', { hasText: name }).waitFor({ timeout: 10_000 });
}

/**
 * Throws (fatal for waitFor) when a notification is showing: the steps that run turns clear the
 * notifications first, so one that appears is the extension or the server saying what failed.
 */
async function failOnChatmdNotification(what) {
  const toast = page.locator('.notifications-toasts .notification-list-item-message').first();
  if (await toast.isVisible()) {
    throw Object.assign(new Error(`${what}; the extension showed: "${await toast.innerText()}"`), { fatal: true });
  }
}

async function clearNotifications() {
  await runPaletteCommand('Notifications: Clear All Notifications');
  await waitFor('the notifications to go away', async () => (await page.locator('.notifications-toasts .notification-toast').count()) === 0, 5000);
}

/** Waits for a running-turn status item; a chatmd error notification fails at once, with its text. */
async function waitForTurnOrError(item, timeoutMs = 20_000) {
  await waitFor(
    'a running turn in the status bar',
    async () => (await item.isVisible()) || (await failOnChatmdNotification('no turn started')),
    timeoutMs,
    100,
  );
}

/**
 * Saves the active editor (Ctrl+S, again every 2 s: an edit may still land after a save) until
 * the chat on disk passes `check`; returns the text. The file is the evidence, never the page.
 */
async function saveUntil(what, check, file = chatPath, timeoutMs = 20_000) {
  await page.locator('.monaco-editor .view-lines').first().click();
  let saved = 0;
  return waitFor(
    what,
    async () => {
      if (Date.now() - saved > 2000) {
        await page.keyboard.press('Control+S');
        saved = Date.now();
      }
      const text = readFileSync(file, 'utf8');
      return check(text) && text;
    },
    timeoutMs,
    200,
  ).catch((error) => {
    throw new Error(`${error.message}\n--- ${file} on disk:\n${readFileSync(file, 'utf8')}`);
  });
}

/** The process ids of the `… lsp` processes this run's extension started (other runs may be going on). */
function serverPids() {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return argv[1] === 'lsp' && argv[0].startsWith(exts);
      } catch {
        return false;
      }
    });
}

/** This process's PATH without the folders that hold a `chatmd`. */
function pathWithoutChatmd() {
  return (process.env.PATH ?? '')
    .split(':')
    .filter((dir) => dir !== '' && !existsSync(join(dir, 'chatmd')))
    .join(':');
}

/** The programs of the running `… lsp` processes (from /proc: argv[0] as started). */
function runningServers() {
  const found = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (argv[1] === 'lsp') {
        found.push(argv[0]);
      }
    } catch {
      // The process ended meanwhile.
    }
  }
  return found;
}

const statusTurns = () => page.locator('.statusbar-item', { hasText: /@\w+ \d+s/ });

// ----- run ---------------------------------------------------------------------------------------
let codeServer;
let browser;
try {
  log(`workspace ${ws}, artifacts ${ARTIFACTS}`);
  await run(CODE_SERVER, ['--config', config, '--user-data-dir', user, '--extensions-dir', exts, '--install-extension', CHATMD_VSIX]);
  log('extension installed');

  const port = await freePort();
  const logFd = openSync(csLog, 'w');
  codeServer = spawn(
    CODE_SERVER,
    [
      '--config', config, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`,
      '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
      '--disable-getting-started-override', '--user-data-dir', user, '--extensions-dir', exts, ws,
    ],
    { stdio: ['ignore', logFd, logFd], detached: true, env: { ...process.env, PATH: pathWithoutChatmd() } },
  );
  let exited = false;
  codeServer.on('exit', () => (exited = true));
  await waitFor('code-server /healthz', async () => {
    if (exited) {
      throw new Error(`code-server exited; see ${csLog}`);
    }
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    return res.ok;
  }, 60_000, 200);
  log(`code-server ready on port ${port}`);

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  page.setDefaultTimeout(20_000);

  await step('workbench opens with the demo workspace', async () => {
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    await page.locator('.explorer-item', { hasText: 'release-review.chat.md' }).waitFor({ timeout: 30_000 });
  });

  await step('a .chat.md file opens in the chatmd language ("Chat Markdown")', async () => {
    await openFile('notes.chat.md');
    await page.locator('#status\\.editor\\.mode', { hasText: 'Chat Markdown' }).waitFor({ timeout: 20_000 });
  });

  await step('the server starts and its diagnostic (unknown @nobody) is squiggled', async () => {
    await page.locator('.monaco-editor .squiggly-warning').first().waitFor({ timeout: 30_000 });
  });

  await step('the server that runs is the one the .vsix carries (no chatmd on PATH, no setting)', async () => {
    const bundled = (p) => p.startsWith(exts) && p.endsWith('/server/chatmd');
    await waitFor('a `chatmd lsp` from the extension folder', async () => runningServers().some(bundled), 10_000, 100);
    log(`server: ${runningServers().filter(bundled).join(', ')}`);
  });

  await step('completion after @ lists the team', async () => {
    await page.locator('.monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' @');
    const widget = page.locator('.editor-widget.suggest-widget.visible');
    await widget.waitFor({ timeout: 15_000 });
    for (const member of ['reviewer', 'tester', 'writer']) {
      await widget.locator('.monaco-list-row', { hasText: member }).first().waitFor({ timeout: 10_000 });
    }
    await page.screenshot({ path: join(SCREENSHOTS, 'vscode-completion.png') });
    await page.keyboard.press('Escape');
  });

  await step('"chatmd: Send" in an ended chat starts no turn, and the server says why', async () => {
    await openFile('ended.chat.md');
    await clearNotifications();
    await runPaletteCommand('chatmd: Send');
    const toast = page.locator('.notifications-toasts .notification-list-item-message', { hasText: 'ended' }).first();
    await toast.waitFor({ timeout: 15_000 });
    log(`notification: ${await toast.innerText()}`);
    if ((await statusTurns().count()) !== 0) {
      throw new Error('a turn started in an ended chat');
    }
  });

  const sendOk = await step('"chatmd: Send" from the palette starts the turns; the status bar shows them', async () => {
    await clearNotifications();
    await openFile('release-review.chat.md');
    await page.locator('.monaco-editor .view-lines', { hasText: 'payment' }).first().waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'vscode-chat.png') });
    await runPaletteCommand('chatmd: Send');
    const item = statusTurns().first();
    await waitForTurnOrError(item);
    const text = await item.innerText();
    if (!/@reviewer/.test(text) && !/@tester/.test(text)) {
      throw new Error(`the status-bar item shows "${text}", not @reviewer or @tester`);
    }
    log(`status bar: ${text.replace(/\s+/g, ' ')}`);
    // Time the screenshot (only that: the answers are checked on disk) for both answers on
    // screen, @reviewer's still streaming in word by word.
    await waitFor(
      'two answers on screen',
      async () => (await page.locator('.monaco-editor .view-line', { hasText: 'refund path' }).count()) >= 2,
      20_000,
      100,
    ).catch(() => undefined);
    await page.screenshot({ path: join(SCREENSHOTS, 'vscode-streaming.png') });
    // The item with its tooltip, cropped to the bottom-left corner.
    await item.hover();
    await page.locator('.monaco-hover', { hasText: 'running turns' }).first().waitFor({ timeout: 5000 }).catch(() => undefined);
    const viewport = page.viewportSize();
    await page.screenshot({
      path: join(SCREENSHOTS, 'vscode-status-bar.png'),
      clip: { x: 0, y: viewport.height - 200, width: 640, height: 200 },
    });
    await page.mouse.move(viewport.width / 2, viewport.height / 2);
  });

  if (sendOk) {
    await step('the turns end and both answers are in the file on disk', async () => {
      await waitFor('the running-turns status item to go away', async () => (await statusTurns().count()) === 0, 90_000, 200);
      const text = await saveUntil('the saved chat to hold done answers from @reviewer and @tester', (t) =>
        ['reviewer', 'tester'].every((m) => {
          const s = section(t, m);
          return s !== undefined && /<!-- chatmd [^>]*status=done/.test(s) && s.includes(ANSWER);
        }),
      );
      log(`chat on disk: ${text.length} bytes, sections ${[...text.matchAll(/^## @(\S+)/gm)].map((m) => m[1]).join(', ')}`);
      await page.screenshot({ path: join(SCREENSHOTS, 'vscode-answer.png') });
    });

    await step('"chatmd: Ask…" picks @writer, and the status-bar item cancels its turn', async () => {
      await clearNotifications();
      await runPaletteCommand('chatmd: Ask…');
      const pick = page.locator(`${palette} .quick-input-list .monaco-list-row`, { hasText: '@writer' }).first();
      await pick.waitFor({ timeout: 15_000 });
      await page.screenshot({ path: join(SCREENSHOTS, 'vscode-ask.png') });
      await pick.click();
      const item = page.locator('.statusbar-item', { hasText: /@writer \d+s/ });
      await waitForTurnOrError(item);
      await item.click();
      const turnRow = page.locator(`${palette} .quick-input-list .monaco-list-row`, { hasText: '@writer' }).first();
      await turnRow.waitFor({ timeout: 10_000 });
      await page.screenshot({ path: join(SCREENSHOTS, 'vscode-cancel.png') });
      await turnRow.click();
      await waitFor('the @writer status item to go away', async () => (await item.count()) === 0, 30_000, 200);
      await saveUntil('the saved chat to hold a cancelled @writer section', (t) => {
        const s = section(t, 'writer');
        return s !== undefined && /<!-- chatmd [^>]*status=cancelled/.test(s);
      });
    });
  }

  let newChat;
  const newChatOk = await step('"chatmd: New Chat" creates a chat file and opens it', async () => {
    const before = new Set(readdirSync(ws));
    await clearNotifications();
    await runPaletteCommand('chatmd: New Chat');
    await page.locator(paletteInput).waitFor({ state: 'visible' });
    await page.keyboard.type('Payment follow-up');
    await page.keyboard.press('Enter');
    const created = await waitFor(
      'a new .chat.md file in the workspace folder',
      async () =>
        readdirSync(ws).find((name) => name.endsWith('.chat.md') && !before.has(name)) ??
        (await failOnChatmdNotification('no chat was created')),
      20_000,
      200,
    );
    log(`new chat: ${created}`);
    newChat = join(ws, created);
    await page.locator('.tabs-container .tab.active', { hasText: created }).waitFor({ timeout: 15_000 });
    await page.locator('#status\\.editor\\.mode', { hasText: 'Chat Markdown' }).waitFor({ timeout: 10_000 });
  });

  if (newChatOk) {
    await step('in the new chat, Ctrl+Enter sends, and so does the "▶ Send" code lens', async () => {
      const done = (member) => (t) => {
        const s = section(t, member);
        return s !== undefined && /<!-- chatmd [^>]*status=done/.test(s) && s.includes(ANSWER);
      };
      await page.locator('.monaco-editor .view-lines').first().click();
      await page.keyboard.press('Control+End');
      await page.keyboard.type('@reviewer is the rounding right now?');
      await page.keyboard.press('Escape'); // the completion list, if it is still open
      await clearNotifications();
      await page.locator('.monaco-editor .view-lines').first().click();
      await page.keyboard.press('Control+Enter');
      const reviewer = page.locator('.statusbar-item', { hasText: /@reviewer \d+s/ });
      await waitForTurnOrError(reviewer);
      await waitFor('the @reviewer turn to end', async () => (await reviewer.count()) === 0, 60_000, 200);
      await saveUntil('the new chat on disk to hold a done @reviewer answer', done('reviewer'), newChat);

      // The server added an empty `## @me` for the reply: write it and send with the lens.
      await page.locator('.monaco-editor .view-lines').first().click();
      await page.keyboard.press('Control+End');
      await page.keyboard.type('@tester please add a test for it.');
      await page.keyboard.press('Escape');
      const lens = page.locator('.monaco-editor .codelens-decoration a', { hasText: 'Send to @tester' }).first();
      await lens.waitFor({ timeout: 15_000 });
      await page.screenshot({ path: join(SCREENSHOTS, 'vscode-code-lens.png') });
      await lens.click();
      const tester = page.locator('.statusbar-item', { hasText: /@tester \d+s/ });
      await waitForTurnOrError(tester);
      await waitFor('the @tester turn to end', async () => (await tester.count()) === 0, 60_000, 200);
      await saveUntil('the new chat on disk to hold a done @tester answer', done('tester'), newChat);
    });

    await step('"Retry @tester" from the code action menu (Ctrl+.) answers again', async () => {
      const before = readFileSync(newChat, 'utf8');
      // A retried turn keeps its id; its start time is the new one.
      const started = /<!-- chatmd [^>]*started=(\S+)/.exec(section(before, 'tester') ?? '')?.[1];
      // The cursor on the first line of @tester's answer (Ctrl+G takes a 1-based line).
      const line = before.split('\n').findIndex((l) => l === '## @tester') + 3;
      await page.keyboard.press('Control+G');
      await page.locator(paletteInput).waitFor({ state: 'visible' });
      await page.keyboard.type(String(line));
      await page.keyboard.press('Enter');
      await clearNotifications();
      await page.keyboard.press('Control+.');
      const action = page.locator('.action-widget .monaco-list-row', { hasText: 'Retry @tester' }).first();
      await action.waitFor({ timeout: 15_000 });
      await page.screenshot({ path: join(SCREENSHOTS, 'vscode-retry.png') });
      // The menu takes keys (a pointer guard covers it until the mouse moves): walk down to it.
      await waitFor('"Retry @tester" to be the focused action', async () => {
        if (/\bfocused\b/.test((await action.getAttribute('class')) ?? '')) {
          return true;
        }
        await page.keyboard.press('ArrowDown');
        return false;
      }, 10_000, 50);
      await page.keyboard.press('Enter');
      const tester = page.locator('.statusbar-item', { hasText: /@tester \d+s/ });
      await waitForTurnOrError(tester);
      await waitFor('the @tester turn to end', async () => (await tester.count()) === 0, 60_000, 200);
      await saveUntil(
        `one done @tester answer, started again (not at ${started})`,
        (t) => {
          const s = section(t, 'tester');
          const again = /<!-- chatmd [^>]*status=done[^>]*started=(\S+)/.exec(s ?? '');
          return t.split('\n## @tester\n').length === 2 && again !== null && again[1] !== started && s.includes(ANSWER);
        },
        newChat,
      );
    });
  }

  await step('"Ask the Team About the Selection…" from the context menu of a source file sends its lines to the most recent chat', async () => {
    writeFileSync(join(ws, 'calc.rs'), 'fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n');
    await clearNotifications();
    // From the explorer, not Quick Open: the file is new, and Quick Open's file search may
    // not know it yet ("No matching results" under load), while the explorer watches.
    const listed = page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'calc.rs' }).first();
    await listed.waitFor({ state: 'visible', timeout: 10_000 });
    await listed.click();
    await page.locator('.tabs-container .tab.active', { hasText: 'calc.rs' }).waitFor({ timeout: 10_000 });
    await page.locator('.monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+A');
    // From the editor's context menu, where the guides say to ask: VS Code passes calc.rs's Uri.
    await runEditorContextMenuItem('Ask the Team About the Selection…');
    await page.locator(paletteInput).waitFor({ state: 'visible' });
    await page.keyboard.type('reviewer');
    await page.keyboard.press('Enter');
    const asked = '@reviewer about #file:calc.rs:1-3:\n\n```rust\nfn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n```\n';
    // The message lands in the chat's buffer (the extension shows it); saved, it is on disk.
    let saved = 0;
    const chat = await waitFor(
      'a chat on disk holding the question and a done @reviewer answer after it',
      async () => {
        if (Date.now() - saved > 2000) {
          await runPaletteCommand('File: Save All');
          saved = Date.now();
        }
        return readdirSync(ws).find((name) => {
          if (!name.endsWith('.chat.md')) {
            return false;
          }
          const text = readFileSync(join(ws, name), 'utf8');
          const at = text.indexOf(asked);
          return at >= 0 && /## @reviewer\n<!-- chatmd [^>]*status=done/.test(text.slice(at)) && text.includes(ANSWER, at);
        });
      },
      60_000,
      200,
    );
    log(`asked in ${chat}`);
  });

  await step('"…About the Selection in a New Chat…" from the context menu creates a chat for the lines and asks there', async () => {
    await clearNotifications();
    await page.locator('.tabs-container .tab', { hasText: 'calc.rs' }).first().click();
    await page.locator('.tabs-container .tab.active', { hasText: 'calc.rs' }).waitFor({ timeout: 10_000 });
    await page.locator('.monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+A');
    await runEditorContextMenuItem('Ask the Team About the Selection in a New Chat…');
    await page.locator(paletteInput).waitFor({ state: 'visible' });
    await page.keyboard.type('reviewer');
    await page.keyboard.press('Enter');
    const created = join(ws, 'about-calc-rs-lines-1-3.chat.md');
    const asked =
      '---\ntitle: About calc.rs lines 1-3\n---\n\n## @me\n@reviewer about #file:calc.rs:1-3:\n\n' +
      '```rust\nfn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n```\n\n## @reviewer\n';
    // The extension shows the new chat; the answer streams into its buffer, saved below.
    await page.locator('.tabs-container .tab', { hasText: 'about-calc-rs-lines-1-3.chat.md' }).waitFor({ timeout: 15_000 });
    let saved = 0;
    await waitFor(
      'the new chat on disk with the question and a done @reviewer answer',
      async () => {
        if (Date.now() - saved > 2000) {
          await runPaletteCommand('File: Save All');
          saved = Date.now();
        }
        const text = existsSync(created) ? readFileSync(created, 'utf8') : '';
        return text.startsWith(asked) && /## @reviewer\n<!-- chatmd [^>]*status=done/.test(text) && text.includes(ANSWER);
      },
      60_000,
      200,
    );
  });

  await step('"chatmd: Continue" lets the member the last answer hands the word to answer; "chatmd: Cancel" from the palette stops it', async () => {
    await clearNotifications();
    await openFile('continue.chat.md');
    await runPaletteCommand('chatmd: Continue');
    const item = page.locator('.statusbar-item', { hasText: /@tester \d+s/ });
    await waitForTurnOrError(item);
    await runPaletteCommand('chatmd: Cancel');
    const turnRow = page.locator(`${palette} .quick-input-list .monaco-list-row`, { hasText: '@tester' }).first();
    await turnRow.waitFor({ timeout: 10_000 });
    await turnRow.click();
    await waitFor('the @tester status item to go away', async () => (await item.count()) === 0, 30_000, 200);
    await saveUntil(
      'the saved chat to hold a cancelled @tester section after @reviewer\'s answer',
      (t) => {
        const s = section(t, 'tester');
        return t.indexOf('## @tester') > t.indexOf('## @reviewer') && s !== undefined && /<!-- chatmd [^>]*status=cancelled/.test(s);
      },
      continuePath,
    );
  });

  await step('the ▶ Send button of the editor title sends the chat it is on (VS Code passes its Uri)', async () => {
    await openFile('ended.chat.md');
    await clearNotifications();
    await page.locator('.editor-actions .action-label[aria-label^="Send"]').first().click();
    // The server's answer for this chat (it ended), not the extension's "needs `uri`".
    const toast = page.locator('.notifications-toasts .notification-list-item-message').first();
    await toast.waitFor({ timeout: 15_000 });
    const text = await toast.innerText();
    if (!/ended/.test(text)) {
      throw new Error(`the notification says "${text}", not the server's reason (the chat ended)`);
    }
  });

  await step('"chatmd: Restart Language Server" starts a new server in place of the old one', async () => {
    const before = serverPids();
    if (before.length === 0) {
      throw new Error('no server runs before the restart');
    }
    await runPaletteCommand('chatmd: Restart Language Server');
    await newServerInPlaceOf(before);
  });

  await draftSteps({ page, step, waitFor, saveUntil, openFile, clearNotifications, waitForTurnOrError, log }, drafts);
  await streamingSteps({ page, step, waitFor, saveUntil, openFile, clearNotifications, waitForTurnOrError, log }, streaming);
  await filesSteps({ page, step, waitFor, saveUntil, openFile, clearNotifications, waitForTurnOrError, log }, files);

  await step('chatmd.warm.idleSeconds, set in the Settings editor, restarts the server, which applies it: @writer\'s agent, kept after its answer, ends after that long', async () => {
    await openFile('warm.chat.md');
    const before = await waitFor('a `chatmd lsp` process', async () => serverPids().length > 0 && serverPids(), 30_000, 200);
    // Set in the Settings editor, on its Remote tab. Set on the User tab instead, the server
    // restarted without chatmd.server.env's variables (seen in code-server 4.100.3), and so
    // without this run's trust store: the server settings belong on the Remote tab there.
    await runPaletteCommand('Preferences: Open User Settings');
    await page.locator('.settings-editor').waitFor({ timeout: 15_000 });
    await page.keyboard.type('chatmd.warm.idleSeconds');
    await page.locator('.settings-editor .settings-tabs-widget .action-label', { hasText: 'Remote' }).click();
    const setting = page.locator('.settings-editor .setting-item-contents', { hasText: 'Idle Seconds' }).first();
    await setting.waitFor({ timeout: 15_000 });
    await setting.locator('input').fill('0.5');
    await newServerInPlaceOf(before);
    // The fake ACP agent logs `{"started": pid}` when it starts.
    const startedPids = () =>
      readFileSync(files.log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line).started)
        .filter((pid) => pid !== undefined);
    const earlier = existsSync(files.log) ? startedPids().length : 0;
    await page.keyboard.press('Control+W');
    await page.locator('.settings-editor').waitFor({ state: 'detached', timeout: 10_000 });
    await openFile('warm.chat.md');
    await clearNotifications();
    await page.locator('.monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('End');
    await page.keyboard.press('Control+Enter');
    const writerTurn = page.locator('.statusbar-item', { hasText: /@writer \d+s/ });
    await waitForTurnOrError(writerTurn);
    await saveUntil('@writer\'s answer', (text) => text.includes('status=done') && text.endsWith('\n## @me\n'), warmChatPath, 60_000);
    const started = startedPids().slice(earlier);
    if (started.length !== 1) {
      throw new Error(`agents started for the turn: ${JSON.stringify(started)}`);
    }
    // Without the setting, the server keeps it for 300 s.
    const running = (pid) => {
      try {
        return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z');
      } catch {
        return false;
      }
    };
    await waitFor(`@writer's agent (${started[0]}) to end after chatmd.warm.idleSeconds`, async () => !running(started[0]), 15_000, 100);
  });

  await step('a missing server is reported with the install command and a button to the setting', async () => {
    // Set chatmd.server.path to a path where there is no server, in the Settings editor.
    await runPaletteCommand('Preferences: Open User Settings');
    const setting = page.locator('.settings-editor .setting-item-contents', { hasText: 'Server: Path' }).first();
    await page.locator('.settings-editor').waitFor({ timeout: 15_000 });
    await page.keyboard.type('chatmd.server.path');
    // The server settings are machine settings: in code-server (a remote window) they are on the
    // "Remote" tab; in a local VS Code on "User".
    await page.locator('.settings-editor .settings-tabs-widget .action-label', { hasText: 'Remote' }).click();
    await setting.waitFor({ timeout: 15_000 });
    await setting.locator('input').fill(join(root, 'no-such-folder', 'chatmd'));
    // The extension restarts the server when its settings change, and finds none.
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'cargo install --path server' }).first();
    await toast.waitFor({ timeout: 20_000 });
    await page.screenshot({ path: join(SCREENSHOTS, 'vscode-missing-server.png') });
    // Its button opens the Settings editor at the setting.
    await page.keyboard.press('Control+W');
    await page.locator('.settings-editor').waitFor({ state: 'detached', timeout: 10_000 });
    await toast.locator('.monaco-button', { hasText: 'Open Settings' }).click();
    await page.locator('.settings-editor .setting-item-contents', { hasText: 'Server: Path' }).first().waitFor({ timeout: 15_000 });
  });
} catch (error) {
  results.push({ name: 'setup', ok: false, error });
  log(`FAIL setup: ${error.stack ?? error.message}`);
} finally {
  await browser?.close().catch(() => undefined);
  if (codeServer && codeServer.exitCode === null) {
    // code-server was started in its own process group: end it and its children (the
    // extension host and the language server) together.
    try {
      process.kill(-codeServer.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    await Promise.race([once(codeServer, 'exit'), new Promise((r) => setTimeout(r, 5000))]);
    try {
      process.kill(-codeServer.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

const failed = results.filter((r) => !r.ok);
if (failed.length > 0) {
  // The language server's log says why a turn did not start or a command failed.
  for (const file of findFiles(join(user, 'logs'), (name) => name.includes('chatmd'))) {
    const copy = join(ARTIFACTS, file.split('/').slice(-1)[0]);
    cpSync(file, copy);
    log(`server log: ${copy}`);
    console.log(readFileSync(file, 'utf8').split('\n').slice(-30).join('\n'));
  }
}
if (process.env.E2E_KEEP === '1' || failed.length > 0) {
  log(`kept ${root}`);
} else {
  rmSync(root, { recursive: true, force: true });
}
console.log(`vscode-e2e: ${results.length - failed.length} passed, ${failed.length} failed`);
process.exit(failed.length > 0 ? 1 : 0);
