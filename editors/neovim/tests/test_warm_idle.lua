-- `warm.idle_seconds` as the server applies it: an ACP member's agent, kept running after
-- its answer for the member's next turn, ends once it has waited that long (half a
-- second here; the server's default, without the option, is 300 s).
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
-- The fake ACP agent answers as claude-agent-acp when started under that name, and logs
-- `{"started": pid}` when it starts.
vim.uv.fs_symlink(vim.env.FAKE_AGENT_BIN, ws.bin .. '/claude-agent-acp')
local log = ws.dir .. '/acp.jsonl'
vim.fn.writefile({
  '[members.writer]',
  'agent = "acp"',
  'preset = "claude"',
  '[members.writer.env]',
  'FAKE_ACP_LOG = "' .. log .. '"',
  'IS_SANDBOX = "1"',
  'CLAUDE_CONFIG_DIR = "' .. ws.dir .. '/state"',
}, ws.demo .. '/chatmd.toml')
-- Its `env` applies once the user trusts the file: trusted here, in a config folder of
-- the test's own (the server started below inherits it).
vim.env.XDG_CONFIG_HOME = ws.dir .. '/config'
local trusted = vim.fn.system({ ws.chatmd, 'trust', ws.demo .. '/chatmd.toml' })
if vim.v.shell_error ~= 0 then
  H.fail('chatmd trust: ' .. trusted)
end
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
