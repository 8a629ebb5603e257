-- :ChatAsk writer streams a multi-line answer word by word (a delay per output line)
-- while the user types in their own message: both texts end up intact, and the progress
-- line shows @writer while it runs.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
vim.env.FAKE_AGENT_TEXT = 'First line of the docs.\n\n- one\n- two\n\nDone.'
vim.env.FAKE_AGENT_DELAY_MS = '30'
local shown = {}
H.setup(ws, {
  agent_path = ws.bin,
  progress = function(p)
    shown[#shown + 1] = p
  end,
})
local notes = H.capture_notify()
local buf = H.open(ws.chat)
local original = H.text(buf)

vim.cmd('ChatAsk writer')
H.wait('the first words of the answer', function()
  return H.text(buf):find('\nFirst line', 1, true) ~= nil
end, nil, function()
  return H.text(buf)
end)

-- The user adds a sentence to the preamble (line 8) while the answer streams below.
local preamble = 'refunds now convert currencies before rounding.'
H.eq(preamble, vim.api.nvim_buf_get_lines(buf, 7, 8, false)[1], 'line 8 before typing')
vim.api.nvim_win_set_cursor(0, { 8, 0 })
vim.api.nvim_feedkeys(vim.keycode('A Rounding is half-even.<Esc>'), 'tx', false)

local expected = original:gsub(vim.pesc(preamble), preamble .. ' Rounding is half-even.', 1)
  .. '\n'
  .. '## @writer\n'
  .. '<!-- chatmd id=t1 agent=gemini status=done seen=0:e6572e started=<T> model=auto session=<S> took=<D> exit=0 tokens=10/7 -->\n'
  .. 'First line of the docs.\n'
  .. '\n'
  .. '- one\n'
  .. '- two\n'
  .. '\n'
  .. 'Done.\n'
  .. '\n'
  .. '## @me\n'
H.wait('the whole answer, with the user text kept', function()
  return H.normalize(H.text(buf)) == expected
end, nil, function()
  return '--- expected\n' .. expected .. '--- buffer (normalized)\n' .. H.normalize(H.text(buf))
end)

H.wait('the end of the progress', function()
  return #shown > 0 and shown[#shown].kind == 'end'
end, nil, function()
  return vim.inspect(shown)
end)
H.eq('begin', shown[1].kind, 'first progress event')
H.eq('@writer', shown[1].member, 'progress title')
for _, p in ipairs(shown) do
  if p.kind ~= 'end' and not p.text:match('^chatmd: @writer') then
    H.fail('progress line ' .. vim.inspect(p.text))
  end
end
local last = shown[#shown].text
print('progress lines: ' .. #shown .. ', last: ' .. last)
H.pass()
