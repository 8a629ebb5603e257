-- `cd project && nvim src/pay.rs`, no chat open, no repository, the team in team/ (as
-- `chatmd init team` makes it): :'<,'>ChatAskAbout! reviewer starts the server where the
-- chats are (the working directory, not src/), creates the new chat beside the team's
-- chat with `#file:src/pay.rs:2-3`, and @reviewer answers it. (It used to start the server
-- rooted at src/, write a stray src/about-….chat.md, and run nothing.)
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.project('The fee rounds down.', false)
H.setup(ws, { agent_path = ws.bin })
local notes = H.capture_notify()
vim.cmd.edit('src/pay.rs')

vim.cmd('2,3ChatAskAbout! reviewer')

local created = ws.team .. '/about-src-pay-rs-lines-2-3.chat.md'
local function chat()
  local buf = vim.fn.bufnr(created)
  if buf ~= -1 and vim.api.nvim_buf_is_loaded(buf) then
    return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') .. '\n'
  end
  if vim.uv.fs_stat(created) == nil then
    return ''
  end
  return table.concat(vim.fn.readfile(created, 'b'), '\n')
end
H.wait('the answer in the new chat in team/', function()
  return chat():find('The fee rounds down.', 1, true) ~= nil and chat():sub(-8) == '\n## @me\n'
end, nil, function()
  return 'chats: ' .. vim.inspect(H.chats(ws.project)) .. '\n' .. chat() .. '\n--- notifications\n' .. vim.inspect(notes)
end)
local asked = '---\ntitle: About src/pay.rs lines 2-3\n---\n\n## @me\n@reviewer about #file:src/pay.rs:2-3:\n\n'
  .. '```rust\n    let fee = cents / 100;\n    cents + fee\n```\n\n## @reviewer\n<!-- chatmd id=t1 agent=claude status=done'
H.eq(asked, chat():sub(1, #asked), 'the new chat asks about the lines, by their path from the project')
H.eq({ created, ws.chat }, H.chats(ws.project), 'no stray chat in src/')
local client = vim.lsp.get_clients({ name = 'chatmd' })[1]
H.eq(ws.project, client.config.root_dir, 'the server is rooted at the working directory')
H.pass()
