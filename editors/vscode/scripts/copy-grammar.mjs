// Copies the chatmd TextMate grammar from the repository's syntaxes/ folder into the extension
// (syntaxes/ is its single source; the copy is not committed). Run by `npm run grammar` and so by
// `vsce package` (vscode:prepublish). Fails with a clear message when the grammar is missing or is
// not the injection grammar the extension contributes.
//
// The grammar is contributed as an injection into the chatmd language's own grammar
// (syntaxes/chatmd-markdown.tmLanguage.json: VS Code's Markdown grammar, under the scope
// text.html.markdown.chatmd). Its scope name is normalised to `chatmd.injection`, the name
// package.json uses, so the grammar's author can name it as they like.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const extension = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const source = resolve(process.env.CHATMD_GRAMMAR ?? join(extension, '..', '..', 'syntaxes', 'chatmd.tmLanguage.json'));
const target = join(extension, 'syntaxes', 'chatmd.tmLanguage.json');
const SCOPE = 'chatmd.injection';

function fail(message) {
  console.error(`copy-grammar: ${message}`);
  process.exit(1);
}

if (!existsSync(source)) {
  fail(
    `the chatmd TextMate grammar is missing: ${source} does not exist.\n` +
      `  The extension takes it from the repository's syntaxes/ folder at package time.\n` +
      `  Build the extension from a full chatmd checkout (or set CHATMD_GRAMMAR to the grammar's path).`,
  );
}
let grammar;
try {
  grammar = JSON.parse(readFileSync(source, 'utf8'));
} catch (error) {
  fail(`${source} is not valid JSON: ${error.message}`);
}
if (typeof grammar !== 'object' || grammar === null || typeof grammar.scopeName !== 'string') {
  fail(`${source} has no "scopeName": it is not a TextMate grammar`);
}
if (typeof grammar.injectionSelector !== 'string') {
  fail(
    `${source} has no "injectionSelector": the extension contributes it as an injection grammar ` +
      `into the chatmd language's Markdown grammar (e.g. "injectionSelector": "L:text.html.markdown")`,
  );
}

// Rename the grammar's scope (and includes that name it) to the one package.json declares.
const original = grammar.scopeName;
function rename(node) {
  if (Array.isArray(node)) {
    node.forEach(rename);
  } else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'include' && typeof value === 'string' && (value === original || value.startsWith(`${original}#`))) {
        node[key] = SCOPE + value.slice(original.length);
      } else {
        rename(value);
      }
    }
  }
}
rename(grammar);
grammar.scopeName = SCOPE;

mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, `${JSON.stringify(grammar, null, 2)}\n`);
console.log(`copy-grammar: ${relative(process.cwd(), source)} (scope ${original}) -> ${relative(process.cwd(), target)} (scope ${SCOPE})`);
