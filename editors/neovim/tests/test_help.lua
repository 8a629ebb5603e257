-- The help file builds its tags (no duplicates) and :help finds every command and option.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local doc = vim.fn.tempname() .. '/doc'
vim.fn.mkdir(doc, 'p')
vim.fn.writefile(vim.fn.readfile(H.plugin_dir .. '/doc/chatmd.txt', 'b'), doc .. '/chatmd.txt', 'b')
local ok, err = pcall(vim.cmd.helptags, doc)
if not ok then
  H.fail(':helptags: ' .. tostring(err))
end
vim.opt.runtimepath:prepend(vim.fs.dirname(doc))
for _, topic in ipairs({ 'chatmd', ':ChatSend', ':ChatAsk', ':ChatNext', ':ChatCancel', ':ChatNew',
  'chatmd-options', 'chatmd.setup()', 'chatmd-health', 'chatmd.statusline()', 'chatmd-mappings' }) do
  local found, e = pcall(vim.cmd.help, topic)
  if not found then
    H.fail(':help ' .. topic .. ': ' .. tostring(e))
  end
  vim.cmd.helpclose()
end
-- Every |link| in the file points at a tag of this file or of Neovim's own help.
local tags = {}
for _, line in ipairs(vim.fn.readfile(doc .. '/tags')) do
  tags[line:match('^[^\t]+')] = true
end
local missing = {}
for _, line in ipairs(vim.fn.readfile(doc .. '/chatmd.txt')) do
  for link in line:gmatch('|([^|%s]+)|') do
    if not tags[link] and not vim.tbl_contains(vim.fn.getcompletion(link, 'help'), link) then
      missing[#missing + 1] = link
    end
  end
end
H.eq({}, missing, 'links without a tag')
H.pass()
