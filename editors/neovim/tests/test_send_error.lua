-- :ChatSend when the agents' CLIs are not installed: nothing is written into the chat,
-- and the user is told why, in the words of the server.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
for _, name in ipairs({ 'claude', 'codex', 'gemini' }) do
  os.remove(ws.bin .. '/' .. name)
end
vim.env.PATH = '/usr/bin:/bin' -- no agent CLIs there
local ended = {}
H.setup(ws, {
  agent_path = ws.bin,
  progress = function(p)
    if p.kind == 'end' then
      ended[#ended + 1] = p.member
    end
  end,
})
local notes = H.capture_notify(true)
local buf = H.open(ws.chat)
local original = H.text(buf)

vim.cmd('ChatSend')
local function errors()
  local out = {}
  for _, n in ipairs(notes) do
    if n.level == vim.log.levels.ERROR then
      out[#out + 1] = n.msg
    end
  end
  table.sort(out)
  return out
end
H.wait('both failures to be shown', function()
  return #errors() == 2
end, nil, function()
  return vim.inspect(notes)
end)
H.eq({
  'LSP[chatmd] @reviewer: `claude` is not installed (not found on PATH). Install it with `npm install -g @anthropic-ai/claude-code`, then log in: run `claude` and type `/login`.',
  'LSP[chatmd] @tester: `codex` is not installed (not found on PATH). Install it with `npm install -g @openai/codex`, then log in: `codex login`.',
}, errors(), 'the errors shown')
-- Both turns are over once their progress ended.
H.wait('the end of both turns', function()
  return vim.tbl_contains(ended, '@reviewer') and vim.tbl_contains(ended, '@tester')
end, nil, function()
  return vim.inspect(ended)
end)
H.eq(original, H.text(buf), 'the chat is unchanged')

H.pass()
