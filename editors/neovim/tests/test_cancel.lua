-- :ChatAsk reviewer, then :ChatCancel while the answer streams (the fake agent hangs after
-- "one two "): the partial text stays and the status comment says cancelled.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
vim.env.FAKE_AGENT_TEXT = 'one two three four five'
vim.env.FAKE_AGENT_HANG_AFTER = '5' -- init, message_start, block_start, "one ", "two "
H.setup(ws, { agent_path = ws.bin })
local notes = H.capture_notify()
local buf = H.open(ws.chat)
local original = H.text(buf)

vim.cmd('ChatAsk @reviewer')
H.wait('the answer to start streaming', function()
  local text = H.text(buf)
  return text:find('status=streaming', 1, true) ~= nil and text:find('\none two ', 1, true) ~= nil
end, nil, function()
  return H.text(buf) .. '\n' .. vim.inspect(notes)
end)

-- While it runs, the status line function names it, and :ChatCancel <Tab> offers it.
H.wait('the status line to show @reviewer', function()
  return require('chatmd').statusline():match('^@reviewer ') ~= nil
end, nil, function()
  return vim.inspect(require('chatmd').statusline())
end)
H.eq({ 'reviewer' }, vim.fn.getcompletion('ChatCancel ', 'cmdline'), ':ChatCancel <Tab> while @reviewer runs')

vim.cmd('ChatCancel')

local expected = original
  .. '\n'
  .. '## @reviewer\n'
  .. '<!-- chatmd id=t1 agent=claude status=cancelled seen=0:e6572e started=<T> model=claude-opus-4-8 session=<S> took=<D> -->\n'
  .. 'one two \n'
  .. '\n'
  .. '## @me\n'
H.wait('the cancelled section', function()
  return H.normalize(H.text(buf)) == expected
end, nil, function()
  return '--- expected\n' .. expected .. '--- buffer (normalized)\n' .. H.normalize(H.text(buf))
    .. '--- notifications\n' .. vim.inspect(notes)
end)
H.wait('the status line to empty', function()
  return require('chatmd').statusline() == ''
end, nil, function()
  return vim.inspect(require('chatmd').statusline())
end)
H.pass()
