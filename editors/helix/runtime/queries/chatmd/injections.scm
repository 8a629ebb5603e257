; Inline Markdown, code blocks and the front matter, as in Markdown files.
; inherits: markdown
