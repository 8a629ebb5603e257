-- Typing right after Send stays in the message. In an embedded Neovim driven through its
-- input queue (as a user types): the cursor at the end of the last line of the `## @me`
-- message, the send mapping (<LocalLeader>s), then at once `A` and, in insert mode while
-- the new sections land, more words. They end up at the end of the user's message, before
-- `## @reviewer`, and no status comment is ever broken (no bad-status-comment).
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
vim.env.FAKE_AGENT_TEXT = 'Looks good to me.'
vim.env.FAKE_AGENT_DELAY_MS = '200'
local nvim = H.embed(ws, ws.chat, { agent_path = ws.bin, keymaps = true })
local function text()
  return nvim.lua('return H.text(...)', nvim.buf)
end
local function dump()
  return '--- buffer (normalized)\n' .. H.normalize(text()) .. '--- notifications\n' .. vim.inspect(nvim.lua('return notes'))
end
-- Every diagnostic the server publishes from now on (a broken status comment shows as
-- bad-status-comment).
nvim.lua([[
  seen = {}
  vim.api.nvim_create_autocmd('DiagnosticChanged', {
    buffer = ...,
    callback = function(ev)
      vim.list_extend(seen, ev.data.diagnostics or {})
    end,
  })
]], nvim.buf)
local original = text()

local last = nvim.lua('return vim.api.nvim_buf_line_count(...)', nvim.buf)
local line = nvim.lua('return vim.api.nvim_buf_get_lines(..., -2, -1, false)[1]', nvim.buf)
H.eq('test that refunds never exceed the original payment.', line, 'the last line of the message')
nvim.lua('vim.api.nvim_win_set_cursor(0, { ... })', last, #line - 1)

-- Send, then at once into insert mode at the end of the line and a first word; the rest
-- is typed once the new sections have landed below the cursor.
nvim.input('\\sA Also') -- <LocalLeader> is \\ by default
H.wait('insert mode', function()
  return nvim.lua('return vim.api.nvim_get_mode().mode') == 'i'
end)
H.wait('the new sections in the buffer', function()
  return text():find('\n## @reviewer\n', 1, true) ~= nil
end, nil, dump)
local typed = ' Also check partial refunds.'
nvim.input(' check partial refunds.')
H.wait('the typed words in the buffer', function()
  return text():find(typed, 1, true) ~= nil
end, nil, dump)
nvim.input('<Esc>')

local expected = original:gsub('original payment%.\n$', 'original payment.' .. typed .. '\n')
  .. '\n'
  .. '## @reviewer\n'
  .. '<!-- chatmd id=t1 agent=claude status=done seen=0:e6572e started=<T> model=claude-opus-4-8 session=<S> took=<D> stop=end_turn exit=0 tokens=10/4 -->\n'
  .. 'Looks good to me.\n'
  .. '\n'
  .. '## @tester\n'
  .. '<!-- chatmd id=t2 agent=codex status=done seen=0:e6572e started=<T> session=<S> took=<D> exit=0 tokens=10/4 -->\n'
  .. 'Looks good to me.\n'
  .. '\n'
  .. '## @me\n'
H.wait('both answers, with the typed words in the message', function()
  return H.normalize(text()) == expected
end, nil, function()
  return '--- expected\n' .. expected .. dump()
end)

local bad = nvim.lua([[
  local bad = {}
  for _, d in ipairs(seen) do
    if d.code == 'bad-status-comment' then
      bad[#bad + 1] = d.message
    end
  end
  return bad
]])
H.eq({}, bad, 'bad-status-comment diagnostics seen while the turns ran')
nvim.stop()
H.pass()
