-- :ChatNew from an empty buffer, before any chat is open: the plugin starts the server
-- without a buffer, and the new chat lands in the working directory.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
H.setup(ws, { agent_path = ws.bin })
local notes = H.capture_notify()
vim.cmd.cd(ws.demo)
vim.cmd.enew()

vim.cmd('ChatNew')
-- (Vim reuses the empty buffer for the file, so watch the name, not the number.)
H.wait('the new chat to be shown', function()
  return vim.api.nvim_buf_get_name(0):match('%.chat%.md$') ~= nil
end, nil, function()
  return vim.inspect(notes)
end)
local buf = vim.api.nvim_get_current_buf()
local name = vim.api.nvim_buf_get_name(buf)
H.eq(ws.demo, vim.fs.dirname(name), 'created in the working directory')
H.eq(ws.demo .. '/new-chat.chat.md', name, 'the new file')
H.eq('---\ntitle: New chat\n---\n\n## @me\n', H.text(buf), 'its text')
H.eq('markdown.chatmd', vim.bo[buf].filetype, 'its filetype')
H.wait('the chatmd client on the new chat', function()
  return vim.lsp.get_clients({ bufnr = buf, name = 'chatmd' })[1] ~= nil
end)
H.pass()
