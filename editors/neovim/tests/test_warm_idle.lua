-- `warm.idle_seconds` as the server applies it: an ACP member's agent, kept running after
-- its answer for the member's next turn, ends once it has waited that long (half a
-- second here; the server's default, without the option, is 300 s).
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
-- The fake ACP agent as the writer, logging `{"started": pid}` when it starts.
local log = H.acp_writer(ws)
local chat = ws.demo .. '/idle.chat.md'
vim.fn.writefile({ '## @me', '@writer hello' }, chat)

H.capture_notify()
H.setup(ws, { agent_path = ws.bin, warm = { idle_seconds = 0.5 } })
local buf = H.open(chat)
vim.cmd('ChatSend')
H.wait('the answer', function()
  local text = H.text(buf)
  return text:find('status=done', 1, true) ~= nil and text:sub(-8) == '\n## @me\n'
end, nil, function()
  return H.text(buf)
end)

local pids = {}
for _, line in ipairs(vim.fn.readfile(log)) do
  local ok, message = pcall(vim.json.decode, line)
  if ok and type(message) == 'table' and message.started then
    pids[#pids + 1] = message.started
  end
end
H.eq(1, #pids, 'agents started')
local function running(pid)
  local stat = io.open('/proc/' .. pid .. '/stat')
  if not stat then
    return false
  end
  local text = stat:read('*a')
  stat:close()
  return not text:find(') Z', 1, true) -- a zombie not yet reaped has ended
end
H.wait('the idle agent to end after warm.idle_seconds', function()
  return not running(pids[1])
end)
H.pass()
