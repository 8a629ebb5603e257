-- While an ACP member waits for the answer to its permission request, the progress and
-- the status line say so: "@writer waits for your answer" (they used to say "@writer
-- starting" the whole time); once it is answered they no longer do.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
vim.env.FAKE_AGENT_TEXT = 'The file notes.txt is there now.'
vim.fn.writefile({ '[members.writer]', 'agent = "acp"', 'preset = "gemini"' }, ws.demo .. '/chatmd.toml')
local chat = ws.demo .. '/ask.chat.md'
vim.fn.writefile({ '## @me', '@writer MOCK-MODE=toolwrite WRITE=notes.txt please create the file.' }, chat)
local shown = {}
H.setup(ws, {
  agent_path = ws.bin,
  progress = function(p)
    shown[#shown + 1] = p.text
  end,
})
local notes = H.capture_notify()
local buf = H.open(chat)
local chatmd = require('chatmd')
local function dump()
  return '--- status line: ' .. chatmd.statusline(buf) .. '\n--- progress shown\n' .. vim.inspect(shown)
    .. '\n--- buffer\n' .. H.text(buf) .. '--- notifications\n' .. vim.inspect(notes)
end

vim.cmd('ChatSend')
H.wait('the status line to say that @writer waits', function()
  -- Then `· 1 chat waits`: the request is also what waits for you in this chat.
  return vim.startswith(chatmd.statusline(buf), '@writer waits for your answer')
end, nil, dump)
H.wait('the request in the chat', function()
  return H.text(buf):find('> **Permission** `t1-p1`', 1, true) ~= nil
end, nil, dump)
H.eq(true, vim.startswith(chatmd.statusline(buf), '@writer waits for your answer'), 'still waiting: ' .. chatmd.statusline(buf))
H.eq(true, vim.tbl_contains(shown, 'chatmd: @writer — waits for your answer'), 'the progress shown: ' .. vim.inspect(shown))

local lnum
for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
  if vim.startswith(line, '> **Permission**') then
    lnum = i
  end
end
vim.api.nvim_win_set_cursor(0, { lnum, 0 })
vim.lsp.buf.code_action({
  apply = true,
  filter = function(action)
    return action.title == 'Allow (t1-p1)'
  end,
})
H.wait('the answer to end the wait', function()
  return not chatmd.statusline(buf):find('waits for your answer', 1, true)
end, nil, dump)
H.wait('the whole answer', function()
  return H.text(buf):find('The file notes.txt is there now.', 1, true) ~= nil and H.text(buf):sub(-8) == '\n## @me\n'
end, nil, dump)
H.pass()
