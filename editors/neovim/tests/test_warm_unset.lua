-- Without `warm` in the options (as most users leave it), no warm key is sent: the server's defaults apply
-- (an idle time of 300 s, 8 agents, 4096 MB, headless claude not kept).
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
local notes = H.capture_notify()
H.setup(ws, { agent_path = ws.bin })
local _, client = H.open(ws.chat)
H.eq({ agentPath = ws.bin }, client.config.init_options, 'the initializationOptions the server was started with')
H.eq({}, notes, 'nothing said to the user')
H.pass()
