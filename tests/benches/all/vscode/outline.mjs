// VS Code's own Markdown outline of a file, in process: the language service VS Code's
// Markdown support runs (vscode-markdown-languageservice, markdown-it as its parser),
// its first call, its warm calls (the same version again) and its calls after a
// one-character edit. Prints {"first_ms", "warm_ms", "edited_ms", "symbols"}.
// Usage: node outline.mjs <file.md>
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import MarkdownIt from 'markdown-it';
import * as md from 'vscode-markdown-languageservice';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { URI } from 'vscode-uri';

const path = process.argv[2];
const text = readFileSync(path, 'utf8');
const uri = URI.file(path);
const doc = TextDocument.create(uri.toString(), 'markdown', 1, text);

// As VS Code's Markdown server sets markdown-it up.
const it = MarkdownIt({ html: true });
const parser = { slugifier: md.githubSlugifier, tokenize: async (d) => it.parse(d.getText(), {}) };
const never = () => ({ dispose() {} });
// VS Code's workspace tells the service when a document changes; the service drops
// what it cached for it then (without it, the outline after an edit is the old one).
const changeListeners = [];
const workspace = {
  workspaceFolders: [URI.file('/')],
  // VS Code's `Event` signature: (listener, thisArgs?, disposables?).
  onDidChangeMarkdownDocument: (listener, thisArgs) => {
    changeListeners.push(listener.bind(thisArgs));
    return { dispose() {} };
  },
  onDidCreateMarkdownDocument: never,
  onDidDeleteMarkdownDocument: never,
  getAllMarkdownDocuments: async () => [doc],
  hasMarkdownDocument: (r) => r.toString() === uri.toString(),
  openMarkdownDocument: async (r) => (r.toString() === uri.toString() ? doc : undefined),
  stat: async () => undefined,
  readDirectory: async () => [],
};
const logger = { level: md.LogLevel.Off, log() {} };
const service = md.createLanguageService({ workspace, parser, logger });
const token = { isCancellationRequested: false, onCancellationRequested: never };

let start = performance.now();
const symbols = await service.getDocumentSymbols(doc, { includeLinkDefinitions: true }, token);
const first = performance.now() - start;
const warm = [];
for (let i = 0; i < 7; i++) {
  start = performance.now();
  await service.getDocumentSymbols(doc, { includeLinkDefinitions: true }, token);
  warm.push(performance.now() - start);
}
warm.sort((a, b) => a - b);
// The warm calls above ask again for the same version, which the service answers from
// its cache. After a keystroke the version is new: one character typed at the end of
// the first line of message text from the middle on (the chatmd rows make the same
// edits), then the outline.
const lines = text.split(/\r\n|\r|\n/);
let line = Math.floor(lines.length / 2);
while (lines[line].startsWith('## ') || lines[line].startsWith('<!--')) line++;
const edited = [];
for (let i = 0; i < 7; i++) {
  const at = { line, character: lines[line].length + i };
  TextDocument.update(doc, [{ range: { start: at, end: at }, text: 'x' }], doc.version + 1);
  start = performance.now();
  for (const listener of changeListeners) listener(doc);
  await service.getDocumentSymbols(doc, { includeLinkDefinitions: true }, token);
  edited.push(performance.now() - start);
}
edited.sort((a, b) => a - b);
const count = (list) => list.reduce((n, s) => n + 1 + count(s.children ?? []), 0);
console.log(JSON.stringify({ first_ms: first, warm_ms: warm[3], edited_ms: edited[3], symbols: count(symbols) }));
