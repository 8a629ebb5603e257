-- An ACP member's permission request answered with its code action, then the answer
-- streams on (issue 25). The writer is `gemini --acp` (the fake agent; chatmd.toml in the
-- team folder); `MOCK-MODE=toolwrite WRITE=notes.txt` makes it ask to run
-- `touch notes.txt`. :ChatSend; the request shows in @writer's section (status=waiting,
-- the block with its options); on the block's line the user picks the code action
-- "Allow (t1-p1)". The agent runs the command, and its answer streams in word by word
-- (80 ms apart) below the record of the answer. Every state is checked as the whole file,
-- byte for byte (status comments redacted while they carry host and pid).
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
local ANSWER = 'The file notes.txt is there now. It is empty, as asked; the rest of this answer streams on word by word.'
vim.env.FAKE_AGENT_TEXT = ANSWER
vim.env.FAKE_AGENT_DELAY_MS = '80'
vim.fn.writefile({ '[members.writer]', 'agent = "acp"', 'preset = "gemini"' }, ws.demo .. '/chatmd.toml')
local chat = ws.demo .. '/ask.chat.md'
local ASK = '## @me\n@writer MOCK-MODE=toolwrite WRITE=notes.txt please create the file.\n'
vim.fn.writefile(vim.split(ASK, '\n', { trimempty = true }), chat)
H.setup(ws, { agent_path = ws.bin, progress = function() end })
local notes = H.capture_notify()
local buf = H.open(chat)
H.eq(ASK, H.text(buf), 'the chat as opened')

-- The text with every status comment as `<!-- C -->` (they carry host, pid and times).
local function shape()
  return (H.text(buf):gsub('<!%-%- chatmd [^\n]*%-%->', '<!-- C -->'))
end
local function dump()
  return '--- buffer (normalized)\n' .. H.normalize(H.text(buf)) .. '--- notifications\n' .. vim.inspect(notes)
end

vim.cmd('ChatSend')
local waiting = ASK
  .. '\n'
  .. '## @writer\n'
  .. '<!-- C -->\n'
  .. "I'll run a command.\n"
  .. '\n'
  .. '> - Execute: touch notes.txt — pending\n'
  .. '\n'
  .. '> **Permission** `t1-p1` — writer wants to run `touch notes.txt` (execute)\n'
  .. '> - [ ] Allow for this session · - [ ] Allow · - [ ] Reject\n'
  .. '\n'
-- While the request waits the file sometimes ends with one more blank line: when the
-- agent's first words ("I'll run a ") were written in an edit of their own before the
-- rest, the server leaves "\n\n\n" after the block instead of "\n\n" (seen in about 3
-- runs of 4 on a busy machine; the server's doing, reported, not this test's to fix). The
-- extra line goes when the answer streams on, and the final text is checked exactly.
H.wait('the permission request', function()
  local now = shape()
  return now == waiting or now == waiting .. '\n'
end, nil, dump)
if not H.text(buf):find('status=waiting', 1, true) then
  H.fail('the status comment does not say waiting\n' .. dump())
end
if vim.uv.fs_stat(ws.demo .. '/writer/notes.txt') then
  H.fail('notes.txt exists before the answer')
end

-- The code actions on the block's line; the user picks "Allow (t1-p1)".
local lnum
for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
  if vim.startswith(line, '> **Permission**') then
    lnum = i
  end
end
vim.api.nvim_win_set_cursor(0, { lnum, 0 })
local offered = {}
vim.lsp.buf.code_action({
  apply = true,
  filter = function(action)
    offered[#offered + 1] = action.title
    return action.title == 'Allow (t1-p1)'
  end,
})

-- The record replaces the block, then the answer streams on below it.
local answered = ASK
  .. '\n'
  .. '## @writer\n'
  .. '<!-- C -->\n'
  .. "I'll run a command.\n"
  .. '\n'
  .. '> - Execute: touch notes.txt — completed\n'
  .. '\n'
  .. '> **Permission** t1-p1 — allowed once ("Allow")\n'
  .. '\n'
H.wait('part of the answer after the record, still streaming', function()
  local now = shape()
  return vim.startswith(now, answered .. 'The file ')
    and #now < #answered + #ANSWER
    and H.text(buf):find('status=streaming', 1, true) ~= nil
end, nil, dump)
H.eq(
  { 'Allow for this session (t1-p1)', 'Allow (t1-p1)', 'Reject (t1-p1)', 'Reject always (t1-p1)' },
  vim.tbl_filter(function(t)
    return t:find('t1-p1', 1, true) ~= nil
  end, offered),
  "the request's code actions"
)

local expected = ASK
  .. '\n'
  .. '## @writer\n'
  .. '<!-- chatmd id=t1 agent=acp status=done started=<T> model=auto session=<S> took=<D> stop=end_turn exit=0 tokens=11865/22 -->\n'
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
H.wait('the whole answer', function()
  return H.normalize(H.text(buf)) == expected
end, nil, function()
  return '--- expected\n' .. expected .. dump()
end)
if not vim.uv.fs_stat(ws.demo .. '/writer/notes.txt') then
  H.fail('the agent did not create notes.txt')
end
H.pass()
