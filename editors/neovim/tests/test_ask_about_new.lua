-- :ChatAskAbout! reviewer from a source file: the server creates a new chat beside the
-- workspace's most recent one, titled after the lines, with the lines fenced and a #file:
-- reference as its first message; @reviewer answers it, and Neovim shows the new chat.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws, notes =
  H.source_in_workspace('calc.rs', { 'fn add(a: u32, b: u32) -> u32 {', '    a + b', '}' }, 'It adds two numbers.')
local original = table.concat(vim.fn.readfile(ws.chat, 'b'), '\n')

vim.cmd('2ChatAskAbout! reviewer')

local created = vim.fs.dirname(ws.chat) .. '/about-calc-rs-line-2.chat.md'
-- The chat as the user sees it: its buffer once Neovim shows it (the answer streams into
-- the buffer then, unsaved), else the file.
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
H.wait('the answer in the new chat', function()
  return chat():find('It adds two numbers.', 1, true) ~= nil and chat():sub(-8) == '\n## @me\n'
end, nil, function()
  return chat() .. '\n--- notifications\n' .. vim.inspect(notes)
end)
local text = chat()
local asked = '---\ntitle: About calc.rs line 2\n---\n\n## @me\n@reviewer about #file:calc.rs:2:\n\n```rust\n    a + b\n```\n'
H.eq(asked, text:sub(1, #asked), 'the new chat asks about the line')
H.eq(original, table.concat(vim.fn.readfile(ws.chat, 'b'), '\n'), 'the most recent chat is untouched')
H.wait('the new chat shown in a window', function()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(win)) == created then
      return true
    end
  end
  return false
end)
H.pass()
