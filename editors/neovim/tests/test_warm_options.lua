-- The `warm` options reach the server as the initializationOptions it reads
-- (warmIdleSeconds, warmMembers, warmMemoryMB, warmHeadless), beside agentPath, with
-- nothing shown to the user.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
local notes = H.capture_notify()
H.setup(ws, {
  agent_path = ws.bin,
  warm = { idle_seconds = 0.5, members = 2, memory_mb = 1536.5, headless = true },
})
local _, client = H.open(ws.chat)
local sent = client.config.init_options
H.eq({
  agentPath = ws.bin,
  warmIdleSeconds = 0.5,
  warmMembers = 2,
  warmMemoryMB = 1536.5,
  warmHeadless = true,
}, sent, 'the initializationOptions the server was started with')
-- As they go over the wire (vim.lsp encodes them with vim.json): numbers stay numbers,
-- a whole one without a fraction (the server reads warmMembers as a whole number).
local json = vim.json.encode(sent)
H.eq(sent, vim.json.decode(json), 'the JSON sent: ' .. json)
H.eq(true, json:find('"warmMembers":2[,}]') ~= nil, 'warmMembers whole in ' .. json)
H.eq({}, notes, 'nothing said to the user')
H.pass()
