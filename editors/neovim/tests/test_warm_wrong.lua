-- A `warm` option of the wrong type (or a misspelt key) is an error shown once, at
-- setup, and is not sent; the right ones still are, and the server starts.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
local notes = H.capture_notify(true)
H.setup(ws, {
  agent_path = ws.bin,
  warm = { idle_seconds = '60', members = 2.5, memory_mb = 512, headless = 'yes', idle = 3 },
})
H.eq({
  {
    msg = 'chatmd: warm.headless is "yes", not true or false; '
      .. 'warm.idle is not a setting (idle_seconds, members, memory_mb, headless); '
      .. 'warm.idle_seconds is "60", not a number of seconds, 0 or more; '
      .. 'warm.members is 2.5, not a whole number, 0 or more '
      .. "(not sent: the server's defaults apply)",
    level = vim.log.levels.ERROR,
  },
}, notes, 'the error shown at setup')
local _, client = H.open(ws.chat)
H.eq(
  { agentPath = ws.bin, warmMemoryMB = 512 },
  client.config.init_options,
  'the initializationOptions the server was started with'
)
H.eq(1, #notes, 'said once, not again when the client starts')
H.pass()
