-- *.chat.md files are chatmd conversations: Markdown with the chatmd language server.
-- The compound filetype keeps Markdown's syntax, ftplugin and tree-sitter parser.
vim.filetype.add({
  pattern = {
    ['.*%.chat%.md'] = { 'markdown.chatmd', { priority = 10 } },
  },
})
