-- Code lenses in a chat: "▶ Send to @reviewer, @tester" above the last message; with
-- keymaps = true, <LocalLeader>l on that line runs it, and ■ Cancel lenses show while the
-- turns run.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
vim.env.FAKE_AGENT_TEXT = 'Looks good to me.'
vim.env.FAKE_AGENT_DELAY_MS = '40'
vim.g.maplocalleader = ','
H.setup(ws, { agent_path = ws.bin, keymaps = true, progress = false })
H.capture_notify()
local buf = H.open(ws.chat)

local function lenses()
  local out = {}
  for _, lens in ipairs(vim.lsp.codelens.get(buf)) do
    if lens.command then
      out[#out + 1] = (lens.range.start.line + 1) .. ': ' .. lens.command.title
    end
  end
  table.sort(out)
  return out
end
H.wait('the Send lens', function()
  return #lenses() > 0
end)
H.eq({ '10: ▶ Send to @reviewer, @tester' }, lenses(), 'lenses of the demo chat')
H.eq('<Cmd>ChatSend<CR>', vim.fn.maparg(',s', 'n'), ',s sends')

vim.api.nvim_win_set_cursor(0, { 10, 0 })
vim.api.nvim_feedkeys(',l', 'tx', false)
-- The answers' headings are lines 14 (@reviewer) and 17 (@tester).
H.wait('a Cancel lens on the running answer', function()
  return vim.tbl_contains(lenses(), '14: ■ Cancel @reviewer')
end, nil, function()
  return vim.inspect(lenses()) .. '\n' .. H.text(buf)
end)
for _, lens in ipairs(lenses()) do
  if lens ~= '14: ■ Cancel @reviewer' and lens ~= '17: ■ Cancel @tester' then
    H.fail('unexpected lens while running: ' .. lens)
  end
end
H.wait('both answers done', function()
  local _, n = H.text(buf):gsub('status=done', '')
  return n == 2
end, nil, function()
  return H.text(buf)
end)
H.wait('no lens once the reply stub ends the chat', function()
  return #lenses() == 0
end, nil, function()
  return vim.inspect(lenses())
end)
H.pass()
