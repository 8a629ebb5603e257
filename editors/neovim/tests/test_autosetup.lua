-- Without a setup() call: the plugin sets itself up (options from vim.g.chatmd) the first
-- time a chat is opened. Hovering @reviewer shows the member's card in a float.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
vim.o.showmode = false
vim.opt.runtimepath:prepend(H.plugin_dir)
vim.cmd('filetype plugin on')
vim.cmd.runtime('plugin/chatmd.lua')
vim.g.chatmd = { cmd = { ws.chatmd, 'lsp' }, agent_path = ws.bin }

local buf = H.open(ws.chat)
H.eq(true, require('chatmd').uses_lsp_enable(), 'registered with vim.lsp.enable on 0.11')
H.eq(ws.bin, require('chatmd').config.agent_path, 'options from vim.g.chatmd')

-- Hover on the mention "@reviewer" in the last message.
local lnum
for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
  if line:find('^@reviewer please') then
    lnum = i
  end
end
vim.api.nvim_win_set_cursor(0, { lnum, 3 })
vim.lsp.buf.hover()
local float
H.wait('the hover float', function()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= '' then
      float = win
      return true
    end
  end
  return false
end)
local shown = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(float), 0, -1, false), '\n')
H.eq(table.concat({
  '**@reviewer** — claude',
  '',
  'Reviewer: reviews Rust changes for correctness and safety',
  '',
  -- The role's first paragraph, with the list it announces, quoted.
  '> You review code the way a careful senior engineer does:',
  '>',
  '> - Read the code you are asked about before you comment on it.',
  '> - Report real problems first (wrong results, panics, data loss, security), then risks,',
  '>   then style — and say which is which.',
  '> - Quote the lines you mean and propose the fix.',
  '> - Do not edit files yourself; the tester and the human decide what changes.',
  '',
  '- workdir: `' .. ws.demo .. '/reviewer`',
  '- role file: `' .. ws.demo .. '/reviewer/CLAUDE.md`',
  '- the CLI also loads: `' .. ws.demo .. '/reviewer/CLAUDE.md`',
  '- CLI: `' .. ws.bin .. '/claude` (2.1.197 (Claude Code))',
}, '\n'), shown, 'the hover float (the CLI found through agent_path)')
H.pass()
