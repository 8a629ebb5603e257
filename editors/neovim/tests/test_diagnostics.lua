-- Opening the demo chat: filetype, the chatmd client, and a diagnostic the user sees after
-- typing a mention of somebody who is not on the team.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
vim.env.PATH = ws.bin .. ':' .. vim.env.PATH -- the agent CLIs are installed
H.setup(ws)

local buf, client = H.open(ws.chat)
H.eq('markdown.chatmd', vim.bo[buf].filetype, 'filetype of a *.chat.md file')
H.eq('chatmd', client.server_info and client.server_info.name, 'server name')
H.eq(ws.demo, client.root_dir, 'root: the folder of the chat (no chatmd.toml or .git above)')

-- The user types a line at the end of their message.
local last = vim.api.nvim_buf_line_count(buf)
vim.api.nvim_buf_set_lines(buf, last, last, false, { '@revewer, have a look too.' })

H.wait('the unknown-mention diagnostic', function()
  return #vim.diagnostic.get(buf) > 0
end)
local shown = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  shown[#shown + 1] = string.format('%d:%d-%d:%d %s %s', d.lnum, d.col, d.end_lnum, d.end_col,
    vim.diagnostic.severity[d.severity], d.message)
end
H.eq({
  string.format(
    '%d:1-%d:8 WARN @revewer is not a member of this team; nobody will answer this mention. Did you mean @reviewer?',
    last, last),
}, shown, 'diagnostics of the buffer')

-- The quick fix the server offers for it, applied as a user picks it (code action menu).
vim.api.nvim_win_set_cursor(0, { last + 1, 2 })
vim.lsp.buf.code_action({
  apply = true,
  filter = function(a)
    return a.title == 'Change to @reviewer'
  end,
})
H.wait('the quick fix to rewrite the mention', function()
  return vim.api.nvim_buf_get_lines(buf, last, last + 1, false)[1] == '@reviewer, have a look too.'
end, nil, function()
  return H.text(buf)
end)
H.wait('the diagnostic to go away', function()
  return #vim.diagnostic.get(buf) == 0
end)
H.pass()
