-- The Neovim 0.10 way (vim.lsp.start from a FileType autocmd), forced on 0.11 with
-- lsp_enable = false: the client attaches, and the outline (document symbols) lists one
-- entry per message.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
H.setup(ws, { lsp_enable = false, agent_path = ws.bin })
H.eq(false, require('chatmd').uses_lsp_enable(), 'vim.lsp.start path')
local buf, client = H.open(ws.chat)
H.eq(ws.demo, client.root_dir, 'root dir')

-- What :lua vim.lsp.buf.document_symbol() puts in the location list.
vim.lsp.buf.document_symbol({
  on_list = function(list)
    vim.fn.setloclist(0, {}, ' ', { title = list.title, items = list.items })
  end,
})
H.wait('the outline', function()
  return #vim.fn.getloclist(0) > 0
end)
local outline = {}
for _, item in ipairs(vim.fn.getloclist(0)) do
  outline[#outline + 1] = item.lnum .. ': ' .. item.text
end
H.eq({
  '6: [Namespace] Release review of the payment module',
  '10: [Event] @me: @reviewer please review the refund changes in `src/pay.rs`. …',
}, outline, 'the outline')
H.pass()
