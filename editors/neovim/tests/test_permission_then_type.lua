-- An ACP permission request answered with its code action, then, while the answer
-- streams on, the next message typed at the end at human speed and sent (issue 25). In an
-- embedded Neovim driven through its input queue: the writer is `gemini --acp` (the fake
-- agent) asked `MOCK-MODE=toolwrite WRITE=notes.txt`; :ChatSend; on the request's block
-- the user picks the code action "Allow (t1-p1)"; after the answer's first words they
-- type 30 to 80 ms per key `G`, `o`, `## @me`, Enter, `@tester …`, Esc, and the send
-- mapping (\s): queued, then sent to @tester (the fake codex) when the writer is done. The
-- whole file is checked byte for byte: the writer's section whole (tool line, record,
-- answer), the user's message as typed, @tester's answer, the reply stub.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
local words = {}
for i = 1, 6 do
  words[i] = ('Step %d: notes.txt was created in the writer folder.'):format(i)
end
local ANSWER = table.concat(words, ' ')
vim.env.FAKE_AGENT_TEXT = ANSWER
vim.env.FAKE_AGENT_CHUNKS = '80' -- a few characters each (whole words would be 3 a chunk)
vim.env.FAKE_AGENT_DELAY_MS = '70'
vim.fn.writefile({ '[members.writer]', 'agent = "acp"', 'preset = "gemini"' }, ws.demo .. '/chatmd.toml')
local chat = ws.demo .. '/ask.chat.md'
local ASK = '## @me\n@writer MOCK-MODE=toolwrite WRITE=notes.txt please create the file.\n'
vim.fn.writefile(vim.split(ASK, '\n', { trimempty = true }), chat)
local nvim = H.embed(ws, chat, { agent_path = ws.bin, keymaps = true })
local function text()
  return nvim.lua('return H.text(...)', nvim.buf)
end
H.eq(ASK, text(), 'the chat as opened')
local MESSAGE = '@tester please check that notes.txt is empty.'
local keys = H.keys('Go## @me<CR>' .. MESSAGE .. '<Esc>\\s')
local gaps, seed = H.gaps(#keys, 30, 80)

local expected = ASK
  .. '\n'
  .. '## @writer\n'
  .. '<!-- chatmd id=t1 agent=acp status=done started=<T> model=auto session=<S> took=<D> stop=end_turn exit=0 tokens=11865/55 -->\n'
  .. "I'll run a command.\n"
  .. '\n'
  .. '> - Execute: touch notes.txt — completed\n'
  .. '\n'
  .. '> **Permission** t1-p1 — allowed once ("Allow")\n'
  .. '\n'
  .. ANSWER
  .. '\n'
  .. '\n'
  .. '## @me\n'
  .. MESSAGE
  .. '\n'
  .. '\n'
  .. '## @tester\n'
  .. '<!-- chatmd id=t2 agent=codex status=done seen=0:2cce42.4a7638.a438db started=<T> session=<S> took=<D> exit=0 tokens=10/78 -->\n'
  .. ANSWER
  .. '\n'
  .. '\n'
  .. '## @me\n'
local function dump()
  return ('--- keys 30 to 80 ms apart, seed %d (CHATMD_TEST_SEED replays it)\n'):format(seed)
    .. '--- expected\n' .. expected .. '--- buffer (normalized)\n' .. H.normalize(text())
    .. '--- notifications\n' .. vim.inspect(nvim.lua('return notes'))
end

nvim.input(':ChatSend<CR>')
H.wait('the permission request', function()
  -- (the file then ends with one or two blank lines: see test_permission_stream.lua)
  return text():find('- [ ] Reject\n\n', 1, true) ~= nil
end, nil, dump)
-- The user picks the code action on the block's line.
nvim.lua([[
  for i, line in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
    if vim.startswith(line, '> **Permission**') then
      vim.api.nvim_win_set_cursor(0, { i, 0 })
    end
  end
  vim.lsp.buf.code_action({
    apply = true,
    filter = function(action)
      return action.title == 'Allow (t1-p1)'
    end,
  })
]])
H.wait('the first words after the record', function()
  return text():find('("Allow")\n\nStep 1: ', 1, true) ~= nil
end, nil, dump)
nvim.type(keys, gaps)
H.wait('the keys typed', nvim.typed, 20000, dump)
H.wait('the message queued', function()
  local t = text()
  if t:find('status=done', 1, true) then
    H.fail('the writer finished before the message was sent: nothing was queued\n' .. dump())
  end
  return t:find('\n## @me\n<!-- chatmd status=queued -->\n' .. MESSAGE .. '\n', 1, true) ~= nil
end, nil, dump)
H.wait('both answers, the message between them', function()
  return H.normalize(text()) == expected
end, 30000, dump)
if not vim.uv.fs_stat(ws.demo .. '/writer/notes.txt') then
  H.fail('the agent did not create notes.txt')
end
nvim.stop()
H.pass()
