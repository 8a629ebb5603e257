-- Neovim on Linux does not watch files for the server (no didChangeWatchedFiles): a closed
-- chat that waits (an open permission request) is counted in the status line, and once it
-- is fixed on disk (here replaced by a rename, as `git checkout` does) the count drops
-- without the chat being opened. (It used to stay counted.)
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
local stuck = ws.demo .. '/stuck.chat.md'
vim.fn.writefile({
  '## @me',
  '@reviewer run the tests',
  '',
  '## @reviewer',
  '<!-- chatmd id=t1 agent=acp status=waiting -->',
  'Let me run them.',
  '',
  '> **Permission** `t1-p1` — reviewer wants to run `cargo test` (execute)',
  '> - [ ] Allow · - [ ] Reject',
}, stuck)
H.setup(ws, { agent_path = ws.bin })
local notes = H.capture_notify()
local buf = H.open(ws.chat)
local chatmd = require('chatmd')
local function dump()
  return '--- status line: ' .. chatmd.statusline(buf) .. '\n--- diagnostics\n' .. vim.inspect(vim.diagnostic.get(nil))
    .. '\n--- notifications\n' .. vim.inspect(notes)
end
H.wait('the closed chat counted as waiting', function()
  return chatmd.statusline(buf) == '1 chat waits'
end, nil, dump)

local fixed = {
  '## @me',
  '@reviewer run the tests',
  '',
  '## @reviewer',
  '<!-- chatmd id=t1 agent=acp status=done -->',
  'All green.',
  '',
  '## @me',
}
vim.fn.writefile(fixed, stuck .. '.tmp')
assert(vim.uv.fs_rename(stuck .. '.tmp', stuck))
H.wait('the count to drop once the chat is fixed on disk', function()
  return chatmd.statusline(buf) == ''
end, nil, dump)
H.eq(-1, vim.fn.bufwinnr(stuck), 'the fixed chat was never shown')
H.pass()
