-- Shared by test_next_message_human.lua and test_next_message_fast.lua (issue 25): the
-- next message typed at the end of the chat while a slow member streams, then sent.
--
-- In an embedded Neovim driven through its input queue: :ChatAsk reviewer (a one-line
-- answer of 120 words, one word per output line, 60 ms apart); after its first words the
-- user types, in insert mode, key by key with `gap_min`..`gap_max` ms between keys:
-- `G`, `o` (a new line below the answer's unfinished last line), `## @me`, Enter,
-- `@tester …`, Esc, then the send mapping (\s). The reviewer is still answering, so the
-- message is queued (its status comment shows), and sent to @tester when the reviewer is
-- done. The whole file is checked byte for byte: the reviewer's answer whole and
-- contiguous in its section, the user's message as typed below it, then @tester's answer
-- and the reply stub; and @tester was sent the user's words only, with the reviewer's
-- answer whole in its context (FAKE_AGENT_RECORD).
--
-- The answer is one line on purpose: the user's `o` then always splits an unfinished
-- line, so the expected text does not depend on where the answer was when the user
-- started (the line break typed with `o` is the user's: a blank line ends up between the
-- answer and the heading).
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

return function(gap_min, gap_max)
  local ws = H.workspace()
  local sentences = {}
  for i = 1, 12 do
    sentences[i] = ('Check %d: the refund is converted first, then rounded half-even.'):format(i)
  end
  local ANSWER = table.concat(sentences, ' ')
  vim.env.FAKE_AGENT_TEXT = ANSWER
  vim.env.FAKE_AGENT_DELAY_MS = '60'
  local record = ws.dir .. '/record.jsonl'
  vim.env.FAKE_AGENT_RECORD = record -- one line per agent run
  local nvim = H.embed(ws, ws.chat, { agent_path = ws.bin, keymaps = true })
  local function text()
    return nvim.lua('return H.text(...)', nvim.buf)
  end
  local original = text()

  local MESSAGE = '@tester what about partial refunds in another currency?'
  local keys = H.keys('Go## @me<CR>' .. MESSAGE .. '<Esc>\\s')
  local gaps, seed = H.gaps(#keys, gap_min, gap_max)

  local expected = original
    .. '\n'
    .. '## @reviewer\n'
    .. '<!-- chatmd id=t1 agent=claude status=done seen=0:e6572e started=<T> model=claude-opus-4-8 session=<S> took=<D> stop=end_turn exit=0 tokens=10/120 -->\n'
    .. ANSWER
    .. '\n'
    .. '\n'
    .. '## @me\n'
    .. MESSAGE
    .. '\n'
    .. '\n'
    .. '## @tester\n'
    .. '<!-- chatmd id=t2 agent=codex status=done seen=0:e6572e.d520d8.b660e9 started=<T> session=<S> took=<D> exit=0 tokens=10/120 -->\n'
    .. ANSWER
    .. '\n'
    .. '\n'
    .. '## @me\n'
  local function dump()
    return ('--- keys %d to %d ms apart, seed %d (CHATMD_TEST_SEED replays it)\n'):format(gap_min, gap_max, seed)
      .. '--- expected\n' .. expected .. '--- buffer (normalized)\n' .. H.normalize(text())
      .. '--- notifications\n' .. vim.inspect(nvim.lua('return notes'))
  end

  nvim.input(':ChatAsk reviewer<CR>')
  H.wait('the first words of the answer', function()
    return text():find('\nCheck 1: ', 1, true) ~= nil
  end, nil, dump)
  nvim.type(keys, gaps)
  H.wait('the keys typed', nvim.typed, 20000, dump)
  -- Sent while the reviewer answers: queued, under the message's heading.
  H.wait('the message queued', function()
    local t = text()
    if t:find('status=done', 1, true) then
      H.fail('the reviewer finished before the message was sent: nothing was queued\n' .. dump())
    end
    return t:find('\n## @me\n<!-- chatmd status=queued -->\n' .. MESSAGE .. '\n', 1, true) ~= nil
  end, nil, dump)
  H.wait('both answers, the message between them', function()
    return H.normalize(text()) == expected
  end, 30000, dump)

  -- @tester was asked the user's words, nothing else; the reviewer's answer is whole in
  -- its context.
  local runs = {}
  for _, line in ipairs(vim.fn.readfile(record)) do
    runs[#runs + 1] = vim.json.decode(line)
  end
  H.eq({ 'claude', 'codex' }, vim.tbl_map(function(r)
    return r.as
  end, runs), 'the agents that ran')
  local prompt = runs[2].prompt
  H.eq('me: ' .. MESSAGE .. '\n', prompt:match('\n%[MESSAGE%]\n(.*)$'), "the message sent to @tester")
  if not prompt:find('\nreviewer: ' .. ANSWER .. '\n[MESSAGE]\n', 1, true) then
    H.fail("the reviewer's answer is not whole in @tester's prompt:\n" .. prompt)
  end
  nvim.stop()
  H.pass()
end
