-- :ChatNew {title} from a chat: the server creates the file next to it and shows it
-- (window/showDocument); it opens as a chat with its own client.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
H.setup(ws, { agent_path = ws.bin })
local notes = H.capture_notify()
local first = H.open(ws.chat)

vim.cmd('ChatNew Refund bug')
H.wait('the new chat to be shown', function()
  return vim.api.nvim_get_current_buf() ~= first
end, nil, function()
  return vim.inspect(notes)
end)
local buf = vim.api.nvim_get_current_buf()
H.eq(ws.demo .. '/refund-bug.chat.md', vim.api.nvim_buf_get_name(buf), 'the new file, next to the chat')
H.eq('---\ntitle: Refund bug\n---\n\n## @me\n', H.text(buf), 'its text')
H.eq('markdown.chatmd', vim.bo[buf].filetype, 'its filetype')
H.wait('the chatmd client on the new chat', function()
  return vim.lsp.get_clients({ bufnr = buf, name = 'chatmd' })[1] ~= nil
end)
H.eq(1, #vim.lsp.get_clients({ name = 'chatmd' }), 'one client for the folder (reused)')
H.pass()
