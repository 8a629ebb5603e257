-- Completion of @members: what <C-x><C-o> (the LSP omnifunc) offers after `@`, and what
-- <Tab> offers after `:ChatAsk ` and `:ChatCancel ` on the command line.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
vim.env.PATH = ws.bin .. ':' .. vim.env.PATH
H.setup(ws)
local buf = H.open(ws.chat)
H.eq('v:lua.vim.lsp.omnifunc', vim.bo[buf].omnifunc, 'omnifunc of a chat buffer')

-- A new line in the human message: "Also @" then <C-x><C-o>; the menu is read while still
-- in insert mode (the <Cmd> waits for the server's answer), then <C-n><C-n><C-y> picks the
-- second entry, as a user would.
vim.o.completeopt = 'menuone,noselect' -- a common setting: nothing is preselected
local last = vim.api.nvim_buf_line_count(buf)
vim.api.nvim_win_set_cursor(0, { last, 0 })
local words, mode
function _G.chatmd_test_menu()
  H.wait('the completion menu', function()
    return #vim.fn.complete_info({ 'items' }).items > 0
  end, nil, function()
    return vim.inspect(vim.fn.complete_info()) .. ' mode=' .. vim.fn.mode()
  end)
  local info = vim.fn.complete_info({ 'items', 'mode' })
  words, mode = {}, vim.fn.mode()
  for _, item in ipairs(info.items) do
    words[#words + 1] = item.word
  end
end
vim.api.nvim_feedkeys(
  vim.keycode('oAlso @<C-x><C-o><Cmd>lua chatmd_test_menu()<CR><C-n><C-n><C-y><Esc>'),
  'tx',
  false
)
H.eq({ 'reviewer', 'tester', 'writer' }, words, 'words offered after @')
H.eq('i', mode, 'the menu is shown in insert mode')
H.eq('Also @tester', vim.api.nvim_buf_get_lines(buf, last, last + 1, false)[1], 'the completed line')
H.eq('n', vim.fn.mode(), 'back in normal mode')

-- Command-line completion of :ChatAsk comes from the server too.
H.eq({ 'reviewer', 'tester', 'writer' }, vim.fn.getcompletion('ChatAsk ', 'cmdline'), ':ChatAsk <Tab>')
H.eq({ 'tester' }, vim.fn.getcompletion('ChatAsk @te', 'cmdline'), ':ChatAsk @te<Tab>')
H.pass()
