-- A draft that mentions nobody, typed while @writer's answer streams, is not sent when the
-- turn ends (see draft.lua).
dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/draft.lua')('Thinking about partial refunds next.')
