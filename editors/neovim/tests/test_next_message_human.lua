-- The next message typed at the end while a slow member streams, at human speed (30 to
-- 80 ms between keys), then sent: queued, then answered (see next_message.lua).
dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/next_message.lua')(30, 80)
