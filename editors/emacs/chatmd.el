;;; chatmd.el --- Chats with a team of coding agents in .chat.md files  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (eglot "1.9"))
;; Keywords: tools, convenience
;; URL: https://github.com/chatmd/chatmd

;;; Commentary:

;; `chatmd-mode' edits *.chat.md files: Markdown conversations between you and a team
;; of coding agents.  The `chatmd lsp' language server, reached through eglot, runs each
;; member's agent and streams its answer into the buffer under its own heading.
;;
;;   C-c C-c  `chatmd-send'    the members your last message calls for answer
;;   C-c C-a  `chatmd-ask'     one member answers now
;;   C-c C-k  `chatmd-cancel'  stop the running turns of this chat
;;   C-c C-r  `chatmd-answer'  answer the permission request at point (or the last one)
;;   M-x `chatmd-ask-about'    ask the team about the region of any file
;;
;; The mode line shows the running turns of the chat and how many chats wait for you.
;; See README.md beside this file.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'eglot)
(require 'markdown-mode nil t)

(defgroup chatmd nil
  "Chats with a team of coding agents in .chat.md files."
  :group 'tools
  :prefix "chatmd-")

(defcustom chatmd-server-path "chatmd"
  "The chatmd binary: a name looked up on `exec-path', or an absolute path.
The language server is started as `<this> lsp'."
  :type 'string)

(defcustom chatmd-agent-path nil
  "Folders searched first for the agent CLIs (claude, codex, gemini, ...).
A PATH-style string or a list of folders, sent as the initialization
option agentPath.  nil: the server's own PATH only."
  :type '(choice (const :tag "PATH only" nil) string (repeat directory)))

(defcustom chatmd-warm-idle-seconds nil
  "How long an ACP member's agent keeps running after its answer, in seconds.
The member's next turn in the chat is then one prompt on the live session,
without starting the agent again.  Fractions allowed; 0 keeps none.  Sent
as the initialization option warmIdleSeconds.  nil: the server's default
\(300).  Takes effect when the server starts (\[eglot-reconnect])."
  :type '(choice (const :tag "Server default (300)" nil) number))

(defcustom chatmd-warm-members nil
  "How many agents a workspace keeps running between turns.
Past it, the least recently used ends.  Sent as the initialization option
warmMembers.  nil: the server's default (8)."
  :type '(choice (const :tag "Server default (8)" nil) natnum))

(defcustom chatmd-warm-memory-mb nil
  "How much memory (MB, resident) the agents kept between turns may use together.
Past it, the least recently used end until the rest fit.  Sent as the
initialization option warmMemoryMB.  nil: the server's default (4096)."
  :type '(choice (const :tag "Server default (4096)" nil) number))

(defcustom chatmd-warm-headless nil
  "Whether headless claude members are kept running between turns too.
t: their `claude -p' reads the next turn's prompt.  Sent as the
initialization option warmHeadless.  nil: the server's default (not kept)."
  :type '(choice (const :tag "Server default (not kept)" nil)
                 (const :tag "Kept" t)
                 (const :tag "Not kept" :json-false)))

(defcustom chatmd-initialization-options nil
  "More initializationOptions for the server, as a plist (e.g. (:foo t))."
  :type 'plist)

(defcustom chatmd-eglot-ensure t
  "Whether `chatmd-mode' connects the buffer to the server itself.
It calls `eglot-ensure'.  Turn it off if you start eglot from your own hook."
  :type 'boolean)

(defcustom chatmd-turns-refresh-seconds 1.0
  "How often the mode line asks the server how far running turns are."
  :type 'number)

;; ---------------------------------------------------------------------------
;; Highlighting (the same constructs as syntaxes/chatmd.tmLanguage.json)

(defface chatmd-member-heading-face
  '((t :inherit font-lock-function-name-face :weight bold))
  "A message heading's `@member' (`## @reviewer')."
  :group 'chatmd)

(defface chatmd-me-heading-face
  '((t :inherit font-lock-keyword-face :weight bold))
  "The heading of your own messages (`## @me')."
  :group 'chatmd)

(defface chatmd-mention-face
  '((t :inherit font-lock-constant-face))
  "A mention of a member in a message (`@tester')."
  :group 'chatmd)

(defface chatmd-reference-face
  '((t :inherit font-lock-builtin-face :underline t))
  "A context reference (`#file:src/pay.rs:40-80', `#diff', `#diagnostics:x')."
  :group 'chatmd)

(defface chatmd-status-face
  '((t :inherit font-lock-comment-face))
  "A turn's status comment (`<!-- chatmd id=t1 ... -->')."
  :group 'chatmd)

(defface chatmd-status-value-face
  '((t :inherit font-lock-warning-face :weight normal))
  "The `status=...' of a status comment."
  :group 'chatmd)

(defface chatmd-permission-face
  '((t :inherit font-lock-warning-face))
  "A permission request an agent waits on (`> **Permission** ...')."
  :group 'chatmd)

(defface chatmd-permission-option-face
  '((t :inherit font-lock-string-face))
  "The options of a permission request (`- [ ] Allow')."
  :group 'chatmd)

(defface chatmd-marker-face
  '((t :inherit font-lock-keyword-face))
  "Markers: `/end', `SKIP', `[NEXT: @x]', `[DONE]'."
  :group 'chatmd)

(defconst chatmd--name-re "[A-Za-z0-9]\\(?:[A-Za-z0-9_.-]*[A-Za-z0-9]\\)?"
  "A member's name (as the server reads it).")

(defconst chatmd-font-lock-keywords
  `((,(concat "^ \\{0,3\\}##[ \t]+\\(@" chatmd--name-re "\\)") 1 'chatmd-member-heading-face t)
    ;; After the member's, so it wins on your own headings.
    ("^ \\{0,3\\}##[ \t]+\\(@me\\)\\_>" 1 'chatmd-me-heading-face t)
    ("^ \\{0,3\\}<!--[ \t]*chatmd\\(?:[ \t].*?\\)?-->" 0 'chatmd-status-face t)
    ("^ \\{0,3\\}<!--[ \t]*chatmd.*?[ \t]\\(status=[a-z]+\\)" 1 'chatmd-status-value-face t)
    ("^> \\*\\*Permission\\*\\*.*$" 0 'chatmd-permission-face t)
    ("^> - \\[[ xX]\\] .*$" 0 'chatmd-permission-option-face t)
    (,(concat "\\(?:^\\|[ \t([]\\)\\(@" chatmd--name-re "\\)") 1 'chatmd-mention-face)
    ("\\(?:^\\|[ \t(]\\)\\(#\\(?:file\\|diagnostics\\):[^ \t\n`]*[^ \t\n`.,;:)]\\|#diff\\_>\\)"
     1 'chatmd-reference-face t)
    ("^ \\{0,3\\}\\(/end\\|SKIP\\)[ \t]*$" 1 'chatmd-marker-face t)
    (,(concat "\\[NEXT:[ \t]*@?" chatmd--name-re "[ \t]*\\]\\|\\[DONE\\]") 0 'chatmd-marker-face t))
  "What `chatmd-mode' highlights on top of Markdown.")

;; ---------------------------------------------------------------------------
;; The mode

(defvar chatmd-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c C-c") #'chatmd-send)
    (define-key map (kbd "C-c C-a") #'chatmd-ask)
    (define-key map (kbd "C-c C-k") #'chatmd-cancel)
    (define-key map (kbd "C-c C-r") #'chatmd-answer)
    map)
  "Keys of `chatmd-mode' (on top of Markdown's).")

;; Markdown when markdown-mode is installed (its highlighting, outline and motion
;; commands), else plain text.
(defalias 'chatmd--parent-mode
  (if (fboundp 'markdown-mode) #'markdown-mode #'text-mode))

;;;###autoload
(define-derived-mode chatmd-mode chatmd--parent-mode "Chat"
  "Major mode for chats with a team of coding agents (*.chat.md).
\\{chatmd-mode-map}"
  (font-lock-add-keywords nil chatmd-font-lock-keywords 'append)
  (setq-local comment-start "<!-- ")
  (setq-local comment-end " -->")
  (chatmd--install-mode-line)
  (add-hook 'after-change-functions #'chatmd--schedule-flush t t)
  (when chatmd-eglot-ensure
    (eglot-ensure)))

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.chat\\.md\\'" . chatmd-mode))

;; ---------------------------------------------------------------------------
;; The server, through eglot

(defclass chatmd-eglot-server (eglot-lsp-server) ()
  :documentation "The chatmd language server (`chatmd lsp').")

(defun chatmd--agent-path ()
  (cond ((null chatmd-agent-path) nil)
        ((stringp chatmd-agent-path) (expand-file-name chatmd-agent-path))
        (t (mapconcat #'expand-file-name chatmd-agent-path path-separator))))

(defun chatmd--number-at-least-zero-p (value)
  ;; (= value value): not NaN; infinity is no number JSON can carry.
  (and (numberp value) (= value value) (>= value 0) (/= value 1.0e+INF)))

(defconst chatmd--warm-options
  `((chatmd-warm-idle-seconds :warmIdleSeconds ,#'chatmd--number-at-least-zero-p
                              "a number of seconds, 0 or more")
    (chatmd-warm-members :warmMembers ,#'natnump "a whole number, 0 or more")
    (chatmd-warm-memory-mb :warmMemoryMB ,#'chatmd--number-at-least-zero-p
                           "a number of MB, 0 or more")
    (chatmd-warm-headless :warmHeadless ,(lambda (v) (memq v '(t :json-false)))
                          "t or :json-false"))
  "The warm-session variables: the initialization option each is sent as,
what the server accepts, and what a wrong value is told it should be.")

(defun chatmd--warm-options ()
  "The warm variables that are set, as a plist of initialization options.
One of the wrong type is left out (the server's default applies) and said."
  (let (options)
    (pcase-dolist (`(,variable ,option ,valid ,expected) chatmd--warm-options)
      (let ((value (symbol-value variable)))
        (cond ((null value))
              ((funcall valid value)
               (setq options (plist-put options option value)))
              (t (display-warning
                  'chatmd
                  (format "%s is %S, not %s: not sent, the server's default applies"
                          variable value expected))))))
    options))

(defun chatmd--initialization-options (_server)
  (let ((options (copy-sequence chatmd-initialization-options))
        (path (chatmd--agent-path)))
    (when path
      (setq options (plist-put options :agentPath path)))
    (let ((warm (chatmd--warm-options)))
      (while warm
        (setq options (plist-put options (pop warm) (pop warm)))))
    (or options (make-hash-table))))

(defun chatmd--server-contact (&rest _)
  "How eglot starts the server: `chatmd-server-path' lsp."
  (list 'chatmd-eglot-server chatmd-server-path "lsp"
        :initializationOptions #'chatmd--initialization-options))

;; First in the list, so a chat is never given to a Markdown server (chatmd-mode is
;; derived from markdown-mode).
(add-to-list 'eglot-server-programs '((chatmd-mode :language-id "chatmd") . chatmd--server-contact))

;; eglot's variables for confirming server edits (renamed in Emacs 30).
(defvar eglot-confirm-server-initiated-edits)
(defvar eglot-confirm-server-edits)

(defun chatmd--visit-edited-files (edit)
  "Visits the files EDIT (a WorkspaceEdit) changes that no buffer visits yet.
An agent's write to a file that is not open comes as an edit of that file:
eglot asks before editing a file no buffer visits, whatever its confirm
setting; visited first, the write lands in a buffer of its own, unsaved,
as it does in any other buffer (a new file is made when you save it)."
  (mapc (lambda (change)
          (let ((uri (plist-get (plist-get change :textDocument) :uri)))
            (when (and uri (not (find-buffer-visiting (chatmd--path uri))))
              (find-file-noselect (chatmd--path uri)))))
        (plist-get edit :documentChanges)))

(defun chatmd--own-chats-on-disk (edit)
  "Takes the files of the unmodified chats EDIT changes as they are on disk now.
A chat opened while its turn still wrote the file (the new chat of
`chatmd-ask-about') can be newer on disk than its buffer until the server's
edit brings the buffer up to date.  eglot, finding the buffer for that edit,
would ask whether to reread the file, and the edit, and the answer behind
it, would wait for a yes or no (in batch mode it fails).  The disk's text is
the server's own there: its edit is what catches the buffer up.  A buffer
with your unsaved changes is left as it is, and Emacs asks as usual."
  (mapc (lambda (change)
          (let* ((uri (plist-get (plist-get change :textDocument) :uri))
                 (buffer (and uri (find-buffer-visiting (chatmd--path uri)))))
            (when (and buffer
                       (not (buffer-modified-p buffer))
                       (not (verify-visited-file-modtime buffer))
                       (with-current-buffer buffer (derived-mode-p 'chatmd-mode)))
              (with-current-buffer buffer (set-visited-file-modtime)))))
        (plist-get edit :documentChanges)))

(cl-defmethod eglot-handle-request :around
  ((_server chatmd-eglot-server) (_method (eql workspace/applyEdit)) &rest params)
  "Apply the server's edits (the answers streaming in) without asking or echoing.
Every streamed chunk is one edit: eglot would otherwise ask before each
and say \"Edit successful!\" after it.  An edit made for a version the
buffer has left (you typed meanwhile) is refused with `applied: false',
which the server re-bases and sends again; eglot answers it with an
error, which ends the turn."
  (chatmd--visit-edited-files (plist-get params :edit))
  (chatmd--own-chats-on-disk (plist-get params :edit))
  (let ((eglot-confirm-server-initiated-edits nil)
        (eglot-confirm-server-edits nil)
        (inhibit-message t))
    (prog1 (condition-case err
               (cl-call-next-method)
             ;; eglot signals `jsonrpc-error' for a stale version (older eglots a
             ;; plain `error'); it checks before changing anything.
             (error
              (list :applied :json-false
                    :failureReason (or (alist-get 'jsonrpc-error-message (cdr-safe err))
                                       (error-message-string err)))))
      ;; The server waits to see its edit come back in a didChange before it writes
      ;; the next chunk; eglot would send it only after `eglot-send-changes-idle-time'.
      (chatmd--flush-all))))

(cl-defmethod eglot-handle-request
  ((_server chatmd-eglot-server) (_method (eql chatmd/diagnostics)) &rest _)
  "`#diagnostics:' in a message: nothing to attach.
eglot keeps no LSP diagnostics of other files to give."
  (list :diagnostics []))

(cl-defmethod eglot-client-capabilities :around ((_server chatmd-eglot-server))
  "Declare `chatmd/readBuffer': agents read the buffers, unsaved changes included."
  ;; eglot's own list ends with an empty `:experimental', which a second key would not
  ;; replace: the value is put in place.
  (plist-put (cl-call-next-method) :experimental (list :chatmdReadBuffer t)))

(cl-defmethod eglot-handle-request
  ((_server chatmd-eglot-server) (_method (eql chatmd/readBuffer)) &key uri &allow-other-keys)
  "An agent reads the file of URI: its buffer's text when it is visited, else null."
  (let ((buffer (and uri (find-buffer-visiting (chatmd--path uri)))))
    ;; nil is JSON null here: jsonrpc encodes with `:null-object nil', and signals
    ;; for `:null' (the answer was never sent, and the server waited 5 s).
    (when buffer
      (list :text (with-current-buffer buffer
                    (save-restriction (widen) (buffer-substring-no-properties (point-min) (point-max))))))))

(defun chatmd--server (&optional noerror)
  "The chatmd server of the current buffer."
  (let ((server (eglot-current-server)))
    (cond ((and server (cl-typep server 'chatmd-eglot-server)) server)
          (noerror nil)
          (t (user-error "chatmd: no language server for this buffer (is `%s' on the path? M-x eglot starts it)"
                         chatmd-server-path)))))

(defun chatmd--path (uri)
  "The file of URI (eglot 1.16 renamed its function)."
  (funcall (if (fboundp 'eglot-uri-to-path) 'eglot-uri-to-path 'eglot--uri-to-path) uri))

(defun chatmd--uri ()
  "The URI eglot gives the current buffer's file."
  (plist-get (eglot--TextDocumentIdentifier) :uri))

(defun chatmd--flush-changes ()
  "Sends the server what was typed and not sent yet.
eglot itself waits for idle time."
  (when (and (bound-and-true-p eglot--managed-mode)
             (fboundp 'eglot--signal-textDocument/didChange))
    (eglot--signal-textDocument/didChange)))

(defvar-local chatmd--flush-timer nil)

(defconst chatmd--flush-delay 0.05
  "Seconds after a change before it goes to the server.
eglot sends changes after `eglot-send-changes-idle-time' of idleness,
which never comes while you type; the server needs your keys soon to
keep its answers out of your words.")

(defun chatmd--schedule-flush (&rest _)
  "After a change in a chat buffer: send it soon, idle or not."
  (when chatmd--flush-timer
    (cancel-timer chatmd--flush-timer))
  (let ((buffer (current-buffer)))
    (setq chatmd--flush-timer
          (run-at-time chatmd--flush-delay nil
                       (lambda ()
                         (when (buffer-live-p buffer)
                           (with-current-buffer buffer
                             (setq chatmd--flush-timer nil)
                             (chatmd--flush-changes))))))))

(defun chatmd--flush-all ()
  "Sends every chat buffer's unsent changes."
  (dolist (buffer (buffer-list))
    (with-current-buffer buffer
      (when (derived-mode-p 'chatmd-mode)
        (chatmd--flush-changes)))))

(defun chatmd--say (format-string &rest args)
  (message "%s" (concat "chatmd: " (apply #'format format-string args))))

(defun chatmd-execute (command arguments &optional on-result server)
  "Runs the server command COMMAND (e.g. \"chatmd.send\") with ARGUMENTS.
ARGUMENTS is a plist.  ON-RESULT is called with the result; an error is
shown in the echo area.  SERVER: the current buffer's by default."
  (let ((server (or server (chatmd--server))))
    (chatmd--flush-changes)
    (jsonrpc-async-request
     server :workspace/executeCommand
     (list :command command :arguments (vector arguments))
     :success-fn (lambda (result) (when on-result (funcall on-result result)))
     :error-fn (lambda (error)
                 (chatmd--say "%s" (or (plist-get error :message) error))))))

(defun chatmd--report-started (result)
  (let ((members (and (listp result) (plist-get result :members))))
    (cond ((and members (> (length members) 0))
           (chatmd--say "asked %s"
                        (mapconcat (lambda (m) (concat "@" m)) members ", ")))
          ((and (listp result) (eq (plist-get result :queued) t))
           (chatmd--say "queued: sent when the members answering now finish")))))

;; ---------------------------------------------------------------------------
;; Commands

(defun chatmd-send ()
  "Send: the members your last message calls for answer.
While members of the chat answer, the message is queued until they end."
  (interactive)
  (chatmd-execute "chatmd.send" (list :uri (chatmd--uri)) #'chatmd--report-started))

(defun chatmd--members ()
  "The members of this chat's team.
The server's completion after a heading's `@', else the front matter's
`members:' list."
  (or (ignore-errors (chatmd--members-from-server))
      (save-excursion
        (goto-char (point-min))
        (when (re-search-forward "^members:[ \t]*\\[\\([^]\n]*\\)\\]" nil t)
          (split-string (match-string 1) "[ ,]+" t)))))

(defun chatmd--members-from-server ()
  (save-excursion
    (goto-char (point-min))
    (when (re-search-forward "^ \\{0,3\\}##[ \t]+@" nil t)
      (let* ((position (eglot--pos-to-lsp-position (point)))
             (result (jsonrpc-request (chatmd--server) :textDocument/completion
                                      (list :textDocument (eglot--TextDocumentIdentifier)
                                            :position position)))
             (items (if (vectorp result) result (plist-get result :items))))
        (mapcar (lambda (item) (plist-get item :label)) items)))))

(defun chatmd--read-member (prompt &optional allow-empty)
  (let ((member (completing-read prompt (remove "me" (chatmd--members)) nil nil)))
    (setq member (string-remove-prefix "@" (string-trim member)))
    (if (and (string-empty-p member) (not allow-empty))
        (user-error "chatmd: ask whom?")
      member)))

(defun chatmd-ask (member)
  "Ask MEMBER to answer now."
  (interactive (list (chatmd--read-member "Ask member: ")))
  (chatmd-execute "chatmd.ask" (list :uri (chatmd--uri) :member member)
                  #'chatmd--report-started))

(defun chatmd-cancel (&optional member)
  "Stop the running turns of this chat (with a prefix argument: one MEMBER's)."
  (interactive
   (list (when current-prefix-arg
           (completing-read "Cancel the turn of: " (chatmd--running-members)))))
  (let ((arguments (list :uri (chatmd--uri))))
    (when (and member (not (string-empty-p member)))
      (setq arguments (plist-put arguments :member (string-remove-prefix "@" member))))
    (chatmd-execute "chatmd.cancel" arguments)))

(defconst chatmd--permission-re "^> \\*\\*Permission\\*\\* `\\([^`]+\\)`\\(?: — \\(.*\\)\\)?$"
  "A permission request that waits for an answer.
An answered one loses the backquotes around its id.")

(defun chatmd--permission-at-point ()
  "The waiting permission request at or above point, else the last one.
Returns (ID QUESTION OPTIONS)."
  (save-excursion
    (let ((found
           (or (progn (end-of-line 2)
                      (and (re-search-backward chatmd--permission-re nil t)
                           (save-excursion
                             (not (re-search-forward "^## " (line-end-position 3) t)))
                           (point)))
               (progn (goto-char (point-max))
                      (and (re-search-backward chatmd--permission-re nil t) (point))))))
      (unless found
        (user-error "chatmd: no permission request waits in this chat"))
      (goto-char found)
      (looking-at chatmd--permission-re)
      (let ((id (match-string-no-properties 1))
            (question (match-string-no-properties 2))
            options)
        (forward-line 1)
        (when (looking-at "^> \\(- \\[[ xX]\\] .*\\)$")
          (dolist (option (split-string (match-string-no-properties 1) " · " t))
            (when (string-match "^- \\[[ xX]\\] \\(.*\\)$" option)
              (push (match-string 1 option) options))))
        (list id question (nreverse options))))))

(defun chatmd-answer (request option)
  "Answer the permission REQUEST (e.g. \"t1-p1\") with OPTION (e.g. \"Allow\").
Interactively: the request at point, else the last one that waits."
  (interactive
   (pcase-let ((`(,id ,question ,options) (chatmd--permission-at-point)))
     (list id (completing-read (format "Answer %s%s: " id (if question (concat " (" question ")") ""))
                               options nil t))))
  (chatmd-execute "chatmd.answer" (list :uri (chatmd--uri) :request request :option option)))

(defun chatmd--server-for-file (file)
  "A running chatmd server whose project holds FILE, else any running one."
  (let (any exact)
    (dolist (server (and (boundp 'eglot--servers-by-project)
                         (apply #'append (hash-table-values eglot--servers-by-project))))
      (when (and (cl-typep server 'chatmd-eglot-server) (jsonrpc-running-p server))
        (setq any (or any server))
        (when (file-in-directory-p file (project-root (eglot--project server)))
          (setq exact (or exact server)))))
    (or exact any)))

(defun chatmd--start-server ()
  "Starts a chatmd server for the current buffer's project.
The buffer is no chat: the server manages the chats of the project."
  (let ((contact (cdr (chatmd--server-contact))))
    (eglot '(chatmd-mode) (eglot--current-project) 'chatmd-eglot-server contact "chatmd")
    (or (chatmd--server-for-file buffer-file-name)
        (user-error "chatmd: the language server did not start (is `%s' on the path?)"
                    chatmd-server-path))))

;;;###autoload
(defun chatmd-ask-about (begin end &optional member new-chat)
  "Ask the team about the lines from BEGIN to END of this file.
The server adds them, fenced and with a `#file:' reference, as a new
message to the workspace's most recent chat and sends it (queued while
its members answer).  MEMBER: whom to ask (empty: the chat's own
routing).  NEW-CHAT (prefix argument): a new chat."
  (interactive
   (if (use-region-p)
       (list (region-beginning) (region-end)
             (chatmd--read-member "Ask the team about the region; whom (empty: routing)? " t)
             current-prefix-arg)
     (user-error "chatmd: select the lines to ask about first")))
  (unless buffer-file-name
    (user-error "chatmd: this buffer visits no file"))
  (let* ((server (or (chatmd--server t) (chatmd--server-for-file buffer-file-name)
                     (chatmd--start-server)))
         (start-line (save-excursion (goto-char begin) (line-beginning-position)))
         (end-line (save-excursion
                     (goto-char end)
                     ;; A region that ends at the start of a line does not take that line.
                     (if (and (bolp) (> end begin)) (point) (line-beginning-position 2))))
         (arguments (list :uri (chatmd--uri)
                          :range (list :start (eglot--pos-to-lsp-position start-line)
                                       :end (eglot--pos-to-lsp-position end-line))
                          :text (buffer-substring-no-properties start-line end-line))))
    (when (and member (not (string-empty-p member)))
      (setq arguments (plist-put arguments :member member)))
    (when new-chat
      (setq arguments (plist-put arguments :newChat t)))
    (deactivate-mark)
    (chatmd-execute
     "chatmd.askAbout" arguments
     (lambda (result)
       (let ((chat (and (listp result) (plist-get result :chat))))
         (when chat
           (let ((file (file-relative-name (chatmd--path chat))))
             (if (plist-get result :queued)
                 (chatmd--say "queued in %s: sent when its members finish answering" file)
               (chatmd--report-started result)
               (when new-chat
                 (display-buffer (find-file-noselect (chatmd--path chat)))))))))
     server)))

;; ---------------------------------------------------------------------------
;; The mode line: running turns and the chats that wait for you

(defvar chatmd--turns nil
  "The running turns, as the server last said: a list of plists (:uri :member
:status :elapsedMs :bytes).")

(defvar chatmd--waiting (make-hash-table :test #'equal)
  "The chats that wait for you (a `waiting-...' diagnostic of chatmd), by URI.")

(defvar chatmd--turns-timer nil)

(defun chatmd--running-members ()
  (let ((uri (chatmd--uri)))
    (delete-dups (cl-loop for turn in chatmd--turns
                          when (equal (plist-get turn :uri) uri)
                          collect (plist-get turn :member)))))

(defun chatmd-waiting-count ()
  "How many chats wait for you.
A permission or plan request, a failed turn, a question..."
  (hash-table-count chatmd--waiting))

(defun chatmd--size (bytes)
  (if (< bytes 1024) (format "%d B" bytes) (format "%.1f KB" (/ bytes 1024.0))))

(defun chatmd-mode-line-text ()
  "The mode line's chatmd part.
This chat's running turns and how many chats wait, e.g.
\"@reviewer 3.2s · 1.2 KB · 1 chat waits\"; empty when nothing runs or waits."
  (let* ((uri (and buffer-file-name (derived-mode-p 'chatmd-mode) (chatmd--uri)))
         (parts (cl-loop for turn in chatmd--turns
                         when (equal (plist-get turn :uri) uri)
                         collect (format "@%s %.1fs · %s" (plist-get turn :member)
                                         (/ (or (plist-get turn :elapsedMs) 0) 1000.0)
                                         (chatmd--size (or (plist-get turn :bytes) 0)))))
         (waiting (chatmd-waiting-count)))
    (when (> waiting 0)
      (setq parts (append parts (list (if (= waiting 1) "1 chat waits"
                                        (format "%d chats wait" waiting))))))
    (string-join parts " · ")))

(defvar chatmd-mode-line
  '(:eval (let ((text (chatmd-mode-line-text)))
            (unless (string-empty-p text)
              (concat " [" (propertize text 'face 'chatmd-status-value-face) "]"))))
  "The mode line construct `chatmd-mode' adds to `global-mode-string'.")
(put 'chatmd-mode-line 'risky-local-variable t)

(defun chatmd--install-mode-line ()
  (unless (memq 'chatmd-mode-line global-mode-string)
    (setq global-mode-string (append (or global-mode-string '("")) '(chatmd-mode-line)))))

(defun chatmd--turns-changed (turns)
  (setq chatmd--turns (append turns nil))
  (if (and chatmd--turns (not chatmd--turns-timer))
      (setq chatmd--turns-timer
            (run-at-time chatmd-turns-refresh-seconds chatmd-turns-refresh-seconds
                         #'chatmd--refresh-turns))
    (when (and (null chatmd--turns) chatmd--turns-timer)
      (cancel-timer chatmd--turns-timer)
      (setq chatmd--turns-timer nil)))
  (force-mode-line-update t))

(defun chatmd--refresh-turns ()
  "Asks a running server how far the turns are, for the mode line."
  (let ((server (chatmd--server-for-file default-directory)))
    (if (not server)
        (chatmd--turns-changed nil)
      (jsonrpc-async-request server :chatmd/turns (make-hash-table)
                             :success-fn (lambda (result)
                                           (chatmd--turns-changed (plist-get result :turns)))
                             :error-fn #'ignore))))

(cl-defmethod eglot-handle-notification
  ((_server chatmd-eglot-server) (_method (eql chatmd/turnsChanged)) &key turns &allow-other-keys)
  "The running turns changed: one started or ended."
  (chatmd--turns-changed turns))

(cl-defmethod eglot-handle-notification :before
  ((_server chatmd-eglot-server) (_method (eql textDocument/publishDiagnostics))
   &key uri diagnostics &allow-other-keys)
  "Counts the chats with a `waiting-...' diagnostic (closed chats too)."
  (if (cl-some (lambda (d)
                 (let ((code (plist-get d :code)))
                   (and (equal (plist-get d :source) "chatmd")
                        (stringp code) (string-prefix-p "waiting-" code))))
               diagnostics)
      (puthash uri t chatmd--waiting)
    (remhash uri chatmd--waiting))
  (force-mode-line-update t))

(provide 'chatmd)
;;; chatmd.el ends here
