-- Shared helpers of the headless Neovim tests (run with `nvim --headless -u NONE -i NONE -n -l`).
-- Every wait is a condition with a timeout (vim.wait), never a sleep.
local H = {}

local this = debug.getinfo(1, 'S').source:sub(2)
H.plugin_dir = vim.fs.dirname(vim.fs.dirname(vim.fn.fnamemodify(this, ':p')))
H.repo = vim.fs.dirname(vim.fs.dirname(H.plugin_dir))
H.name = vim.fn.fnamemodify(arg and arg[0] or '?', ':t:r')
H.timeout = tonumber(vim.env.CHATMD_TEST_TIMEOUT or '') or 10000

function H.fail(msg)
  io.stderr:write('FAIL ' .. H.name .. ': ' .. msg .. '\n')
  io.stderr:flush()
  os.exit(1)
end

function H.pass()
  io.stdout:write('\nPASS ' .. H.name .. '\n')
  io.stdout:flush()
  os.exit(0)
end

--- Waits until cond() is true; fails the test with `what` (and a dump) after the timeout.
function H.wait(what, cond, timeout, dump)
  local ok = vim.wait(timeout or H.timeout, cond, 10)
  if not ok then
    H.fail('timed out waiting for ' .. what .. (dump and ('\n' .. dump()) or ''))
  end
end

function H.eq(expected, actual, what)
  if not vim.deep_equal(expected, actual) then
    H.fail((what or 'values differ') .. '\n--- expected\n' .. vim.inspect(expected) .. '\n--- actual\n' .. vim.inspect(actual))
  end
end

--- The buffer's text as the file would be written (lines joined by \n, final \n if 'eol').
function H.text(buf)
  local lines = vim.api.nvim_buf_get_lines(buf or 0, 0, -1, false)
  local text = table.concat(lines, '\n')
  if vim.bo[buf or 0].eol then
    text = text .. '\n'
  end
  return text
end

local function need(var)
  local v = vim.env[var]
  if not v or v == '' then
    H.fail(var .. ' is not set (the runner tests/run.sh sets it)')
  end
  return v
end

--- A scratch copy of the editor tests' demo team (tests/fixtures/editor-demo) and a folder with the fake agent as claude, codex and gemini.
function H.workspace()
  local chatmd = need('CHATMD_BIN')
  local fake = need('FAKE_AGENT_BIN')
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  local demo = dir .. '/demo'
  local out = vim.fn.system({ 'cp', '-R', H.repo .. '/tests/fixtures/editor-demo', demo })
  if vim.v.shell_error ~= 0 then
    H.fail('cannot copy the demo: ' .. out)
  end
  local bin = dir .. '/bin'
  vim.fn.mkdir(bin, 'p')
  for _, name in ipairs({ 'claude', 'codex', 'gemini' }) do
    vim.uv.fs_symlink(fake, bin .. '/' .. name)
  end
  -- The fake agent refuses to run as root in a sandbox unless this is empty.
  vim.env.IS_SANDBOX = ''
  return { dir = dir, demo = demo, chat = demo .. '/release-review.chat.md', bin = bin, chatmd = chatmd }
end

--- The workspace's `writer` made an ACP member: the fake ACP agent as claude-agent-acp
--- (it logs `{"started": pid}` and the messages to the returned log), with `more` lines
--- added to its `env` table, in a chatmd.toml the user trusted (in a config folder of the
--- test's own, which the server started later inherits). Returns the log's path.
function H.acp_writer(ws, more)
  vim.uv.fs_symlink(vim.env.FAKE_AGENT_BIN, ws.bin .. '/claude-agent-acp')
  local log = ws.dir .. '/acp.jsonl'
  local config = {
    '[members.writer]',
    'agent = "acp"',
    'preset = "claude"',
    '[members.writer.env]',
    'FAKE_ACP_LOG = "' .. log .. '"',
    'IS_SANDBOX = "1"',
    'CLAUDE_CONFIG_DIR = "' .. ws.dir .. '/state"',
  }
  vim.list_extend(config, more or {})
  vim.fn.writefile(config, ws.demo .. '/chatmd.toml')
  vim.env.XDG_CONFIG_HOME = ws.dir .. '/config'
  local trusted = vim.fn.system({ ws.chatmd, 'trust', ws.demo .. '/chatmd.toml' })
  if vim.v.shell_error ~= 0 then
    H.fail('chatmd trust: ' .. trusted)
  end
  return log
end

--- Loads the plugin as a user would (runtimepath, filetype detection, plugin/), then setup().
function H.setup(ws, opts)
  vim.o.showmode = false -- no "-- INSERT --" in the test output
  vim.opt.runtimepath:prepend(H.plugin_dir)
  vim.cmd('filetype plugin on')
  vim.cmd.runtime('plugin/chatmd.lua')
  local chatmd = require('chatmd')
  chatmd.setup(vim.tbl_extend('force', { cmd = { ws.chatmd, 'lsp' } }, opts or {}))
  return chatmd
end

--- Opens a file and waits for the chatmd client to be attached and initialized.
function H.open(path)
  vim.cmd.edit(vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  local client
  H.wait('the chatmd client to attach to ' .. path, function()
    client = vim.lsp.get_clients({ bufnr = buf, name = 'chatmd' })[1]
    return client ~= nil and client.initialized
  end)
  return buf, client
end

--- Replaces the variable parts of status comments (times, session ids) by placeholders.
function H.normalize(text)
  return (
    text
      :gsub(' held=%S+', '') -- what a resumed session holds: the Rust tests check it
      :gsub('started=%S+', 'started=<T>')
      :gsub('session=%S+', 'session=<S>')
      :gsub('took=%S+', 'took=<D>')
  )
end

--- The messages shown with vim.notify, collected from now on. An error shown to the user
--- fails the test at once (unless `allow_errors`), instead of waiting for a timeout.
function H.capture_notify(allow_errors)
  local seen = {}
  vim.notify = function(msg, level)
    seen[#seen + 1] = { msg = msg, level = level }
    if not allow_errors and (level or 0) >= vim.log.levels.ERROR then
      vim.schedule(function()
        H.fail('error shown to the user: ' .. tostring(msg))
      end)
    end
  end
  return seen
end

--- A workspace whose reviewer answers `answer`, with the source file `name` (holding
--- `lines`) in its chat's folder, open in the current window: where the ask-about tests
--- start. Returns the workspace and the captured notifications.
function H.source_in_workspace(name, lines, answer)
  local ws = H.workspace()
  vim.env.FAKE_AGENT_TEXT = answer
  H.setup(ws, { agent_path = ws.bin })
  local notes = H.capture_notify()
  vim.fn.writefile(lines, ws.demo .. '/' .. name)
  vim.cmd.edit(vim.fn.fnameescape(ws.demo .. '/' .. name))
  return ws, notes
end

--- A project as `chatmd init team` leaves it: the demo team in `team/` with a `chatmd.toml`
--- beside its chat, and `src/pay.rs`; a repository (`.git`) when `git` is set. Neovim's
--- working directory is the project, as after `cd project && nvim src/pay.rs`. Returns the
--- workspace (its `project`, `team`, `source` and `chat`).
function H.project(answer, git)
  local ws = H.workspace()
  local project = ws.dir .. '/project'
  vim.fn.mkdir(project .. '/src', 'p')
  if git then
    vim.fn.mkdir(project .. '/.git', 'p')
  end
  local team = project .. '/team'
  vim.uv.fs_rename(ws.demo, team)
  vim.fn.writefile({ '# The team settings (chatmd init writes this file).' }, team .. '/chatmd.toml')
  ws.project, ws.team, ws.chat = project, team, team .. '/release-review.chat.md'
  ws.source = project .. '/src/pay.rs'
  vim.fn.writefile({ 'fn pay(cents: u64) -> u64 {', '    let fee = cents / 100;', '    cents + fee', '}' }, ws.source)
  vim.env.FAKE_AGENT_TEXT = answer
  vim.fn.chdir(project)
  return ws
end

--- The chat files under `folder`, sorted.
function H.chats(folder)
  local found = vim.fs.find(function(name)
    return name:match('%.chat%.md$') ~= nil
  end, { path = folder, limit = math.huge, type = 'file' })
  table.sort(found)
  return found
end

--- The keys of `s` one by one, as nvim_input takes them: a key name such as `<CR>` or
--- `<Esc>` is one key, every other character is one key.
function H.keys(s)
  local keys = {}
  local i = 1
  while i <= #s do
    local key = s:match('^<[%w%-]+>', i) or s:sub(i, i)
    keys[#keys + 1] = key
    i = i + #key
  end
  return keys
end

--- The pauses before each of `n` keys, in ms: `min`..`max` at random (human speed), from
--- the seed CHATMD_TEST_SEED or a new one. Returns the pauses and the seed (print it on
--- failure, set CHATMD_TEST_SEED to replay it).
function H.gaps(n, min, max)
  local seed = tonumber(vim.env.CHATMD_TEST_SEED or '') or (vim.uv.hrtime() % 1000000)
  math.randomseed(seed)
  local gaps = {}
  for i = 1, n do
    gaps[i] = math.random(min, max)
  end
  return gaps, seed
end

--- A second Neovim, embedded (`nvim --embed --headless`), driven like a user at a
--- keyboard: keys go through its input queue (`nvim_input`), so insert mode stays on
--- between keystrokes while its main loop applies the server's edits, which a script run
--- with `-l` cannot do (feedkeys ends insert mode, or blocks waiting for a key). It loads
--- the plugin with setup(opts) and edits `path`; every check runs in this (the test's)
--- Neovim. Returns { lua = fun(code, ...), input = fun(keys), buf = integer, stop = fun(),
--- type = fun(keys, gaps), typed = fun(): boolean }: `type` has the embedded Neovim take
--- `keys` (a list, see H.keys) one at a time from its own timers, `gaps[i]` ms before key i,
--- so its main loop applies the server's edits between keystrokes as it does for a user;
--- `typed()` says whether the last key went in.
function H.embed(ws, path, opts)
  local chan = vim.fn.jobstart({ vim.uv.exepath(), '--embed', '--headless', '-u', 'NONE', '-i', 'NONE', '-n' }, { rpc = true })
  if chan <= 0 then
    H.fail('cannot start an embedded nvim')
  end
  local child = {}
  function child.lua(code, ...)
    return vim.rpcrequest(chan, 'nvim_exec_lua', code, { ... })
  end
  function child.input(keys)
    vim.rpcrequest(chan, 'nvim_input', keys)
  end
  function child.stop()
    vim.fn.jobstop(chan)
  end
  function child.type(keys, gaps)
    child.lua(
      [[
      local keys, gaps = ...
      typing_done = false
      -- nvim_input is called from the timer's own callback, not a scheduled one: keys come
      -- in whatever Neovim is doing, as a terminal's do (a scheduled callback waits while
      -- Neovim waits for the rest of a mapping, which then times out).
      local timer = vim.uv.new_timer()
      local i = 0
      local function step()
        i = i + 1
        if i > #keys then
          typing_done = true
          timer:close()
          return
        end
        vim.api.nvim_input(keys[i])
        timer:start(gaps[i + 1] or 1, 0, step)
      end
      timer:start(gaps[1] or 1, 0, step)
    ]],
      keys,
      gaps
    )
  end
  function child.typed()
    return child.lua('return typing_done')
  end
  child.buf = child.lua(
    [[
    local helpers, ws, opts, path = ...
    H = dofile(helpers)
    -- Shown messages are kept for the test's failure output.
    notes = {}
    vim.notify = function(msg, level)
      notes[#notes + 1] = { msg = msg, level = level }
    end
    H.setup(ws, opts)
    vim.cmd.edit(vim.fn.fnameescape(path))
    return vim.api.nvim_get_current_buf()
  ]],
    H.plugin_dir .. '/tests/helpers.lua',
    ws,
    opts or vim.empty_dict(),
    path
  )
  H.wait('the chatmd client to attach in the embedded nvim', function()
    return child.lua([[
      local c = vim.lsp.get_clients({ bufnr = ..., name = 'chatmd' })[1]
      return c ~= nil and c.initialized == true
    ]], child.buf)
  end)
  return child
end

return H
