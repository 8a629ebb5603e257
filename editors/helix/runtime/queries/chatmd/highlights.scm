; chatmd files use the Markdown grammar; highlight them like Markdown.
; inherits: markdown
