-- :ChatSend in the demo chat: the last message mentions @reviewer (claude) and @tester
-- (codex); both answer through the fake agent, found through agent_path only, and their
-- sections stream into the buffer. The whole buffer is compared byte for byte (times and
-- session ids normalized).
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
vim.env.FAKE_AGENT_TEXT = 'Looks good to me.'
local progress = {}
H.setup(ws, {
  agent_path = ws.bin,
  progress = function(p)
    progress[#progress + 1] = p.kind .. ' ' .. p.member
  end,
})
local notes = H.capture_notify()
local buf = H.open(ws.chat)
local original = H.text(buf)

vim.cmd('ChatSend')

local expected = original
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
H.wait('both answers and the reply stub in the buffer', function()
  return H.normalize(H.text(buf)) == expected
end, nil, function()
  return '--- expected\n' .. expected .. '--- buffer (normalized)\n' .. H.normalize(H.text(buf))
    .. '--- notifications\n' .. vim.inspect(notes)
end)

-- What the user was told: who was asked, and a progress line per turn from start to end.
local told = {}
for _, n in ipairs(notes) do
  told[#told + 1] = n.msg
end
H.eq({ 'chatmd: asked @reviewer, @tester' }, told, 'notifications')
H.wait('both progress ends', function()
  return vim.tbl_contains(progress, 'end @reviewer') and vim.tbl_contains(progress, 'end @tester')
end, nil, function()
  return vim.inspect(progress)
end)
for _, member in ipairs({ '@reviewer', '@tester' }) do
  H.eq(true, vim.tbl_contains(progress, 'begin ' .. member), 'progress begin for ' .. member)
end
H.pass()
