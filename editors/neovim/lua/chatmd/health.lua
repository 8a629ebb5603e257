--- `:checkhealth chatmd`: Neovim version, the server binary and its version, the agent CLIs.
local M = {}

local health = vim.health

--- The agent CLIs chatmd knows, with how to install each.
M.agents = {
  { name = 'claude', install = 'npm install -g @anthropic-ai/claude-code' },
  { name = 'codex', install = 'npm install -g @openai/codex' },
  { name = 'gemini', install = 'npm install -g @google/gemini-cli' },
}

local function run(cmd)
  local ok, obj = pcall(function()
    return vim.system(cmd, { text = true }):wait(5000)
  end)
  if not ok or not obj or obj.code ~= 0 then
    return nil
  end
  return vim.trim((obj.stdout or '') .. '')
end

--- Finds an executable in the configured agent_path folders first, then on PATH.
local function find(name, folders)
  for _, folder in ipairs(folders) do
    local path = vim.fs.joinpath(folder, name)
    if vim.fn.executable(path) == 1 then
      return path
    end
  end
  local path = vim.fn.exepath(name)
  return path ~= '' and path or nil
end

local function agent_folders(value)
  if value == nil then
    return {}
  end
  if type(value) == 'string' then
    value = vim.split(value, ':', { plain = true, trimempty = true })
  end
  return vim.tbl_map(vim.fs.normalize, value)
end

function M.check()
  local chatmd = require('chatmd')
  local config = chatmd.config

  health.start('chatmd: Neovim')
  local v = vim.version()
  local version = string.format('%d.%d.%d', v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.11') == 1 then
    health.ok('Neovim ' .. version .. ' (vim.lsp.config / vim.lsp.enable)')
  elseif vim.fn.has('nvim-0.10') == 1 then
    health.ok('Neovim ' .. version .. ' (vim.lsp.start)')
  else
    health.error('Neovim ' .. version .. ' is too old', { 'chatmd needs Neovim 0.10 or newer' })
  end

  health.start('chatmd: language server')
  local cmd = config.cmd or {}
  local exe = cmd[1] and vim.fn.exepath(cmd[1]) or ''
  if exe == '' then
    health.error(string.format('`%s` not found', cmd[1] or '(no cmd)'), {
      'Install it: cargo install --path server (in a chatmd checkout; needs a Rust toolchain)',
      'Without Rust, on linux-x64: the VS Code extension built for linux-x64 carries the binary; '
        .. 'unzip -j chatmd-linux-x64-*.vsix extension/server/chatmd -d ~/.local/bin',
      "Or point the plugin at it: require('chatmd').setup({ cmd = { '/path/to/chatmd', 'lsp' } })",
    })
  else
    local out = run({ exe, '--version' })
    if out then
      health.ok(string.format('%s (%s)', out, exe))
    else
      health.warn(string.format('%s found, but `%s --version` failed', exe, exe))
    end
  end
  local clients = vim.lsp.get_clients({ name = chatmd.name })
  if #clients > 0 then
    for _, client in ipairs(clients) do
      local info = client.server_info or {}
      health.info(string.format('running: client %d, %s %s, root %s', client.id, info.name or '?',
        info.version or '?', client.root_dir or '(none)'))
    end
  else
    health.info('no chatmd client is running (open a *.chat.md file to start one)')
  end

  health.start('chatmd: agent CLIs')
  local folders = agent_folders(config.agent_path)
  if #folders > 0 then
    health.info('agent_path (searched first): ' .. table.concat(folders, ':'))
  end
  local found = 0
  for _, agent in ipairs(M.agents) do
    local path = find(agent.name, folders)
    if path then
      found = found + 1
      local out = run({ path, '--version' })
      health.ok(string.format('%s: %s%s', agent.name, path, out and (' (' .. out:gsub('\n.*', '') .. ')') or ''))
    else
      health.warn(agent.name .. ': not found on PATH', {
        'Install it if your team uses it: ' .. agent.install .. ', then log in once in a terminal',
        'Members whose CLI is missing cannot answer; the server also reports it as a diagnostic',
      })
    end
  end
  if found == 0 then
    health.warn('no agent CLI found: no member can answer')
  end
end

return M
