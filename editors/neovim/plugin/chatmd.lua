-- chatmd: conversations with a team of coding agents in *.chat.md files.
-- Commands are global (`:ChatNew` works from any buffer); the language server is set up by
-- `require('chatmd').setup()`, or with defaults (and `vim.g.chatmd` as options) the first
-- time a chat is opened.
if vim.g.loaded_chatmd then
  return
end
vim.g.loaded_chatmd = true

if vim.fn.has('nvim-0.10') == 0 then
  vim.notify('chatmd needs Neovim 0.10 or newer', vim.log.levels.ERROR)
  return
end

-- Filetype detection also lives in ftdetect/ for plugin managers that only source that.
vim.filetype.add({
  pattern = {
    ['.*%.chat%.md'] = { 'markdown.chatmd', { priority = 10 } },
  },
})

local function chatmd()
  return require('chatmd')
end

local function command(name, fn, opts)
  vim.api.nvim_create_user_command(name, fn, opts)
end

command('ChatSend', function()
  chatmd().send()
end, { desc = 'chatmd: run the turns the chat calls for' })

command('ChatNext', function()
  chatmd().next()
end, { desc = 'chatmd: continue with whoever is due next' })

command('ChatAsk', function(args)
  chatmd().ask(args.args)
end, {
  nargs = 1,
  desc = 'chatmd: ask one member',
  complete = function(arglead)
    return chatmd().complete_members(arglead)
  end,
})

command('ChatCancel', function(args)
  chatmd().cancel(args.args ~= '' and args.args or nil)
end, {
  nargs = '?',
  desc = "chatmd: cancel one member's running turn, or every turn of this chat",
  complete = function(arglead)
    return chatmd().complete_running(arglead)
  end,
})

command('ChatAskAbout', function(args)
  chatmd().ask_about(args.args, args.line1, args.line2, nil, { new_chat = args.bang })
end, {
  nargs = '?',
  range = true,
  bang = true,
  desc = 'chatmd: ask the team about these lines, in the most recent chat (! a new chat)',
})

command('ChatNew', function(args)
  chatmd().new_chat(args.args ~= '' and args.args or nil)
end, { nargs = '?', desc = 'chatmd: create a new chat next to this file' })

vim.api.nvim_create_autocmd('FileType', {
  group = vim.api.nvim_create_augroup('chatmd.autosetup', {}),
  pattern = 'markdown.chatmd',
  callback = function(ev)
    chatmd()._autosetup(ev.buf)
  end,
})
