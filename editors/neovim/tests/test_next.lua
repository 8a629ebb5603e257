-- :ChatNext on a chat whose last message is @reviewer's answer handing the word to @tester:
-- @tester (codex, the fake agent) answers next, below it, and the reply stub follows.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
vim.env.FAKE_AGENT_TEXT = 'Added the property test.'
local chat = ws.demo .. '/next.chat.md'
local before = '## @me\n@reviewer please review the refund changes.\n\n## @reviewer\n'
  .. '<!-- chatmd id=t1 agent=claude status=done -->\n'
  .. 'Two bugs in refund(). @tester can you write a test for each?\n'
vim.fn.writefile(vim.split(before, '\n', { trimempty = true }), chat)
H.setup(ws, { agent_path = ws.bin })
local notes = H.capture_notify()
local buf = H.open(chat)
local original = H.text(buf)
H.eq(before, original, 'the chat as opened')

vim.cmd('ChatNext')

H.wait('@tester to answer next', function()
  return H.text(buf):sub(-8) == '\n## @me\n' and H.text(buf):find('status=done', #original, true) ~= nil
end, nil, function()
  return H.text(buf) .. '--- notifications\n' .. vim.inspect(notes)
end)
local text = H.text(buf)
H.eq(original, text:sub(1, #original), 'the chat before is kept')
local added = text:sub(#original + 1):gsub('<!%-%- chatmd [^\n]*%-%->', '<!-- C -->')
H.eq('\n## @tester\n<!-- C -->\nAdded the property test.\n\n## @me\n', added, 'what :ChatNext added')
H.pass()
