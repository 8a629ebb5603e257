-- A repository whose team is in team/ with its chatmd.toml (what `chatmd init team` makes),
-- the team's chat open first: :'<,'>ChatAskAbout reviewer in src/pay.rs appends
-- `#file:src/pay.rs:2-3` to the chat and @reviewer gets the lines. (The root markers used
-- to pick team/ for the chat, and the server's own send refused the path it had just
-- written: "`src/pay.rs` does not exist in the workspace …/team".)
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.project('The fee rounds down.', true)
H.setup(ws, { agent_path = ws.bin })
local notes = H.capture_notify()
local _, client = H.open(ws.chat)
H.eq(ws.project, client.config.root_dir, 'the chat\'s workspace is the repository, not team/')
local original = table.concat(vim.fn.readfile(ws.chat, 'b'), '\n')
vim.cmd.edit(vim.fn.fnameescape(ws.source))

vim.cmd('2,3ChatAskAbout reviewer')

local chat_buf = vim.fn.bufnr(ws.chat)
local function chat()
  return H.text(chat_buf)
end
H.wait('a done answer from @reviewer after the question', function()
  local text = chat()
  local at = text:find('#file:src/pay.rs:2-3', 1, true)
  return at ~= nil and text:find('status=done', at, true) ~= nil and text:sub(-8) == '\n## @me\n'
end, nil, function()
  return chat() .. '\n--- notifications\n' .. vim.inspect(notes)
end)
local text = chat()
H.eq(original, text:sub(1, #original), 'the chat before is kept')
local asked = '@reviewer about #file:src/pay.rs:2-3:\n\n```rust\n    let fee = cents / 100;\n    cents + fee\n```\n'
H.eq(true, text:find(asked, #original, true) ~= nil, 'the message asks about the lines: ' .. text)
H.eq(nil, text:find('does not exist', 1, true), 'the reference is read: ' .. text)
H.eq(true, text:find('The fee rounds down.', #original, true) ~= nil, 'the answer: ' .. text)
H.pass()
