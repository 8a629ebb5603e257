--- chatmd for Neovim: the `chatmd lsp` client for *.chat.md files, and the commands that
--- run turns (`:ChatSend`, `:ChatAsk`, `:ChatNext`, `:ChatCancel`, `:ChatNew`).
---
--- Every command is a `workspace/executeCommand` of the server (see `:help chatmd`); the
--- answers stream into the buffer through `workspace/applyEdit`, and each running turn is a
--- `$/progress` whose title is `@member`.
local M = {}

--- The filetype of chat buffers: Markdown, plus chatmd.
M.filetype = 'markdown.chatmd'

--- The client name (for `vim.lsp.config`, `vim.lsp.get_clients`, `:checkhealth`).
M.name = 'chatmd'

local has_011 = vim.fn.has('nvim-0.11') == 1

---@class chatmd.Keymaps
---@field send? string|false
---@field next? string|false
---@field ask? string|false
---@field cancel? string|false
---@field codelens? string|false

---@class chatmd.Warm
---@field idle_seconds? number seconds an ACP member's agent waits for its next turn (initializationOptions.warmIdleSeconds; 0 keeps none; 300)
---@field members? integer how many agents a workspace keeps waiting (initializationOptions.warmMembers; 8)
---@field memory_mb? number how much memory (MB) they may use together (initializationOptions.warmMemoryMB; 4096)
---@field headless? boolean also keep headless claude members waiting (initializationOptions.warmHeadless; false)

---@class chatmd.Config
---@field cmd string[] how to start the server
---@field agent_path? string|string[] folders searched first for agent CLIs (initializationOptions.agentPath)
---@field warm? chatmd.Warm warm sessions, sent for the keys set only (else the server's default, last in each field)
---@field root_markers string[] files or folders that mark a workspace root (the server's rule: `.git`)
---@field keymaps boolean|chatmd.Keymaps buffer-local mappings in chat buffers (false: none)
---@field progress boolean|fun(msg: chatmd.Progress) show running turns (true: echo in the command line)
---@field codelens boolean refresh the server's code lenses (▶ Send, ■ Cancel) in chat buffers
---@field capabilities? table extra client capabilities
---@field on_attach? fun(client: vim.lsp.Client, bufnr: integer)
---@field init_options? table more initializationOptions
---@field settings? table workspace settings
---@field lsp_enable boolean on Neovim 0.11+, register with vim.lsp.config/vim.lsp.enable (false: start with vim.lsp.start, as on 0.10)

---@class chatmd.Progress
---@field member string the title of the progress, e.g. `@reviewer`
---@field kind 'begin'|'report'|'end'
---@field message? string what the server said (state and elapsed time)
---@field text string the line shown: `chatmd: @reviewer — streaming 3.2s`

M.defaults = {
  cmd = { 'chatmd', 'lsp' },
  agent_path = nil,
  warm = nil,
  -- The server's rule for the workspace root (and `chatmd send`'s): the repository first.
  -- Not `chatmd.toml`: `chatmd init team` puts one in the team folder, which is not the
  -- project whose files the chats name.
  root_markers = { '.git' },
  keymaps = false,
  progress = true,
  codelens = true,
  capabilities = nil,
  on_attach = nil,
  init_options = nil,
  settings = nil,
  lsp_enable = true,
}

--- Mappings used for `keymaps = true`.
M.default_keymaps = {
  send = '<localleader>s',
  next = '<localleader>n',
  ask = '<localleader>a',
  cancel = '<localleader>c',
  codelens = '<localleader>l',
}

---@type chatmd.Config
M.config = vim.deepcopy(M.defaults)

local did_setup = false

--- Running turns, as the server last reported them (`chatmd/turnsChanged`): a list of
--- `{ uri, member, status, elapsedMs, bytes }`.
M.turns = {}

--- Progress of running turns by token: `{ member, message, kind }`.
M.progress = {}

-- ---------------------------------------------------------------------------------------
-- helpers

local function notify(msg, level)
  vim.notify('chatmd: ' .. msg, level or vim.log.levels.INFO)
end

local function buf_of(bufnr)
  if bufnr == nil or bufnr == 0 then
    return vim.api.nvim_get_current_buf()
  end
  return bufnr
end

local function agent_path_string(value)
  if value == nil then
    return nil
  end
  if type(value) == 'string' then
    value = vim.split(value, ':', { plain = true, trimempty = true })
  end
  local parts = {}
  for _, folder in ipairs(value) do
    parts[#parts + 1] = vim.fs.normalize(folder) -- expands ~ and $VARS
  end
  return table.concat(parts, ':')
end

--- The workspace root of a buffer, by the server's rule: the nearest folder with a root
--- marker (`.git`), else the working directory when it holds the file (as `chatmd send`
--- run there), else the file's own folder.
function M.root_dir(bufnr)
  bufnr = buf_of(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local root = vim.fs.root(bufnr, M.config.root_markers)
  if root then
    return root
  end
  local cwd = vim.fs.normalize(vim.uv.cwd())
  if name == '' then
    return cwd
  end
  local path = vim.fs.normalize(vim.fn.fnamemodify(name, ':p'))
  if path:sub(1, #cwd + 1) == cwd .. '/' then
    return cwd
  end
  return vim.fs.dirname(path)
end

local function number_at_least_zero(value)
  -- value == value: not NaN; math.huge is no number the server reads either.
  return type(value) == 'number' and value == value and value >= 0 and value ~= math.huge
end

--- The `warm` keys, as the server's initializationOptions (server/src/lsp/config.rs).
local warm_keys = {
  {
    key = 'idle_seconds',
    option = 'warmIdleSeconds',
    valid = number_at_least_zero,
    expected = 'a number of seconds, 0 or more',
  },
  {
    key = 'members',
    option = 'warmMembers',
    valid = function(value)
      return number_at_least_zero(value) and value % 1 == 0
    end,
    expected = 'a whole number, 0 or more',
  },
  { key = 'memory_mb', option = 'warmMemoryMB', valid = number_at_least_zero, expected = 'a number of MB, 0 or more' },
  {
    key = 'headless',
    option = 'warmHeadless',
    valid = function(value)
      return type(value) == 'boolean'
    end,
    expected = 'true or false',
  },
}

--- The `warm` options the user set, as initializationOptions, and what is wrong with the
--- others (left out: the server's default applies, as when not set).
local function warm_options(warm)
  local options, problems = {}, {}
  if warm == nil then
    return options, problems
  end
  if type(warm) ~= 'table' then
    return options, { 'warm is ' .. vim.inspect(warm) .. ', not a table' }
  end
  local known = {}
  for _, w in ipairs(warm_keys) do
    known[w.key] = true
    local value = warm[w.key]
    if value ~= nil then
      if w.valid(value) then
        options[w.option] = value
      else
        problems[#problems + 1] = ('warm.%s is %s, not %s'):format(w.key, vim.inspect(value), w.expected)
      end
    end
  end
  for key in pairs(warm) do
    if not known[key] then
      local what = 'warm.%s is not a setting (idle_seconds, members, memory_mb, headless)'
      problems[#problems + 1] = what:format(tostring(key))
    end
  end
  table.sort(problems)
  return options, problems
end

local function init_options()
  local opts = vim.deepcopy(M.config.init_options or {})
  local path = agent_path_string(M.config.agent_path)
  if path then
    opts.agentPath = path
  end
  for option, value in pairs((warm_options(M.config.warm))) do
    opts[option] = value
  end
  return opts
end

local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.window = caps.window or {}
  caps.window.workDoneProgress = true
  caps.window.showDocument = { support = true }
  caps.workspace = caps.workspace or {}
  caps.workspace.applyEdit = true
  -- `chatmd/readBuffer`: an agent reads the buffer, unsaved changes included.
  caps.experimental = vim.tbl_extend('force', caps.experimental or {}, { chatmdReadBuffer = true })
  if M.config.capabilities then
    caps = vim.tbl_deep_extend('force', caps, M.config.capabilities)
  end
  return caps
end

local handlers = {
  -- Neovim's handler fails (E348, from expand('<cword>')) when the cursor is on an empty
  -- line; `:ChatNew` is often run from one. Show the document without the tag stack then.
  ['window/showDocument'] = function(err, params, ctx, config)
    local ok, res = pcall(vim.lsp.handlers['window/showDocument'], err, params, ctx, config)
    if ok then
      return res
    end
    if not params or params.external then
      return { success = false }
    end
    local bufnr = vim.uri_to_bufnr(params.uri)
    vim.bo[bufnr].buflisted = true
    vim.api.nvim_win_set_buf(0, bufnr)
    return { success = true }
  end,
  -- `#diagnostics:path` in a sent message: the problems Neovim shows for that file (from
  -- every client and linter), as LSP diagnostics; none when the file is not loaded.
  ['chatmd/diagnostics'] = function(_, params)
    local found = {}
    local bufnr = params and params.uri and vim.uri_to_bufnr(params.uri)
    if bufnr and vim.api.nvim_buf_is_loaded(bufnr) then
      for _, d in ipairs(vim.diagnostic.get(bufnr)) do
        table.insert(found, {
          range = {
            start = { line = d.lnum, character = d.col },
            ['end'] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col },
          },
          severity = d.severity,
          source = d.source,
          message = d.message,
        })
      end
    end
    return { diagnostics = found }
  end,
  -- An agent reads a file: the loaded buffer's text (unsaved changes included), else
  -- nothing and the server reads the disk.
  ['chatmd/readBuffer'] = function(_, params)
    -- bufnr() looks the buffer up without making one for a file nobody opened.
    local bufnr = params and params.uri and vim.fn.bufnr(vim.uri_to_fname(params.uri))
    if not (bufnr and bufnr > 0 and vim.api.nvim_buf_is_loaded(bufnr)) then
      return vim.NIL
    end
    local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
    local text = table.concat(lines, '\n')
    if vim.bo[bufnr].eol or vim.bo[bufnr].fixeol then
      text = text .. '\n'
    end
    return { text = text }
  end,
  ['chatmd/turnsChanged'] = function(_, result)
    M.turns = (result and result.turns) or {}
    vim.schedule(function()
      vim.api.nvim_exec_autocmds('User', { pattern = 'ChatmdTurns', modeline = false })
      pcall(vim.cmd.redrawstatus)
      -- No `checktime` here: a chat opened with an older copy of a file a turn wrote is
      -- brought up to date by the server, and a reload racing that edit (Neovim applies
      -- an edit of version 0 to whatever the buffer holds) wrote the answer twice over.
      if M.config.codelens then
        for _, buf in ipairs(vim.api.nvim_list_bufs()) do
          if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].filetype == M.filetype then
            M.refresh_codelens(buf)
          end
        end
      end
    end)
  end,
}

--- The chatmd client attached to a buffer, if any.
---@return vim.lsp.Client?
function M.client(bufnr)
  bufnr = buf_of(bufnr)
  return vim.lsp.get_clients({ bufnr = bufnr, name = M.name })[1]
end

local function any_client()
  return vim.lsp.get_clients({ name = M.name })[1]
end

local function request(client, method, params, handler, bufnr)
  if has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function request_sync(client, method, params, timeout, bufnr)
  if has_011 then
    return client:request_sync(method, params, timeout, bufnr)
  end
  return client.request_sync(method, params, timeout, bufnr)
end

--- Runs a chatmd.* command with its one JSON object argument.
---@param command string
---@param arg table
---@param bufnr integer
---@param on_result? fun(result: any)
---@param client? vim.lsp.Client the client to ask (default: the buffer's)
function M.execute(command, arg, bufnr, on_result, client)
  bufnr = buf_of(bufnr)
  client = client or M.client(bufnr)
  if not client then
    notify('no chatmd language server here (is this a *.chat.md buffer? see :checkhealth chatmd)', vim.log.levels.ERROR)
    return false
  end
  local params = { command = command, arguments = { arg } }
  request(client, 'workspace/executeCommand', params, function(err, result)
    if err then
      notify(err.message or vim.inspect(err), vim.log.levels.ERROR)
      return
    end
    if on_result then
      on_result(result)
    end
  end, bufnr)
  return true
end

local function uri(bufnr)
  return vim.uri_from_bufnr(buf_of(bufnr))
end

local function report_started(result)
  if result and type(result.members) == 'table' and #result.members > 0 then
    local names = {}
    for _, m in ipairs(result.members) do
      names[#names + 1] = '@' .. m
    end
    notify('asked ' .. table.concat(names, ', '))
  end
end

-- ---------------------------------------------------------------------------------------
-- commands

--- `:ChatSend`: runs the turns the chat calls for (the members the last human message
--- mentions, or whoever routing picks).
function M.send(bufnr)
  bufnr = buf_of(bufnr)
  return M.execute('chatmd.send', { uri = uri(bufnr) }, bufnr, report_started)
end

--- `:ChatNext`: continue with whoever is due next.
function M.next(bufnr)
  bufnr = buf_of(bufnr)
  return M.execute('chatmd.next', { uri = uri(bufnr) }, bufnr, report_started)
end

--- `:ChatAsk {member}`: asks one member (with or without the `@`).
function M.ask(member, bufnr)
  bufnr = buf_of(bufnr)
  member = vim.trim(member or ''):gsub('^@', '')
  if member == '' then
    notify('ask whom? :ChatAsk {member}', vim.log.levels.ERROR)
    return false
  end
  return M.execute('chatmd.ask', { uri = uri(bufnr), member = member }, bufnr, report_started)
end

--- `:ChatCancel [member]`: cancels one member's running turn, or every turn of the chat.
function M.cancel(member, bufnr)
  bufnr = buf_of(bufnr)
  local arg = { uri = uri(bufnr) }
  if member and vim.trim(member) ~= '' then
    arg.member = (vim.trim(member):gsub('^@', ''))
  end
  return M.execute('chatmd.cancel', arg, bufnr)
end

--- The buffer's chatmd client, else any, else one started without a buffer in `folder`
--- and waited for (it starts in well under a second; this happens once).
---@return vim.lsp.Client?
local function started_client(bufnr, folder)
  local client = M.client(bufnr) or any_client()
  if client then
    return client
  end
  local id = M.start_detached(folder)
  client = id and vim.lsp.get_client_by_id(id)
  if not client or not vim.wait(10000, function()
    return client.initialized == true
  end, 10) then
    notify('the chatmd language server did not start (see :checkhealth chatmd)', vim.log.levels.ERROR)
    return nil
  end
  return client
end

--- `:'<,'>ChatAskAbout[!] [member]`: asks the team about lines `line1`..`line2` of any
--- file: the server appends them, fenced and with a `#file:` reference, to the
--- workspace's most recent chat (`opts.new_chat`, the bang: a new chat) as a new message
--- and sends it (queues it while the chat's members answer).
function M.ask_about(member, line1, line2, bufnr, opts)
  bufnr = buf_of(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' or vim.bo[bufnr].buftype ~= '' then
    notify('ask about lines of a file: this buffer is not one', vim.log.levels.ERROR)
    return false
  end
  -- Rooted where the chats are read (not at the file's folder: `nvim src/pay.rs` would
  -- start a server that sees no chat and no team).
  local client = started_client(bufnr, M.root_dir(bufnr))
  if not client then
    return false
  end
  local lines = vim.api.nvim_buf_get_lines(bufnr, line1 - 1, line2, false)
  local arg = {
    uri = vim.uri_from_bufnr(bufnr),
    range = { start = { line = line1 - 1, character = 0 }, ['end'] = { line = line2, character = 0 } },
    text = table.concat(lines, '\n') .. '\n',
  }
  if member and member ~= '' then
    arg.member = member:gsub('^@', '')
  end
  if opts and opts.new_chat then
    arg.newChat = true
  end
  return M.execute('chatmd.askAbout', arg, bufnr, function(result)
    if not (result and result.chat) then
      return
    end
    local chat = vim.fn.fnamemodify(vim.uri_to_fname(result.chat), ':~:.')
    if result.queued then
      notify('queued in ' .. chat .. ': sent when its members finish answering')
    elseif opts and opts.new_chat then
      -- A chat the user has not seen yet: show it beside the code.
      vim.cmd.split(vim.fn.fnameescape(vim.uri_to_fname(result.chat)))
      report_started(result)
    else
      report_started(result)
    end
  end, client)
end

--- `:ChatNew [title]`: creates a new chat in the folder of the current file (else the
--- working directory); the server opens it with `window/showDocument`.
function M.new_chat(title, bufnr)
  bufnr = buf_of(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local folder = (name ~= '' and vim.bo[bufnr].buftype == '') and vim.fs.dirname(name) or vim.uv.cwd()
  local arg = { folder = folder }
  if title and title ~= '' then
    arg.title = title
  end
  local client = started_client(bufnr, folder)
  if not client then
    return false
  end
  return M.execute('chatmd.newChat', arg, bufnr, function(result)
    if result and result.uri then
      local path = vim.uri_to_fname(result.uri)
      -- The server already asked to show it (window/showDocument); open it if that did not.
      if vim.api.nvim_buf_get_name(0) ~= path then
        vim.cmd.edit(vim.fn.fnameescape(path))
      end
    end
  end, client)
end

-- ---------------------------------------------------------------------------------------
-- completion of members

--- Members of the chat's team, asked from the server: a completion request just after the
--- `@` of a message heading (every chat has one), so the server's own rules decide who is
--- on the team. Falls back to the front matter's `members:` list.
---@return string[]
function M.members(bufnr)
  bufnr = buf_of(bufnr)
  local client = M.client(bufnr)
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  if client then
    local tried = 0
    for lnum, line in ipairs(lines) do
      local at = line:match('^ ? ? ?##[ \t]+()@')
      if at and tried < 5 then
        tried = tried + 1
        local resp = request_sync(client, 'textDocument/completion', {
          textDocument = { uri = uri(bufnr) },
          -- The heading's prefix is ASCII, so the column is the same in every encoding.
          position = { line = lnum - 1, character = at },
        }, 2000, bufnr)
        local result = resp and resp.result
        local items = result and (result.items or result)
        if type(items) == 'table' and #items > 0 then
          table.sort(items, function(a, b)
            return (a.sortText or a.label) < (b.sortText or b.label)
          end)
          local names = {}
          for _, item in ipairs(items) do
            names[#names + 1] = item.label
          end
          return names
        end
      end
    end
  end
  -- Fallback: `members: [a, b]` in the front matter.
  if lines[1] == '---' then
    for i = 2, #lines do
      if lines[i] == '---' then
        break
      end
      local list = lines[i]:match('^members:%s*%[(.*)%]')
      if list then
        local names = {}
        for name in list:gmatch('[^,%s]+') do
          names[#names + 1] = name
        end
        return names
      end
    end
  end
  return {}
end

local function filter(names, arglead)
  arglead = (arglead or ''):gsub('^@', '')
  return vim.tbl_filter(function(n)
    return vim.startswith(n:lower(), arglead:lower())
  end, names)
end

function M.complete_members(arglead)
  return filter(M.members(0), arglead)
end

--- Members with a running turn in this chat (from `chatmd/turnsChanged`, or the
--- `chatmd/turns` request), else every member.
function M.running(bufnr)
  bufnr = buf_of(bufnr)
  local this = uri(bufnr)
  local turns = M.turns
  local client = M.client(bufnr)
  if client and #turns == 0 then
    local resp = request_sync(client, 'chatmd/turns', {}, 1000, bufnr)
    if resp and resp.result and resp.result.turns then
      turns = resp.result.turns
    end
  end
  local names, seen = {}, {}
  for _, t in ipairs(turns) do
    if t.uri == this and not seen[t.member] then
      seen[t.member] = true
      names[#names + 1] = t.member
    end
  end
  return names
end

function M.complete_running(arglead)
  local names = M.running(0)
  if #names == 0 then
    names = M.members(0)
  end
  return filter(names, arglead)
end

-- ---------------------------------------------------------------------------------------
-- progress and status line

--- A short text for the status line: the running turns of this chat with what their
--- progress last said, e.g. `@reviewer 3.2s · 1.2 KB · @tester starting`, then how many
--- chats wait for you (`2 chats wait`); empty when nothing runs or waits.
function M.statusline(bufnr)
  bufnr = buf_of(bufnr)
  local this = uri(bufnr)
  local parts = {}
  for _, t in ipairs(M.turns) do
    if t.uri == this then
      local said
      for _, p in pairs(M.progress) do
        if p.member == '@' .. t.member then
          said = p.message
        end
      end
      parts[#parts + 1] = '@' .. t.member .. ' ' .. (said or t.status or '')
    end
  end
  local waiting = M.waiting_count()
  if waiting > 0 then
    parts[#parts + 1] = waiting == 1 and '1 chat waits' or (waiting .. ' chats wait')
  end
  return table.concat(parts, ' · ')
end

--- How many chats wait for you: files with a `waiting-…` diagnostic of chatmd (a
--- permission or plan request, a failed turn, a question; see `chatmd status`).
function M.waiting_count()
  local files = {}
  for _, d in ipairs(vim.diagnostic.get(nil)) do
    local lsp = d.user_data and d.user_data.lsp or {}
    local code = d.code or lsp.code
    if d.source == 'chatmd' and type(code) == 'string' and code:match('^waiting%-') then
      files[d.bufnr] = true
    end
  end
  return vim.tbl_count(files)
end

local function show_progress(p)
  local show = M.config.progress
  if not show then
    return
  end
  if type(show) == 'function' then
    show(p)
    return
  end
  if p.kind == 'end' then
    -- Kept in :messages: how each turn ended.
    vim.api.nvim_echo({ { p.text } }, true, {})
  else
    vim.api.nvim_echo({ { p.text, 'Comment' } }, false, {})
  end
end

local function on_progress(ev)
  local client = vim.lsp.get_client_by_id(ev.data.client_id)
  if not client or client.name ~= M.name then
    return
  end
  local params = ev.data.params or {}
  local value = params.value or {}
  local token = params.token
  if token == nil or type(value) ~= 'table' then
    return
  end
  local entry = M.progress[token] or {}
  if value.kind == 'begin' then
    entry.member = value.title or '?'
  end
  entry.member = entry.member or value.title or '?'
  entry.kind = value.kind
  if value.message then
    entry.message = value.message
  end
  local text = 'chatmd: ' .. entry.member
  if entry.message and entry.message ~= '' then
    text = text .. ' — ' .. entry.message
  elseif value.kind == 'end' then
    text = text .. ' — finished'
  end
  if value.kind == 'end' then
    M.progress[token] = nil
  else
    M.progress[token] = entry
  end
  show_progress({ member = entry.member, kind = value.kind, message = entry.message, text = text })
  pcall(vim.cmd.redrawstatus)
end

-- ---------------------------------------------------------------------------------------
-- code lenses and keymaps

function M.refresh_codelens(bufnr)
  bufnr = buf_of(bufnr)
  local client = M.client(bufnr)
  if not client or not client.server_capabilities.codeLensProvider then
    return
  end
  if has_011 then
    pcall(vim.lsp.codelens.refresh, { bufnr = bufnr })
  else
    vim.api.nvim_buf_call(bufnr, function()
      pcall(vim.lsp.codelens.refresh)
    end)
  end
end

local function set_keymaps(bufnr)
  local km = M.config.keymaps
  if not km then
    return
  end
  if km == true then
    km = M.default_keymaps
  else
    km = vim.tbl_extend('force', M.default_keymaps, km)
  end
  local function map(lhs, rhs, desc)
    if lhs then
      vim.keymap.set('n', lhs, rhs, { buffer = bufnr, desc = 'chatmd: ' .. desc })
    end
  end
  map(km.send, '<Cmd>ChatSend<CR>', 'send')
  map(km.next, '<Cmd>ChatNext<CR>', 'next')
  map(km.ask, ':ChatAsk ', 'ask a member')
  map(km.cancel, '<Cmd>ChatCancel<CR>', 'cancel running turns')
  map(km.codelens, function()
    vim.lsp.codelens.run()
  end, 'run the code lens of this line')
end

local function on_attach(client, bufnr)
  set_keymaps(bufnr)
  if M.config.codelens and client.server_capabilities.codeLensProvider then
    local group = vim.api.nvim_create_augroup('chatmd.codelens.' .. bufnr, {})
    vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'CursorHold' }, {
      group = group,
      buffer = bufnr,
      callback = function()
        M.refresh_codelens(bufnr)
      end,
    })
    M.refresh_codelens(bufnr)
  end
  if M.config.on_attach then
    M.config.on_attach(client, bufnr)
  end
end

-- ---------------------------------------------------------------------------------------
-- setup

--- The client configuration (as for `vim.lsp.start`, without `root_dir`).
function M.client_config()
  return {
    name = M.name,
    cmd = M.config.cmd,
    filetypes = { M.filetype },
    init_options = init_options(),
    settings = M.config.settings,
    capabilities = capabilities(),
    handlers = handlers,
    on_attach = on_attach,
  }
end

--- Starts the client for a chat buffer (Neovim 0.10 path, and a fallback on 0.11).
function M.start(bufnr)
  bufnr = buf_of(bufnr)
  local config = M.client_config()
  config.root_dir = M.root_dir(bufnr)
  return vim.lsp.start(config, { bufnr = bufnr })
end

--- Starts a client attached to no buffer (for `:ChatNew` from a non-chat buffer).
function M.start_detached(root)
  local config = M.client_config()
  config.root_dir = root
  if has_011 then
    return vim.lsp.start(config, { attach = false })
  end
  return vim.lsp.start_client(config)
end

--- Whether the client is registered with vim.lsp.config/vim.lsp.enable (0.11+).
function M.uses_lsp_enable()
  return has_011 and M.config.lsp_enable ~= false and vim.lsp.config ~= nil and vim.lsp.enable ~= nil
end

---@param opts? chatmd.Config
function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
  if opts and opts.cmd then
    M.config.cmd = opts.cmd -- lists are replaced, not merged
  end
  if opts and opts.root_markers then
    M.config.root_markers = opts.root_markers
  end
  did_setup = true
  local _, warm_problems = warm_options(M.config.warm)
  if #warm_problems > 0 then
    -- Said once, here, rather than when each client starts; the rest of the setup goes on.
    notify(table.concat(warm_problems, '; ') .. " (not sent: the server's defaults apply)", vim.log.levels.ERROR)
  end

  pcall(vim.treesitter.language.register, 'markdown', M.filetype)

  local group = vim.api.nvim_create_augroup('chatmd', {})
  vim.api.nvim_create_autocmd('LspProgress', { group = group, callback = on_progress })

  if M.uses_lsp_enable() then
    local config = M.client_config()
    config.root_dir = function(bufnr, on_dir)
      on_dir(M.root_dir(bufnr))
    end
    vim.lsp.config(M.name, config)
    vim.lsp.enable(M.name)
  else
    vim.api.nvim_create_autocmd('FileType', {
      group = group,
      pattern = M.filetype,
      callback = function(ev)
        M.start(ev.buf)
      end,
    })
    for _, buf in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].filetype == M.filetype then
        M.start(buf)
      end
    end
  end
end

--- Called for every chat buffer (FileType): sets up with defaults (and `vim.g.chatmd`)
--- when the user did not call setup(), and makes sure the buffer gets its client.
function M._autosetup(bufnr)
  if not did_setup then
    M.setup(vim.g.chatmd or {})
  end
  vim.schedule(function()
    if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].filetype ~= M.filetype then
      return
    end
    if #vim.lsp.get_clients({ bufnr = bufnr, name = M.name, _uninitialized = true }) > 0 then
      return
    end
    if M.uses_lsp_enable() and vim.lsp.is_enabled and vim.lsp.is_enabled(M.name) then
      vim.api.nvim_exec_autocmds('FileType', { group = 'nvim.lsp.enable', buffer = bufnr, modeline = false })
    else
      M.start(bufnr)
    end
  end)
end

return M
