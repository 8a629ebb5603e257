-- A draft started before an answer's first words and typed at human speed while the
-- answer streams (issue 25). In an embedded Neovim driven through its input queue:
-- :ChatAsk reviewer (a four-line answer, one word per output line of the fake claude,
-- 250 ms apart); as soon as `## @reviewer` and its status comment show, with no text yet,
-- the user types 30 to 80 ms per key `G`, `o` (on the status comment, the file's last
-- line), `## @me`, Enter, `@tester …`, Esc; the answer's words come while they type. The
-- answer lands whole, line by line, above the draft, which stays as typed right after it;
-- the draft is not sent (no Send), so nothing else starts. The whole file is checked byte
-- for byte.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
-- A short first line: from the user's `o` on, the answer is written a whole line at a
-- time, and the test wants the first one in while the user types.
local ANSWER = 'Yes.\nSecond line, on the rounding.\n\nLast words.'
vim.env.FAKE_AGENT_TEXT = ANSWER
vim.env.FAKE_AGENT_DELAY_MS = '250'
local nvim = H.embed(ws, ws.chat, { agent_path = ws.bin, keymaps = true })
local function text()
  return nvim.lua('return H.text(...)', nvim.buf)
end
local original = text()
local DRAFT = '@tester draft: and partial refunds in another currency'
local keys = H.keys('Go## @me<CR>' .. DRAFT .. '<Esc>')
local gaps, seed = H.gaps(#keys, 30, 80)
-- How long the test watches, once the text is as expected, for a turn that must not
-- start (a turn the server starts shows within milliseconds): the one bounded wait for
-- something that must not happen, never a synchronization.
local QUIET_MS = 1000

local expected = original
  .. '\n'
  .. '## @reviewer\n'
  .. '<!-- chatmd id=t1 agent=claude status=done seen=0:e6572e started=<T> model=claude-opus-4-8 session=<S> took=<D> stop=end_turn exit=0 tokens=10/6 -->\n'
  .. ANSWER
  .. '\n'
  .. '## @me\n'
  .. DRAFT
  .. '\n'
local function dump()
  return ('--- keys 30 to 80 ms apart, seed %d (CHATMD_TEST_SEED replays it)\n'):format(seed)
    .. '--- expected\n' .. expected .. '--- buffer (normalized)\n' .. H.normalize(text())
    .. '--- notifications\n' .. vim.inspect(nvim.lua('return notes'))
end
-- The text with every status comment as `<!-- C -->` (they carry host, pid and times).
local function shape()
  return (text():gsub('<!%-%- chatmd [^\n]*%-%->', '<!-- C -->'))
end
local empty_section = original .. '\n## @reviewer\n<!-- C -->\n'

nvim.input(':ChatAsk reviewer<CR>')
H.wait('the section, no text yet', function()
  return shape() == empty_section
end, nil, dump)
nvim.type(keys, gaps)
-- What this test is about: the user's line was there before the first words.
H.wait("the user's first key on the new line", function()
  local now = shape()
  if now ~= empty_section and now ~= empty_section .. '\n' and not vim.startswith(now, empty_section .. '#') then
    H.fail('the answer came before the user started their line:\n' .. now .. '\n' .. dump())
  end
  return now ~= empty_section
end, nil, dump)
H.wait('the keys typed', nvim.typed, 20000, dump)
-- And the answer's first words came while the user typed.
if not text():find('\nYes.\n', 1, true) then
  H.fail('no answer text yet when the user was done typing\n' .. dump())
end
H.wait('the answer done above the draft', function()
  return H.normalize(text()) == expected
end, nil, dump)
local changed = vim.wait(QUIET_MS, function()
  return H.normalize(text()) ~= expected
end, 10)
if changed then
  H.fail('the text changed after the answer ended\n' .. dump())
end
nvim.stop()
H.pass()
