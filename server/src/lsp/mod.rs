//! The language server glue: the only module that knows LSP types.
