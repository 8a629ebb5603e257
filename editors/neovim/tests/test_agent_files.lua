-- An ACP member works on files through Neovim (issue 31): it reads a file open with
-- unsaved changes and gets the buffer's text, not the disk's; its write lands in that
-- buffer (modified, not saved: no "changed on disk"), the chat lists the file, `u` takes
-- the write back, and so does the "Undo @writer's changes" code action, which is refused
-- once the user changed the agent's lines. A file that is not open is read from the disk,
-- and the agent's write to it goes into a listed buffer of its own (not saved), as does
-- a new file's text (the file is made when the buffer is saved).
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
-- The fake ACP agent as the writer.
local log = H.acp_writer(ws, { 'FAKE_ACP_CLAUDE_START_MODE = "bypassPermissions"' })
local pay = ws.demo .. '/pay.rs'
vim.fn.writefile({ 'fn pay() {}', '// total' }, pay)
local notes_path = ws.demo .. '/notes.txt'
vim.fn.writefile({ 'draft notes', 'second line' }, notes_path)
local chat = ws.demo .. '/files.chat.md'
vim.fn.writefile({ '## @me', '@writer MOCK-MODE=writefile WRITE-ABS=' .. pay .. ' fix it' }, chat)

H.setup(ws, { agent_path = ws.bin })
-- The refused undo shows its reason: errors are expected here.
local notes = H.capture_notify(true)

-- pay.rs open in the top window with a change the user has not saved.
vim.cmd.edit(vim.fn.fnameescape(pay))
local pay_buf = vim.api.nvim_get_current_buf()
local pay_win = vim.api.nvim_get_current_win()
vim.api.nvim_buf_set_lines(pay_buf, 0, 1, false, { 'fn pay() { todo!() }' })
local unsaved = 'fn pay() { todo!() }\n// total\n'
H.eq(unsaved, H.text(pay_buf), 'the unsaved change')
-- A user's change ends with their keys; a script's would join the next change's undo
-- step: setting 'undolevels' closes it, as typing would.
local function user_change_done()
  vim.api.nvim_buf_call(pay_buf, function()
    vim.cmd('let &undolevels = &undolevels')
  end)
end
user_change_done()
vim.cmd.split()
local buf = H.open(chat)

local function disk(path)
  local f = assert(io.open(path, 'rb'))
  local text = f:read('*a')
  f:close()
  return text
end
-- What the client answered the fake agent (besides permissions), in order.
local function answers()
  local found = {}
  for _, line in ipairs(vim.fn.readfile(log)) do
    local ok, m = pcall(vim.json.decode, line)
    if ok and type(m) == 'table' and m.method == nil and m.id ~= nil and (m.result ~= nil or m.error ~= nil) then
      if not (type(m.result) == 'table' and m.result.outcome ~= nil) then
        found[#found + 1] = m.result or { error = m.error }
      end
    end
  end
  return found
end
local function dump()
  return '--- chat\n' .. H.text(buf) .. '--- pay.rs buffer\n' .. H.text(pay_buf) .. '--- notifications\n'
    .. vim.inspect(notes)
end
local function finished()
  local text = H.text(buf)
  return text:find('status=done', 1, true) ~= nil and text:sub(-8) == '\n## @me\n'
end

vim.cmd('ChatSend')
H.wait('the turn to end', finished, nil, dump)

-- The agent read the unsaved buffer; its write is in the buffer, unsaved.
local read_and_write = answers()
H.eq({ content = unsaved }, read_and_write[1], 'what the agent read')
H.eq(vim.empty_dict(), read_and_write[2], 'the answer to the write')
local written = 'FN PAY() { TODO!() }\n// total\n'
H.eq(written, H.text(pay_buf), 'the agent wrote into the buffer')
H.eq(true, vim.bo[pay_buf].modified, 'the buffer is modified (not saved)')
H.eq('fn pay() {}\n// total\n', disk(pay), 'the disk is unchanged')

local section = H.normalize(H.text(buf)):gsub('<!%-%- chatmd id=t1 [^\n]*%-%->', '<!-- t1 -->')
local expected = '## @me\n@writer MOCK-MODE=writefile WRITE-ABS=' .. pay .. ' fix it\n\n'
  .. '## @writer\n<!-- t1 -->\n'
  .. '> - changed `pay.rs` (+1 \u{2212}1)\n\n'
  .. '<details><summary>Diff of `pay.rs`</summary>\n\n'
  .. '```diff\n--- a/pay.rs\n+++ b/pay.rs\n@@ -1,2 +1,2 @@\n'
  .. '-fn pay() { todo!() }\n+FN PAY() { TODO!() }\n // total\n```\n\n</details>\n\n'
  .. 'ANSWER-anthropic role_seen=no marker_count=0 roles=none team=0 turn=1 user_msgs=1 assistant_msgs=0 ask=- '
  .. 'tool_result="wrote ' .. pay .. '"\n\n## @me\n'
H.eq(expected, section, 'the chat, byte for byte')

-- Neovim's own undo (u) takes the agent's write back in one step; redo brings it again.
vim.api.nvim_win_call(pay_win, function()
  vim.cmd('normal! u')
end)
H.eq(unsaved, H.text(pay_buf), 'after u')
vim.api.nvim_win_call(pay_win, function()
  vim.cmd('execute "normal! \\<C-r>"')
end)
H.eq(written, H.text(pay_buf), 'after redo')

-- "Undo @writer's changes" on the file's line of the chat restores the unsaved text.
local changed_line
for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
  if vim.startswith(line, '> - changed `pay.rs`') then
    changed_line = i
  end
end
local function undo_action()
  vim.api.nvim_win_set_cursor(0, { changed_line, 0 })
  vim.lsp.buf.code_action({
    apply = true,
    filter = function(action)
      return action.title == "Undo @writer's changes"
    end,
  })
end
undo_action()
H.wait('the code action to restore pay.rs', function()
  return H.text(pay_buf) == unsaved
end, nil, dump)
H.eq('fn pay() {}\n// total\n', disk(pay), 'the disk is still unchanged')

-- The agent's text again (u undoes the code action's edit), then the user changes the
-- agent's line: the code action is refused, with its reason, and changes nothing.
vim.api.nvim_win_call(pay_win, function()
  vim.cmd('normal! u')
end)
H.eq(written, H.text(pay_buf), 'u undid the code action')
vim.api.nvim_buf_set_lines(pay_buf, 0, 1, false, { 'FN PAY() { DONE }' })
user_change_done()
local mine = 'FN PAY() { DONE }\n// total\n'
undo_action()
local refusal = 'pay.rs changed since @writer wrote it; undo by hand'
H.wait('the refusal', function()
  for _, n in ipairs(notes) do
    if tostring(n.msg):find(refusal, 1, true) then
      return true
    end
  end
  return false
end, nil, dump)
H.eq(mine, H.text(pay_buf), 'the refused undo changed nothing')

-- A file that is not open: the agent reads the disk; its write goes into a buffer of
-- its own that Neovim lists, modified and not saved (apply_workspace_edit loads it).
H.eq(-1, vim.fn.bufnr(notes_path), 'notes.txt is not open')
vim.api.nvim_buf_set_lines(buf, -1, -1, false, { '@writer MOCK-MODE=writefile WRITE-ABS=' .. notes_path .. ' again' })
vim.cmd('ChatSend')
H.wait('the second turn to end', function()
  return H.text(buf):find('id=t2 [^\n]*status=done') ~= nil and H.text(buf):sub(-8) == '\n## @me\n'
end, nil, dump)
local second = answers()
H.eq({ content = 'draft notes\nsecond line\n' }, second[3], 'what the agent read of the file not open')
H.eq(vim.empty_dict(), second[4], 'the answer to the second write')
local notes_buf = vim.fn.bufnr(notes_path)
H.eq(true, notes_buf > 0 and vim.api.nvim_buf_is_loaded(notes_buf), 'notes.txt loaded into a buffer')
H.eq('DRAFT NOTES\nsecond line\n', H.text(notes_buf), 'the write in its buffer')
H.eq(true, vim.bo[notes_buf].buflisted and vim.bo[notes_buf].modified, 'listed and modified')
H.eq({}, vim.fn.win_findbuf(notes_buf), 'shown in no window')
H.eq('draft notes\nsecond line\n', disk(notes_path), 'not saved to disk')
H.eq(true, H.text(buf):find('> - changed `notes.txt` (+1 \u{2212}1)', 1, true) ~= nil, 'the chat lists notes.txt')

-- A new file: the text goes into a listed buffer of its own, not saved, and the file is
-- not on disk yet (Neovim makes one for a `create` only without `ignoreIfExists`).
local new = ws.demo .. '/new.txt'
vim.api.nvim_buf_set_lines(buf, -1, -1, false, { '@writer MOCK-MODE=writefile WRITE-ABS=' .. new .. ' create it' })
vim.cmd('ChatSend')
H.wait('the third turn to end', function()
  return H.text(buf):find('id=t3 [^\n]*status=done') ~= nil and H.text(buf):sub(-8) == '\n## @me\n'
end, nil, dump)
H.eq(vim.empty_dict(), answers()[6], 'the answer to the write of a new file')
local new_buf = vim.fn.bufnr(new)
H.eq('created by the fake agent\n', new_buf > 0 and H.text(new_buf), 'the new file in its buffer')
H.eq(true, vim.bo[new_buf].buflisted and vim.bo[new_buf].modified, 'listed and modified')
H.eq(nil, vim.uv.fs_stat(new), 'not on disk')
H.pass()
