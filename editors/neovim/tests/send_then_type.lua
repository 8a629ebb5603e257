-- Shared by test_send_then_type.lua and test_send_then_type_human.lua (issue 25): keys
-- typed right after Send on the empty last line. In an embedded Neovim driven through its
-- input queue: the user ends their message with an empty line (`Go<Esc>`), then presses
-- the send mapping (\s) on it and at once `i` and a sentence, then Esc:
--   human = false: all in the same input as the mapping (typed ahead, before the server
--     answers the Send);
--   human = true: key by key from the mapping on, 30 to 80 ms apart, while the sections
--     land and the answers stream.
-- The words are the user's: they stay on the line the cursor was on, in the user's
-- message, never inside an answer; both answers land whole. The whole file is checked
-- byte for byte. Typed ahead, the words are on the empty line before the sections come,
-- and the sections go after them, a blank line between. At human speed the sections
-- usually land first (the empty line becomes the blank line before `## @reviewer`, the
-- cursor stays on it, and the words go there, right above the heading); when the machine
-- is slow the first keys may come first. Both texts are exact; which one came is printed.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

return function(human)
  local ws = H.workspace()
  local ANSWER = 'Looks good to me. The refund is converted first, then rounded half-even, and capped.'
  vim.env.FAKE_AGENT_TEXT = ANSWER
  vim.env.FAKE_AGENT_DELAY_MS = '100'
  local nvim = H.embed(ws, ws.chat, { agent_path = ws.bin, keymaps = true })
  local function text()
    return nvim.lua('return H.text(...)', nvim.buf)
  end
  local original = text()
  local TYPED = 'And the rounding of partial refunds?'
  local keys = H.keys('\\si' .. TYPED .. '<Esc>')
  local gaps, seed = H.gaps(#keys, 30, 80)

  local function answers(before)
    return original
      .. TYPED
      .. '\n'
      .. before
      .. '## @reviewer\n'
      .. '<!-- chatmd id=t1 agent=claude status=done seen=0:e6572e started=<T> model=claude-opus-4-8 session=<S> took=<D> stop=end_turn exit=0 tokens=10/14 -->\n'
      .. ANSWER
      .. '\n'
      .. '\n'
      .. '## @tester\n'
      .. '<!-- chatmd id=t2 agent=codex status=done seen=0:e6572e started=<T> session=<S> took=<D> exit=0 tokens=10/14 -->\n'
      .. ANSWER
      .. '\n'
      .. '\n'
      .. '## @me\n'
  end
  local ahead = answers('\n')
  local landed_first = answers('')
  local function dump()
    return (human and ('--- keys 30 to 80 ms apart, seed %d (CHATMD_TEST_SEED replays it)\n'):format(seed) or '')
      .. '--- expected\n' .. ahead .. (human and ('--- or\n' .. landed_first) or '')
      .. '--- buffer (normalized)\n' .. H.normalize(text())
      .. '--- notifications\n' .. vim.inspect(nvim.lua('return notes'))
  end

  nvim.input('Go<Esc>')
  H.wait('the empty last line', function()
    return text() == original .. '\n'
  end, nil, dump)
  if human then
    nvim.type(keys, gaps)
    H.wait('the keys typed', nvim.typed, 20000, dump)
  else
    nvim.input(table.concat(keys))
  end
  local now
  H.wait('both answers, the typed words in the message', function()
    now = H.normalize(text())
    return now == ahead or (human and now == landed_first)
  end, 30000, dump)
  if human then
    print(now == ahead and 'the words came before the sections' or 'the sections landed before the words')
  end
  nvim.stop()
  H.pass()
end
