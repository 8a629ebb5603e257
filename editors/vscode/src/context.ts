// Context references (`#file:`, `#diff`, `#diagnostics:`) and asking about a selection: the
// names the server and the extension share for them.

/** Server → client: the problems the editor shows for a file (`#diagnostics:path`). */
export const SOURCE_DIAGNOSTICS = 'chatmd/diagnostics';
