-- :'<,'>ChatAskAbout reviewer from a source file (not a chat): the server appends the lines,
-- fenced and with a #file: reference, to the workspace's most recent chat (on disk: it is
-- not open) as a new message, and @reviewer answers it through the fake agent.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws, notes =
  H.source_in_workspace('calc.rs', { 'fn add(a: u32, b: u32) -> u32 {', '    a + b', '}' }, 'It adds two numbers.')
local original = table.concat(vim.fn.readfile(ws.chat, 'b'), '\n')

vim.cmd('1,2ChatAskAbout reviewer')

local function chat()
  return table.concat(vim.fn.readfile(ws.chat, 'b'), '\n')
end
H.wait('the answer in the chat file', function()
  return chat():find('It adds two numbers.', 1, true) ~= nil and chat():sub(-8) == '\n## @me\n'
end, nil, function()
  return chat() .. '\n--- notifications\n' .. vim.inspect(notes)
end)
local asked = '@reviewer about #file:calc.rs:1-2:\n\n```rust\nfn add(a: u32, b: u32) -> u32 {\n    a + b\n```\n'
local text = chat()
H.eq(original, text:sub(1, #original), 'the chat before is kept')
H.eq(true, text:find(asked, #original, true) ~= nil, 'the message asks about the lines: ' .. text)
H.pass()
