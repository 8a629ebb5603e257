-- `nvim notes/pay.rs` in a folder with no team and no chat: :'<,'>ChatAskAbout! reviewer
-- says there is nobody to ask and how to make a team, and writes no chat file.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
H.setup(ws, { agent_path = ws.bin })
local notes = H.capture_notify(true)
local folder = ws.dir .. '/alone'
vim.fn.mkdir(folder .. '/notes', 'p')
vim.fn.writefile({ 'fn pay() {}' }, folder .. '/notes/pay.rs')
vim.fn.chdir(folder)
vim.cmd.edit('notes/pay.rs')

vim.cmd('1ChatAskAbout! reviewer')

local said
H.wait('the message that nobody can be asked', function()
  for _, n in ipairs(notes) do
    if n.msg:find('nobody to ask', 1, true) then
      said = n
      return true
    end
  end
  return false
end, nil, function()
  return vim.inspect(notes)
end)
H.eq(true, said.msg:find('chatmd init team', 1, true) ~= nil, 'it says how to make a team: ' .. said.msg)
H.eq(vim.log.levels.ERROR, said.level, 'shown as an error')
H.eq({}, H.chats(folder), 'no chat file was written')
H.pass()
