-- :checkhealth chatmd shows the Neovim version, the server binary with its version, and
-- which agent CLIs are found (here: the fake agent in agent_path; gemini is missing).
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')
local ws = H.workspace()
os.remove(ws.bin .. '/gemini')
H.setup(ws, { agent_path = ws.bin })
vim.cmd('checkhealth chatmd')
local text = H.text(0)
local v = vim.version()
local expect = {
  'chatmd: Neovim',
  string.format('- ✅ OK Neovim %d.%d.%d (vim.lsp.config / vim.lsp.enable)', v.major, v.minor, v.patch),
  'chatmd: language server',
  '- ✅ OK chatmd 0.1.0 (' .. ws.chatmd .. ')',
  '- no chatmd client is running (open a *.chat.md file to start one)',
  'chatmd: agent CLIs',
  '- agent_path (searched first): ' .. ws.bin,
  '- ✅ OK claude: ' .. ws.bin .. '/claude',
  '- ✅ OK codex: ' .. ws.bin .. '/codex',
  '- ⚠️ WARNING gemini: not found on PATH',
  '  - Install it if your team uses it: npm install -g @google/gemini-cli, then log in once in a terminal',
}
local pos = 1
for _, line in ipairs(expect) do
  local s, e = text:find(line, pos, true)
  if not s then
    H.fail('missing (in order) from :checkhealth chatmd: ' .. line .. '\n--- shown\n' .. text)
  end
  pos = e + 1
end
H.pass()
