// Context references (`#file:`, `#diff`, `#diagnostics:`) and asking about a selection: the
// names the server and the extension share for them.

/** Server → client: the problems the editor shows for a file (`#diagnostics:path`). */
export const SOURCE_DIAGNOSTICS = 'chatmd/diagnostics';

/**
 * Server → client: the text of a file's buffer, unsaved changes included, when an agent
 * reads it (`null` when the file is not open). Declared under `experimental` by this key.
 */
export const READ_BUFFER = 'chatmd/readBuffer';
export const READ_BUFFER_CAPABILITY = 'chatmdReadBuffer';
