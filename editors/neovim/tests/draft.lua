-- Shared by test_draft_mention.lua and test_draft_plain.lua: a draft typed while an answer
-- streams is never sent. :ChatAsk writer with a slow agent (200 ms per output line); while
-- it streams, the user starts a new `## @me` at the end and types `draft`. When the turn
-- ends, nothing else starts: the buffer is the answer, then the draft untouched, and no
-- new section for anybody; the agent that ran last is @writer's, and it was not sent the
-- draft (FAKE_AGENT_RECORD).
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

return function(draft)
  local ws = H.workspace()
  local ANSWER = 'The docs are ready for review now.'
  vim.env.FAKE_AGENT_TEXT = ANSWER
  vim.env.FAKE_AGENT_DELAY_MS = '200'
  local record = ws.dir .. '/record.json'
  vim.env.FAKE_AGENT_RECORD = record -- read by the agent, through the server's environment
  -- How long the test watches, after the turn ended, for a turn that must not start. A
  -- turn the server starts shows within milliseconds (its progress, its section); this is
  -- the one bounded wait for something that must not happen, never a synchronization.
  local QUIET_MS = 1500

  local progress = {}
  H.setup(ws, {
    agent_path = ws.bin,
    progress = function(p)
      if p.kind ~= 'report' then
        progress[#progress + 1] = p.kind .. ' ' .. p.member
      end
    end,
  })
  local notes = H.capture_notify()
  local buf = H.open(ws.chat)
  local original = H.text(buf)

  vim.cmd('ChatAsk writer')
  H.wait('the first words of the answer', function()
    return H.text(buf):find('\nThe docs ', 1, true) ~= nil
  end, nil, function()
    return H.text(buf)
  end)

  -- The user opens a new message at the end, as they would: G, o, a blank line, the
  -- heading. Then, once the answer has grown (an edit of the server landed in between),
  -- the draft itself.
  local before = H.text(buf)
  vim.api.nvim_feedkeys(vim.keycode('Go<CR>## @me<Esc>'), 'tx', false)
  H.wait('more of the answer after the heading was typed', function()
    local text = H.text(buf)
    return #text > #before + #'\n\n## @me' and not text:find('status=done', 1, true)
  end, nil, function()
    return H.text(buf)
  end)
  vim.api.nvim_feedkeys(vim.keycode('Go' .. draft .. '<Esc>'), 'tx', false)

  -- The whole answer with its own final line break, then exactly what the user typed after
  -- its unfinished line: `o` and <CR> (two line breaks), the heading, the draft.
  local expected = original
    .. '\n'
    .. '## @writer\n'
    .. '<!-- chatmd id=t1 agent=gemini status=done seen=0:e6572e started=<T> model=auto session=<S> took=<D> exit=0 tokens=10/7 -->\n'
    .. ANSWER
    .. '\n'
    .. '\n\n## @me\n'
    .. draft
    .. '\n'
  local function dump()
    return '--- expected\n' .. expected .. '--- buffer (normalized)\n' .. H.normalize(H.text(buf))
      .. '--- progress\n' .. vim.inspect(progress) .. '\n--- notifications\n' .. vim.inspect(notes)
  end
  -- A turn started on the draft fails at once, saying so; otherwise the text must settle
  -- on the answer and the draft.
  local function other_turn()
    return #progress > 2 or select(2, H.text(buf):gsub('\n## @', '')) > 3
  end
  H.wait('the answer done, the draft after it', function()
    if other_turn() then
      H.fail('a turn started on the draft\n' .. dump())
    end
    return H.normalize(H.text(buf)) == expected and vim.tbl_contains(progress, 'end @writer')
  end, nil, dump)

  -- Nothing else starts: no progress, no edit.
  local started = vim.wait(QUIET_MS, function()
    return other_turn() or H.normalize(H.text(buf)) ~= expected
  end, 10)
  if started then
    H.fail('something happened after the turn ended\n' .. dump())
  end
  H.eq({ 'begin @writer', 'end @writer' }, progress, 'progress (one turn only)')
  local ran = vim.json.decode(table.concat(vim.fn.readfile(record), '\n'))
  H.eq('gemini', ran.as, 'the last agent that ran')
  if ran.prompt:find(draft, 1, true) then
    H.fail('an agent was sent the draft:\n' .. ran.prompt)
  end
  H.pass()
end
