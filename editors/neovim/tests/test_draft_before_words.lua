-- A draft typed after the new sections' headings show and before their first words,
-- then sent (issue 25). In an embedded Neovim driven through its input queue: :ChatSend
-- (@reviewer and @tester, 300 ms per output line of the fake agent, so the first words
-- come about a second after the sections); as soon as @tester's section (the last one)
-- shows with its status comment and no text yet, the user types at 1000 keys/s `G`, `o`
-- (on the status comment, the file's last line), `## @me`, Enter, `@tester …`, Esc, then
-- Send (\s): queued while the members answer. The answers land whole in their own
-- sections, above the draft; the draft stays as typed, right after @tester's answer; once
-- both answered, it goes to @tester alone (FAKE_AGENT_RECORD), whose answer follows it.
-- The whole file is checked byte for byte.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
local ANSWER = 'The rounding is right and the refund is capped.'
vim.env.FAKE_AGENT_TEXT = ANSWER
vim.env.FAKE_AGENT_DELAY_MS = '300'
local record = ws.dir .. '/record.jsonl'
vim.env.FAKE_AGENT_RECORD = record -- one line per agent run
local nvim = H.embed(ws, ws.chat, { agent_path = ws.bin, keymaps = true })
local function text()
  return nvim.lua('return H.text(...)', nvim.buf)
end
local original = text()
local DRAFT = '@tester what about partial refunds?'

local expected = original
  .. '\n'
  .. '## @reviewer\n'
  .. '<!-- chatmd id=t1 agent=claude status=done seen=0:e6572e started=<T> model=claude-opus-4-8 session=<S> took=<D> stop=end_turn exit=0 tokens=10/9 -->\n'
  .. ANSWER
  .. '\n'
  .. '\n'
  .. '## @tester\n'
  .. '<!-- chatmd id=t2 agent=codex status=done seen=0:e6572e started=<T> session=<S> took=<D> exit=0 tokens=10/9 -->\n'
  .. ANSWER
  .. '\n'
  .. '## @me\n'
  .. DRAFT
  .. '\n'
  .. '\n'
  .. '## @tester\n'
  .. '<!-- chatmd id=t3 agent=codex status=done seen=+3:59da69 started=<T> session=<S> took=<D> exit=0 session-tokens=10/9 -->\n'
  .. ANSWER
  .. '\n'
  .. '\n'
  .. '## @me\n'
local function dump()
  return '--- expected\n' .. expected .. '--- buffer (normalized)\n' .. H.normalize(text())
    .. '--- notifications\n' .. vim.inspect(nvim.lua('return notes'))
end
-- The text with every status comment as `<!-- C -->` (they carry host, pid and times).
local function shape()
  return (text():gsub('<!%-%- chatmd [^\n]*%-%->', '<!-- C -->'))
end
local empty_sections = original .. '\n## @reviewer\n<!-- C -->\n\n## @tester\n<!-- C -->\n'

nvim.input(':ChatSend<CR>')
H.wait('both sections, no text yet', function()
  return shape() == empty_sections
end, nil, dump)
local keys = H.keys('Go## @me<CR>' .. DRAFT .. '<Esc>')
nvim.type(keys, H.gaps(#keys, 1, 1))
H.wait('the draft typed', function()
  return nvim.typed() and vim.endswith(text(), '\n' .. DRAFT .. '\n')
end, nil, dump)
-- What this test is about: the draft was there before the first words.
H.eq(empty_sections .. '## @me\n' .. DRAFT .. '\n', shape(), 'the buffer when the draft was typed (no answer text yet)')

nvim.input('\\s')
H.wait('the draft queued', function()
  return text():find('\n## @me\n<!-- chatmd status=queued -->\n' .. DRAFT .. '\n', 1, true) ~= nil
end, nil, dump)
H.wait('both answers above the draft, then the answer to it', function()
  return H.normalize(text()) == expected
end, 30000, dump)

local runs = {}
for _, line in ipairs(vim.fn.readfile(record)) do
  runs[#runs + 1] = vim.json.decode(line)
end
H.eq(3, #runs, 'agent runs')
H.eq('codex', runs[3].as, 'the agent asked last')
H.eq('me: ' .. DRAFT .. '\n', runs[3].prompt:match('\n%[MESSAGE%]\n(.*)$'), 'the message sent to @tester')
nvim.stop()
H.pass()
