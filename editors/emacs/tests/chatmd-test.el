;;; chatmd-test.el --- End-to-end tests of chatmd.el in real Emacs  -*- lexical-binding: t; -*-

;;; Commentary:

;; Run by run.sh, one Emacs (`emacs --batch') per test: the real `chatmd lsp' server
;; (CHATMD_BIN) through eglot, the project's fake agent (FAKE_AGENT_BIN) as claude,
;; codex and gemini.  Keys go through `execute-kbd-macro', as a keyboard's would
;; through the command loop (keymaps, minibuffer prompts).  Every wait is a condition
;; polled with a timeout while Emacs reads the server's output (`accept-process-output'),
;; never a sleep.  Texts are compared whole, byte for byte (status comments' times and
;; session ids normalized).

;;; Code:

(require 'ert)
(require 'cl-lib)
(require 'subr-x)

(defconst chatmd-test--here (file-name-directory (or load-file-name buffer-file-name)))
(defconst chatmd-test--repo (expand-file-name "../../.." chatmd-test--here))
(add-to-list 'load-path (expand-file-name ".." chatmd-test--here))
(require 'chatmd)

(defvar chatmd-test--timeout
  (string-to-number (or (getenv "CHATMD_TEST_TIMEOUT") "20"))
  "Seconds a wait may take before the test fails.")

(defvar chatmd-test--messages nil "What the package said in the echo area.")

(defun chatmd-test--need (var)
  (let ((value (getenv var)))
    (when (or (null value) (string-empty-p value))
      (error "%s is not set (run.sh sets it)" var))
    value))

(defun chatmd-test--workspace ()
  "A scratch copy of the editor demo (tests/fixtures/editor-demo) and a bin folder
with the fake agent as claude, codex and gemini; chatmd.el set up to use both."
  (let* ((dir (make-temp-file "chatmd-emacs-" t))
         (demo (expand-file-name "demo" dir))
         (bin (expand-file-name "bin" dir))
         (fake (chatmd-test--need "FAKE_AGENT_BIN")))
    (copy-directory (expand-file-name "tests/fixtures/editor-demo" chatmd-test--repo) demo nil nil t)
    (make-directory bin)
    (dolist (name '("claude" "codex" "gemini"))
      (make-symbolic-link fake (expand-file-name name bin)))
    ;; The fake agent refuses to run as root in a sandbox unless this is empty.
    (setenv "IS_SANDBOX" "")
    (setq chatmd-server-path (chatmd-test--need "CHATMD_BIN")
          chatmd-agent-path bin)
    (list :dir dir :demo demo :bin bin :chat (expand-file-name "release-review.chat.md" demo))))

(defun chatmd-test--dump ()
  (format "--- messages\n%s\n--- events (last 4000 chars)\n%s"
          (string-join (reverse chatmd-test--messages) "\n")
          (let ((events (cl-find-if (lambda (b) (string-match-p "EGLOT.*events" (buffer-name b)))
                                    (buffer-list))))
            (if events
                (with-current-buffer events
                  (buffer-substring-no-properties (max (point-min) (- (point-max) 4000)) (point-max)))
              "(none)"))))

(defun chatmd-test--wait (what predicate &optional timeout dump)
  "Reads the server's output until PREDICATE holds; fails with WHAT after TIMEOUT s."
  (let ((deadline (+ (float-time) (or timeout chatmd-test--timeout))))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.02))
    (unless (funcall predicate)
      ;; Printed as it is (ERT would show the text as one quoted string).
      (message "timed out waiting for %s\n%s%s" what
               (if dump (concat (funcall dump) "\n") "")
               (chatmd-test--dump))
      (ert-fail (format "timed out waiting for %s" what)))))

(defun chatmd-test--text (&optional buffer)
  (with-current-buffer (or buffer (current-buffer))
    (buffer-substring-no-properties (point-min) (point-max))))

(defun chatmd-test--normalize (text)
  ;; `held=' (what a resumed session holds) is checked by the Rust tests.
  (setq text (replace-regexp-in-string " held=[^ \n]+" "" text t t))
  (dolist (field '("started" "session" "took") text)
    (setq text (replace-regexp-in-string
                (concat field "=[^ \n]+")
                (concat field "=<" (upcase (substring field 0 1)) ">") text t t))))

(defun chatmd-test--shape (text)
  "TEXT with every status comment as `<!-- C -->' (they carry host, pid and times)."
  (replace-regexp-in-string "<!-- chatmd [^\n]*-->" "<!-- C -->" text t t))

(defun chatmd-test--mode-line ()
  "What the mode line shows of chatmd, e.g. \" [1 chat waits]\".
`format-mode-line' gives nothing in batch mode (no frame to draw), so this checks
that the construct is in `global-mode-string' and evaluates it."
  (or (and (memq 'chatmd-mode-line global-mode-string)
           (eval (cadr chatmd-mode-line) t))
      ""))

(defun chatmd-test--keys (keys)
  "Types KEYS (`kbd' notation) in the selected window, through the command loop."
  (execute-kbd-macro (kbd keys)))

(defun chatmd-test--open (file)
  "Visits FILE in the selected window as `C-x C-f' does, and waits for eglot."
  (find-file file)
  ;; eglot-ensure connects when the command that opened the file ends (post-command-hook);
  ;; a batch Emacs runs no command loop, so end the "command" here.
  (run-hooks 'post-command-hook)
  (chatmd-test--wait (format "eglot to manage %s" file)
                     (lambda () (and (bound-and-true-p eglot--managed-mode)
                                     (chatmd--server t))))
  (current-buffer))

(defun chatmd-test--file (file)
  (with-temp-buffer
    (insert-file-contents-literally file)
    (buffer-string)))

(defun chatmd-test--save-events ()
  "Writes eglot's events buffer (every message to and from the server) to the file
CHATMD_TEST_EVENTS names, if set: what the observations in the README come from."
  (let ((file (getenv "CHATMD_TEST_EVENTS"))
        (events (cl-find-if (lambda (b) (string-match-p "EGLOT.*events" (buffer-name b)))
                            (buffer-list))))
    (when (and file (not (string-empty-p file)) events)
      (with-current-buffer events
        (write-region (point-min) (point-max) file nil 'quiet)))))

(defun chatmd-test--setup ()
  (setq chatmd-test--messages nil)
  (add-hook 'kill-emacs-hook #'chatmd-test--save-events)
  ;; The server's last words may come while Emacs exits: not handled then.
  (add-hook 'kill-emacs-hook
            (lambda () (dolist (process (process-list)) (set-process-filter process #'ignore))))
  (advice-add 'chatmd--say :after
              (lambda (&rest args) (push (apply #'format args) chatmd-test--messages))
              '((name . chatmd-test)))
  ;; Nothing may ask yes or no: a question would block a real user's typing.
  (dolist (ask '(y-or-n-p yes-or-no-p))
    (advice-add ask :override
                (lambda (prompt &rest _) (ert-fail (format "asked: %s" prompt)))
                '((name . chatmd-test)))))

(defvar chatmd-test--typed nil "Whether the typist typed its last key.")

(defun chatmd-test--type (keys gap)
  "Types KEYS (a list of `kbd' strings) one by one, GAP seconds apart, from timers:
the test goes on reading the server's output (and eglot applying its edits) between
keystrokes, as Emacs does for a user.  Sets `chatmd-test--typed' after the last."
  (setq chatmd-test--typed nil)
  (let ((window (selected-window)))
    (cl-labels ((step (rest)
                  (if (null rest)
                      (setq chatmd-test--typed t)
                    (with-selected-window window
                      (execute-kbd-macro (kbd (car rest))))
                    (run-at-time gap nil #'step (cdr rest)))))
      (run-at-time gap nil #'step keys))))

(defun chatmd-test--key-list (text)
  "TEXT as the keys that type it (a newline is RET, a space SPC)."
  (mapcar (lambda (c) (pcase c (?\n "RET") (?\s "SPC") (_ (string c)))) text))

;; ---------------------------------------------------------------------------

(ert-deftest chatmd-test-mode ()
  "A *.chat.md file opens in chatmd-mode (on markdown-mode), with the chat highlighted,
the keys bound, and the server connected.  (The waiting count: `chatmd-test-permission'.)"
  (chatmd-test--setup)
  (let* ((ws (chatmd-test--workspace))
         (chat (expand-file-name "look.chat.md" (plist-get ws :demo))))
    (with-temp-file chat
      (insert "## @me\n@reviewer see #file:src/pay.rs:2-4 and #diff.\n\n"
              "## @reviewer\n<!-- chatmd id=t1 agent=claude status=done -->\n"
              "> **Permission** `t1-p1` — reviewer wants to run `ls` (execute)\n"
              "> - [ ] Allow · - [ ] Reject\n"))
    (chatmd-test--open chat)
    (should (eq major-mode 'chatmd-mode))
    (should (derived-mode-p 'markdown-mode))
    (font-lock-ensure)
    (cl-flet ((face-at (needle &optional offset)
                (goto-char (point-min))
                (search-forward needle)
                (get-text-property (+ (match-beginning 0) (or offset 0)) 'face)))
      (should (memq 'chatmd-me-heading-face (ensure-list (face-at "@me"))))
      (should (memq 'chatmd-mention-face (ensure-list (face-at "@reviewer see"))))
      (should (memq 'chatmd-reference-face (ensure-list (face-at "#file:src/pay.rs:2-4"))))
      (should (memq 'chatmd-reference-face (ensure-list (face-at "#diff"))))
      (should (memq 'chatmd-member-heading-face (ensure-list (face-at "@reviewer\n"))))
      (should (memq 'chatmd-status-face (ensure-list (face-at "<!-- chatmd"))))
      (should (memq 'chatmd-status-value-face (ensure-list (face-at "status=done"))))
      (should (memq 'chatmd-permission-face (ensure-list (face-at "> **Permission**"))))
      (should (memq 'chatmd-permission-option-face (ensure-list (face-at "> - [ ] Allow")))))
    (should (eq (key-binding (kbd "C-c C-c")) 'chatmd-send))
    (should (eq (key-binding (kbd "C-c C-a")) 'chatmd-ask))
    (should (eq (key-binding (kbd "C-c C-k")) 'chatmd-cancel))
    (should (eq (key-binding (kbd "C-c C-r")) 'chatmd-answer))
    ;; C-c C-r away from any request offers the last one that waits.
    (goto-char (point-min))
    (should (equal (chatmd--permission-at-point)
                   '("t1-p1" "reviewer wants to run `ls` (execute)" ("Allow" "Reject"))))
    ;; Markdown's own keys that the chat keys leave alone.
    (should (eq (key-binding (kbd "C-c C-n")) 'markdown-outline-next))
    (should (eq (key-binding (kbd "C-c C-p")) 'markdown-outline-previous))))

(ert-deftest chatmd-test-send-then-type ()
  "C-c C-c in the demo chat: @reviewer and @tester answer, in chunks 0.25 s apart;
while they stream, the user goes to the end (M->) and types the next message key by
key, then C-c C-c again (queued until the answers end).  The typed message stays whole
after the answers, each answer whole in its section; then @tester answers the queued
message.  The whole buffer and the saved file are checked byte for byte."
  (chatmd-test--setup)
  (let* ((ws (chatmd-test--workspace))
         (answer "Looks good to me. The refund is converted first, then rounded half-even, and capped."))
    (setenv "FAKE_AGENT_TEXT" answer)
    ;; 24 chunks (one a word: 21) 0.4 s apart: about 8 s of streaming; the typing
    ;; (50 keys 50 ms apart) took up to 7 s on a busy machine.
    (setenv "FAKE_AGENT_CHUNKS" "24")
    (setenv "FAKE_AGENT_DELAY_MS" "400")
    (let* ((buffer (chatmd-test--open (plist-get ws :chat)))
           (original (chatmd-test--text))
           (typed "\n\n## @me\n@tester and the rounding of partial refunds?")
           (seen-mode-line nil))
      (chatmd-test--keys "C-c C-c")
      (chatmd-test--wait "@reviewer to stream"
                         (lambda () (string-match-p "status=streaming" (chatmd-test--text buffer))))
      (chatmd-test--keys "M->")
      (message "typing from %.2f" (float-time))
      (chatmd-test--type (chatmd-test--key-list typed) 0.05)
      (chatmd-test--wait "the typing to end, the mode line naming both members"
                         (lambda ()
                           (let ((line (chatmd-test--mode-line)))
                             (when (and (string-match-p "@reviewer [0-9.]+s · " line)
                                        (string-match-p "@tester [0-9.]+s · " line))
                               (setq seen-mode-line t)))
                           chatmd-test--typed))
      (message "typed at %.2f" (float-time))
      (should seen-mode-line)
      ;; The keys went in while the answers streamed (else this tests nothing).
      (should (string-match-p "status=streaming" (chatmd-test--text buffer)))
      (chatmd-test--keys "C-c C-c")
      (let ((expected
             (concat original
                     "\n## @reviewer\n"
                     "<!-- chatmd id=t1 agent=claude status=done seen=0:e6572e started=<S> model=claude-opus-4-8 session=<S> took=<T> stop=end_turn exit=0 tokens=10/21 -->\n"
                     answer "\n"
                     "\n## @tester\n"
                     "<!-- chatmd id=t2 agent=codex status=done seen=0:e6572e started=<S> session=<S> took=<T> exit=0 tokens=10/21 -->\n"
                     answer "\n"
                     typed "\n"
                     "\n## @tester\n"
                     ;; seen=+3:…: the tester's session went on and was given exactly
                     ;; the typed message (the hash of its author and text).
                     "<!-- chatmd id=t3 agent=codex status=done seen=+3:18e7b7 started=<S> session=<S> took=<T> exit=0 session-tokens=10/21 -->\n"
                     answer "\n"
                     "\n## @me\n")))
        (chatmd-test--wait "both answers, the typed message, the queued answer"
                           (lambda () (equal (chatmd-test--normalize (chatmd-test--text buffer)) expected))
                           30
                           (lambda () (format "--- expected\n%s--- buffer (normalized)\n%s"
                                              expected (chatmd-test--normalize (chatmd-test--text buffer)))))
        (should (equal '("queued: sent when the members answering now finish"
                          "asked @reviewer, @tester")
                        chatmd-test--messages))
        (chatmd-test--keys "C-x C-s")
        (should (equal (chatmd-test--normalize (chatmd-test--file (plist-get ws :chat))) expected))
        (chatmd-test--wait "the mode line to empty" (lambda () (equal (chatmd-mode-line-text) "")))))))

(ert-deftest chatmd-test-permission ()
  "An ACP member asks to run a command: the request shows in its section and the mode
line says 1 chat waits; C-c C-r on the request, `Allow': the agent runs it and its
answer streams on below the record."
  (chatmd-test--setup)
  (let* ((ws (chatmd-test--workspace))
         (answer "The file notes.txt is there now. It is empty, as asked; the rest of this answer streams on word by word.")
         (demo (plist-get ws :demo))
         (chat (expand-file-name "ask.chat.md" demo))
         (ask "## @me\n@writer MOCK-MODE=toolwrite WRITE=notes.txt please create the file.\n"))
    (setenv "FAKE_AGENT_TEXT" answer)
    (setenv "FAKE_AGENT_DELAY_MS" "80")
    (with-temp-file (expand-file-name "chatmd.toml" demo)
      (insert "[members.writer]\nagent = \"acp\"\npreset = \"gemini\"\n"))
    (with-temp-file chat (insert ask))
    (let* ((buffer (chatmd-test--open chat))
           (waiting (concat ask "\n## @writer\n<!-- C -->\nI'll run a command.\n\n"
                            "> - Execute: touch notes.txt — pending\n\n"
                            "> **Permission** `t1-p1` — writer wants to run `touch notes.txt` (execute)\n"
                            "> - [ ] Allow for this session · - [ ] Allow · - [ ] Reject\n\n")))
      (chatmd-test--keys "C-c C-c")
      (chatmd-test--wait "the permission request"
                         (lambda () (let ((now (chatmd-test--shape (chatmd-test--text buffer))))
                                      ;; The server sometimes leaves one more blank line
                                      ;; while the request waits (the Neovim test says why).
                                      (member now (list waiting (concat waiting "\n")))))
                         nil
                         (lambda () (format "--- expected\n%s--- buffer\n%s" waiting (chatmd-test--text buffer))))
      (should (string-match-p "status=waiting" (chatmd-test--text buffer)))
      (should-not (file-exists-p (expand-file-name "writer/notes.txt" demo)))
      (chatmd-test--wait "the mode line to say 1 chat waits"
                         (lambda () (string-match-p "1 chat waits" (chatmd-test--mode-line))))
      (goto-char (point-min))
      (search-forward "**Permission**")
      (chatmd-test--keys "C-c C-r Allow RET")
      (let ((expected
             (concat ask "\n## @writer\n"
                     "<!-- chatmd id=t1 agent=acp status=done started=<S> model=auto session=<S> took=<T> stop=end_turn exit=0 tokens=11865/22 -->\n"
                     "I'll run a command.\n\n"
                     "> - Execute: touch notes.txt — completed\n\n"
                     "> **Permission** t1-p1 — allowed once (\"Allow\")\n\n"
                     answer "\n\n## @me\n")))
        (chatmd-test--wait "the whole answer"
                           (lambda () (equal (chatmd-test--normalize (chatmd-test--text buffer)) expected))
                           nil
                           (lambda () (format "--- expected\n%s--- buffer (normalized)\n%s"
                                              expected (chatmd-test--normalize (chatmd-test--text buffer))))))
      (should (file-exists-p (expand-file-name "writer/notes.txt" demo)))
      (chatmd-test--wait "the mode line to stop counting the chat"
                         (lambda () (not (string-match-p "wait" (chatmd-test--mode-line))))))))

(ert-deftest chatmd-test-ask-about ()
  "In a source file of the workspace, with the demo chat open: select two lines,
M-x chatmd-ask-about, whom: reviewer.  The lines go into the chat as a new message
with a #file: reference, and @reviewer answers it."
  (chatmd-test--setup)
  (let* ((ws (chatmd-test--workspace))
         (source (expand-file-name "calc.rs" (plist-get ws :demo))))
    (setenv "FAKE_AGENT_TEXT" "It adds two numbers.")
    (with-temp-file source (insert "fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n"))
    (let* ((chat (chatmd-test--open (plist-get ws :chat)))
           (original (chatmd-test--text)))
      (find-file source)
      (transient-mark-mode 1)
      (goto-char (point-min))
      (chatmd-test--keys "C-SPC C-n C-n M-x chatmd-ask-about RET reviewer RET")
      (let ((expected
             (concat original "\n## @me\n@reviewer about #file:calc.rs:1-2:\n\n"
                     "```rust\nfn add(a: u32, b: u32) -> u32 {\n    a + b\n```\n"
                     "\n## @reviewer\n"
                     "<!-- chatmd id=t1 agent=claude status=done seen=0:e6572e.5a36fd started=<S> model=claude-opus-4-8 session=<S> took=<T> stop=end_turn exit=0 tokens=10/4 -->\n"
                     "It adds two numbers.\n\n## @me\n")))
        (chatmd-test--wait "the question and the answer in the chat"
                           (lambda () (equal (chatmd-test--normalize (chatmd-test--text chat)) expected))
                           nil
                           (lambda () (format "--- expected\n%s--- chat (normalized)\n%s"
                                              expected (chatmd-test--normalize (chatmd-test--text chat))))))
      (should (member "asked @reviewer" chatmd-test--messages)))))

(ert-deftest chatmd-test-ask-about-closed-chat ()
  "M-x chatmd-ask-about from a source file when no chat is open: chatmd.el starts the
server for the file's project; the message and the answer go into the chat on disk."
  (chatmd-test--setup)
  (let* ((ws (chatmd-test--workspace))
         (source (expand-file-name "calc.rs" (plist-get ws :demo)))
         (original (chatmd-test--file (plist-get ws :chat))))
    (setenv "FAKE_AGENT_TEXT" "It adds two numbers.")
    (with-temp-file source (insert "fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n"))
    (find-file source)
    (transient-mark-mode 1)
    (goto-char (point-min))
    (chatmd-test--keys "C-SPC C-n C-n M-x chatmd-ask-about RET reviewer RET")
    (let ((expected
           (concat original "\n## @me\n@reviewer about #file:calc.rs:1-2:\n\n"
                   "```rust\nfn add(a: u32, b: u32) -> u32 {\n    a + b\n```\n"
                   "\n## @reviewer\n"
                   "<!-- chatmd id=t1 agent=claude status=done seen=0:e6572e.5a36fd started=<S> model=claude-opus-4-8 session=<S> took=<T> stop=end_turn exit=0 tokens=10/4 -->\n"
                   "It adds two numbers.\n\n## @me\n")))
      (chatmd-test--wait "the question and the answer in the chat file"
                         (lambda () (equal (chatmd-test--normalize (chatmd-test--file (plist-get ws :chat)))
                                           expected))
                         nil
                         (lambda () (format "--- expected\n%s--- file (normalized)\n%s" expected
                                            (chatmd-test--normalize (chatmd-test--file (plist-get ws :chat)))))))))

(ert-deftest chatmd-test-ask-about-new-chat ()
  "C-u M-x chatmd-ask-about: the question goes into a new chat beside the most recent
one, shown in another window, and @reviewer answers there."
  (chatmd-test--setup)
  (let* ((ws (chatmd-test--workspace))
         (source (expand-file-name "calc.rs" (plist-get ws :demo)))
         (original (chatmd-test--file (plist-get ws :chat))))
    (setenv "FAKE_AGENT_TEXT" "It adds two numbers.")
    (with-temp-file source (insert "fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n"))
    (find-file source)
    (transient-mark-mode 1)
    (goto-char (point-min))
    (chatmd-test--keys "C-SPC C-n C-n C-u M-x chatmd-ask-about RET reviewer RET")
    (let (chat)
      (chatmd-test--wait "a new chat shown in a window"
                         (lambda ()
                           (setq chat (cl-find-if (lambda (b) (string-suffix-p ".chat.md" (buffer-name b)))
                                                  (mapcar #'window-buffer (window-list))))))
      (chatmd-test--wait "the answer in the new chat"
                         (lambda () (string-suffix-p "It adds two numbers.\n\n## @me\n"
                                                     (chatmd-test--text chat)))
                         nil
                         (lambda () (format "--- %s\n%s" (buffer-file-name chat) (chatmd-test--text chat))))
      (message "new chat %s:\n%s" (buffer-file-name chat) (chatmd-test--text chat))
      (should (string-match-p "^@reviewer about #file:calc.rs:1-2:$" (chatmd-test--text chat)))
      (should (equal original (chatmd-test--file (plist-get ws :chat)))))))

(ert-deftest chatmd-test-chat-newer-on-disk ()
  "A chat the server wrote on disk after its buffer read it (a new chat opened
while its first turn streams): the server's edit finds the buffer without
asking whether to reread the file.  A buffer with unsaved changes still asks."
  (chatmd-test--setup)
  (let* ((dir (make-temp-file "chatmd-disk" t))
         (file (expand-file-name "new.chat.md" dir))
         (edit (list :documentChanges
                     (vector (list :textDocument (list :uri (concat "file://" file))))))
         (chatmd-eglot-ensure nil))
    (with-temp-file file (insert "## @me\nhi\n"))
    (let ((buffer (find-file-noselect file)))
      (should (eq (buffer-local-value 'major-mode buffer) 'chatmd-mode))
      ;; The turn writes on: the file is newer than what the buffer read.
      (with-temp-file file (insert "## @me\nhi\n\n## @reviewer\nIt adds\n"))
      (set-file-times file (time-add (current-time) 2))
      (should-not (verify-visited-file-modtime buffer))
      (chatmd--own-chats-on-disk edit)
      (should (verify-visited-file-modtime buffer))
      ;; What eglot does with each edit's file: no question, the same buffer.
      (should (eq (find-file-noselect file) buffer))
      ;; Unsaved changes of the user's: left for Emacs to ask about.
      (with-current-buffer buffer (insert "typed "))
      (set-file-times file (time-add (current-time) 4))
      (chatmd--own-chats-on-disk edit)
      (should-not (verify-visited-file-modtime buffer))
      (with-current-buffer buffer (set-buffer-modified-p nil))
      (kill-buffer buffer))
    (delete-directory dir t)))

(ert-deftest chatmd-test-ask ()
  "C-c C-a tester: only @tester answers, though the message mentions @reviewer too."
  (chatmd-test--setup)
  (let ((ws (chatmd-test--workspace)))
    (setenv "FAKE_AGENT_TEXT" "Property test written.")
    (let* ((buffer (chatmd-test--open (plist-get ws :chat)))
           (original (chatmd-test--text))
           (expected
            (concat original "\n## @tester\n"
                    "<!-- chatmd id=t1 agent=codex status=done seen=0:e6572e started=<S> session=<S> took=<T> exit=0 tokens=10/3 -->\n"
                    "Property test written.\n\n## @me\n")))
      (chatmd-test--keys "C-c C-a tester RET")
      (chatmd-test--wait "@tester's answer"
                         (lambda () (equal (chatmd-test--normalize (chatmd-test--text buffer)) expected))
                         nil
                         (lambda () (format "--- expected\n%s--- buffer (normalized)\n%s"
                                            expected (chatmd-test--normalize (chatmd-test--text buffer)))))
      (should (equal '("asked @tester") chatmd-test--messages)))))

(ert-deftest chatmd-test-cancel ()
  "C-c C-c: @tester answers, @reviewer hangs after \"one two \" (the fake claude stops
after 5 lines; the fake codex prints its answer in fewer); the mode line names it.
C-u C-c C-k reviewer stops it.  C-c C-a reviewer: it hangs again; C-c C-k stops every
turn of the chat.  The partial texts stay; the status comments say cancelled."
  (chatmd-test--setup)
  (let ((ws (chatmd-test--workspace)))
    (setenv "FAKE_AGENT_TEXT" "one two three four five")
    (setenv "FAKE_AGENT_HANG_AFTER" "5")
    (let* ((buffer (chatmd-test--open (plist-get ws :chat)))
           (original (chatmd-test--text))
           (first-cancel
            (concat original "\n## @reviewer\n"
                    "<!-- chatmd id=t1 agent=claude status=cancelled seen=0:e6572e started=<S> model=claude-opus-4-8 session=<S> took=<T> -->\n"
                    "one two \n\n## @tester\n"
                    "<!-- chatmd id=t2 agent=codex status=done seen=0:e6572e started=<S> session=<S> took=<T> exit=0 tokens=10/5 -->\n"
                    "one two three four five\n\n## @me\n")))
      (cl-flet ((check (what expected)
                  (chatmd-test--wait what
                                     (lambda () (equal (chatmd-test--normalize (chatmd-test--text buffer))
                                                       expected))
                                     nil
                                     (lambda () (format "--- expected\n%s--- buffer (normalized)\n%s"
                                                        expected (chatmd-test--normalize
                                                                  (chatmd-test--text buffer))))))
                (reviewer-hangs ()
                  (chatmd-test--wait "@reviewer to stream and hang"
                                     (lambda () (string-match-p "agent=claude status=streaming[^\n]*\none two $"
                                                                (chatmd-test--text buffer)))
                                     nil (lambda () (chatmd-test--text buffer)))
                  (chatmd-test--wait "the mode line to name @reviewer"
                                     (lambda () (string-match-p "@reviewer [0-9.]+s · "
                                                                (chatmd-test--mode-line))))))
        (chatmd-test--keys "C-c C-c")
        (chatmd-test--wait "@tester's answer"
                           (lambda () (string-match-p "agent=codex status=done" (chatmd-test--text buffer))))
        (reviewer-hangs)
        (chatmd-test--keys "C-u C-c C-k reviewer RET")
        (check "@reviewer cancelled" first-cancel)
        (chatmd-test--wait "the mode line to empty" (lambda () (equal (chatmd-mode-line-text) "")))
        (chatmd-test--keys "C-c C-a reviewer RET")
        (reviewer-hangs)
        (chatmd-test--keys "C-c C-k")
        (check "@reviewer cancelled again"
               (concat first-cancel "\n## @reviewer\n"
                       "<!-- chatmd id=t3 agent=claude status=cancelled seen=+2:f12fc2 started=<S> model=claude-opus-4-8 session=<S> took=<T> -->\n"
                       "one two \n\n## @me\n"))
        (should (equal '("asked @reviewer" "asked @reviewer, @tester") chatmd-test--messages))
        (chatmd-test--wait "the mode line to empty" (lambda () (equal (chatmd-mode-line-text) "")))))))

(ert-deftest chatmd-test-waiting-count ()
  "A chat that is not open waits for you (its last turn failed): the mode line of the
open chat counts it.  Opened, a next message written and sent (C-c C-c), it answers
and nothing waits any more."
  (chatmd-test--setup)
  (let* ((ws (chatmd-test--workspace))
         (failed (expand-file-name "failed.chat.md" (plist-get ws :demo))))
    (setenv "FAKE_AGENT_TEXT" "Fixed.")
    (with-temp-file failed
      (insert "## @me\n@reviewer look at the refunds\n\n## @reviewer\n"
              "<!-- chatmd id=t1 agent=claude status=error error=\"the CLI crashed\" -->\n"))
    (chatmd-test--open (plist-get ws :chat))
    (chatmd-test--wait "the mode line to say 1 chat waits"
                       (lambda () (equal (chatmd-test--mode-line) " [1 chat waits]")))
    (let ((buffer (chatmd-test--open failed)))
      (goto-char (point-max))
      (insert "\n## @me\n@reviewer try again\n")
      (chatmd-test--keys "C-c C-c")
      (chatmd-test--wait "the answer"
                         (lambda () (string-suffix-p "Fixed.\n\n## @me\n" (chatmd-test--text buffer))))
      (chatmd-test--wait "the mode line to stop counting"
                         (lambda () (equal (chatmd-test--mode-line) "")))
      (switch-to-buffer (find-buffer-visiting (plist-get ws :chat)))
      (should (equal (chatmd-test--mode-line) "")))))

(defun chatmd-test--blocks (file language)
  "The fenced code blocks of LANGUAGE in FILE (a guide), as strings."
  (with-temp-buffer
    (insert-file-contents (expand-file-name file chatmd-test--repo))
    (let (blocks)
      (while (re-search-forward (concat "^ *```" language "\n\\(\\(?:.*\n\\)*?\\) *```$") nil t)
        (push (replace-regexp-in-string "^   " "" (match-string 1)) blocks))
      (nreverse blocks))))

(defun chatmd-test--key-rows (file)
  "The rows of the keys tables in FILE: ((KEY . COMMAND) ...)."
  (with-temp-buffer
    (insert-file-contents (expand-file-name file chatmd-test--repo))
    (let (rows)
      (while (re-search-forward "^| `\\(C-[^`]+\\)` | `\\(chatmd-[a-z-]+\\)` |" nil t)
        (push (cons (match-string 1) (intern (match-string 2))) rows))
      (nreverse rows))))

(ert-deftest chatmd-test-guides ()
  "The guides (editors/emacs/README.md, docs/editors.md) as a newcomer follows them:
their use-package snippet, evaluated as written (with this checkout's path), sets up
*.chat.md files and the ask-about key; both guides show the same snippet; the keys
their tables name are the mode's."
  (let* ((readme (chatmd-test--blocks "editors/emacs/README.md" "elisp"))
         (docs (chatmd-test--blocks "docs/editors.md" "elisp"))
         (snippet (cl-find-if (lambda (b) (string-match-p "(use-package chatmd" b)) readme))
         (plain (cl-find-if (lambda (b) (string-match-p "(require 'chatmd)" b)) readme))
         (here (expand-file-name ".." chatmd-test--here)))
    (should snippet)
    (should plain)
    (should (member snippet docs))
    (setq auto-mode-alist (cl-remove "\\.chat\\.md\\'" auto-mode-alist :key #'car :test #'equal))
    (require 'use-package)
    (dolist (code (list plain snippet))
      (with-temp-buffer
        (insert (replace-regexp-in-string "/path/to/chatmd/editors/emacs" here code t t))
        (eval-buffer)))
    (should (member here load-path))
    (should (eq (assoc-default "x.chat.md" auto-mode-alist #'string-match) 'chatmd-mode))
    (should (eq (global-key-binding (kbd "C-c q")) 'chatmd-ask-about))
    (dolist (file '("editors/emacs/README.md" "docs/editors.md"))
      (let ((rows (chatmd-test--key-rows file)))
        (should (equal (mapcar #'car rows) '("C-c C-c" "C-c C-a" "C-c C-k" "C-c C-r")))
        (dolist (row rows)
          (should (eq (lookup-key chatmd-mode-map (kbd (car row))) (cdr row))))))))

(ert-deftest chatmd-test-without-markdown-mode ()
  "Without markdown-mode installed, chatmd-mode builds on text-mode and still
highlights the chat (another Emacs, with markdown-mode taken off its load path)."
  (let* ((chat (make-temp-file "chatmd-plain-" nil ".chat.md" "## @me\n@reviewer hi\n"))
         (code `(progn
                  (let (kept)
                    (dolist (dir load-path)
                      (unless (string-match-p "markdown-mode" dir) (push dir kept)))
                    (setq load-path (nreverse kept)))
                  (add-to-list 'load-path ,(expand-file-name ".." chatmd-test--here))
                  (require 'chatmd)
                  (setq chatmd-eglot-ensure nil)
                  (find-file ,chat)
                  (font-lock-ensure)
                  (princ (format "%S %S %S %S" major-mode (fboundp 'markdown-mode)
                                 (derived-mode-p 'text-mode)
                                 (get-text-property 4 'face)))))
         (out (with-temp-buffer
                ;; stdout only: Emacs says what it loads on stderr.
                (list (call-process (concat invocation-directory invocation-name) nil '(t nil) nil
                                    "--batch" "-q" "--eval" (prin1-to-string code))
                      (buffer-string)))))
    (should (equal out '(0 "chatmd-mode nil text-mode chatmd-me-heading-face")))))

(defun chatmd-test--keys-in (buffer keys)
  "Types KEYS in a window showing BUFFER, through the command loop."
  (save-window-excursion
    (switch-to-buffer buffer)
    (chatmd-test--keys keys)))

(defun chatmd-test--fake-answers (log)
  "What the client answered the fake ACP agent (LOG, its FAKE_ACP_LOG), in order,
permission answers left out: each result, or (:error ERROR)."
  (let (found)
    (dolist (line (split-string (chatmd-test--file log) "\n" t))
      (let ((m (ignore-errors (json-parse-string line :object-type 'plist :null-object nil))))
        (when (and m (not (plist-member m :method)) (plist-member m :id)
                   (or (plist-member m :result) (plist-member m :error))
                   (not (plist-get (plist-get m :result) :outcome)))
          (push (if (plist-member m :error) (list :error (plist-get m :error)) (plist-get m :result))
                found))))
    (nreverse found)))

(ert-deftest chatmd-test-agent-files ()
  "An ACP member works on files through Emacs: it reads pay.rs, open with a change
not saved, and gets the buffer's text; its write lands in that buffer (modified, not
saved), the chat lists the file, `undo' takes it back, and so does the code action
\"Undo @writer's changes\", which is refused once the user changed the agent's line.
notes.txt, not open, is read from the disk, and the write to it goes into a buffer
of its own (not saved)."
  (chatmd-test--setup)
  (let* ((ws (chatmd-test--workspace))
         (dir (plist-get ws :dir))
         (demo (plist-get ws :demo))
         (log (expand-file-name "acp.jsonl" dir))
         (pay (expand-file-name "pay.rs" demo))
         (notes (expand-file-name "notes.txt" demo))
         (chat (expand-file-name "files.chat.md" demo))
         (ask (format "## @me\n@writer MOCK-MODE=writefile WRITE-ABS=%s fix it\n" pay))
         (unsaved "fn pay() { todo!() }\n// total\n")
         (written "FN PAY() { TODO!() }\n// total\n"))
    ;; The fake ACP agent answers as claude-agent-acp when started under that name.
    (make-symbolic-link (chatmd-test--need "FAKE_AGENT_BIN")
                        (expand-file-name "claude-agent-acp" (plist-get ws :bin)))
    (with-temp-file (expand-file-name "chatmd.toml" demo)
      (insert "[members.writer]\nagent = \"acp\"\npreset = \"claude\"\n[members.writer.env]\n"
              (format "FAKE_ACP_LOG = \"%s\"\nIS_SANDBOX = \"1\"\nCLAUDE_CONFIG_DIR = \"%s/state\"\n" log dir)
              "FAKE_ACP_CLAUDE_START_MODE = \"bypassPermissions\"\n"))
    ;; Its `env' applies once the user trusts the file: trusted here, in a config folder
    ;; of the test's own (the server inherits it).
    (setenv "XDG_CONFIG_HOME" (expand-file-name "config" dir))
    (should (equal 0 (call-process (chatmd-test--need "CHATMD_BIN") nil nil nil
                                   "trust" (expand-file-name "chatmd.toml" demo))))
    (with-temp-file pay (insert "fn pay() {}\n// total\n"))
    (with-temp-file notes (insert "draft notes\nsecond line\n"))
    (with-temp-file chat (insert ask))
    ;; pay.rs open, with a change the user has not saved.
    (let ((pay-buffer (find-file-noselect pay)))
      (with-current-buffer pay-buffer
        (goto-char (point-min))
        (delete-region (point) (line-end-position))
        (insert "fn pay() { todo!() }")
        (should (equal (chatmd-test--text) unsaved))
        ;; The command loop ends a user's change with a boundary; a batch Emacs has none.
        (undo-boundary))
      (let* ((buffer (chatmd-test--open chat))
             (dump (lambda () (format "--- chat\n%s--- pay.rs\n%s" (chatmd-test--text buffer)
                                      (chatmd-test--text pay-buffer))))
             (done (lambda (id)
                     (lambda () (let ((text (chatmd-test--text buffer)))
                                  (and (string-match-p (format "id=%s [^\n]*status=done" id) text)
                                       (string-suffix-p "\n## @me\n" text)))))))
        (chatmd-test--keys "C-c C-c")
        (chatmd-test--wait "the turn to end" (funcall done "t1") nil dump)
        ;; The agent read the unsaved buffer; the write is in it, not on the disk.
        (should (equal (chatmd-test--fake-answers log) (list (list :content unsaved) nil)))
        (should (equal (chatmd-test--text pay-buffer) written))
        (should (buffer-modified-p pay-buffer))
        (should (equal (chatmd-test--file pay) "fn pay() {}\n// total\n"))
        (should (equal (replace-regexp-in-string "<!-- chatmd id=t1 [^\n]*-->" "<!-- t1 -->"
                                                 (chatmd-test--text buffer) t t)
                       (concat ask "\n## @writer\n<!-- t1 -->\n"
                               "> - changed `pay.rs` (+1 \u2212" "1)\n\n"
                               "<details><summary>Diff of `pay.rs`</summary>\n\n"
                               "```diff\n--- a/pay.rs\n+++ b/pay.rs\n@@ -1,2 +1,2 @@\n"
                               "-fn pay() { todo!() }\n+FN PAY() { TODO!() }\n // total\n```\n\n</details>\n\n"
                               "ANSWER-anthropic role_seen=no marker_count=0 roles=none team=0 turn=1 "
                               "user_msgs=1 assistant_msgs=0 ask=- tool_result=\"wrote " pay "\"\n\n## @me\n")))
        ;; C-/ (undo) in pay.rs takes the write back in one step; C-? (undo-redo) brings
        ;; it again.  Keys, through the command loop, which puts the undo boundaries.
        (chatmd-test--keys-in pay-buffer "C-/")
        (should (equal (chatmd-test--text pay-buffer) unsaved))
        (chatmd-test--keys-in pay-buffer "C-?")
        (should (equal (chatmd-test--text pay-buffer) written))
        ;; The code action on the file's line of the chat restores the unsaved text.
        (cl-flet ((undo-action ()
                    (with-current-buffer buffer
                      (goto-char (point-min))
                      (search-forward "> - changed `pay.rs`")
                      (chatmd-test--keys "M-x eglot-code-actions RET Undo RET"))))
          (undo-action)
          (chatmd-test--wait "the code action to restore pay.rs"
                             (lambda () (equal (chatmd-test--text pay-buffer) unsaved)) nil dump)
          (should (equal (chatmd-test--file pay) "fn pay() {}\n// total\n"))
          ;; The agent's text again (C-/ undoes the code action's edit), then the user
          ;; changes its line: refused, nothing changes.
          (chatmd-test--keys-in pay-buffer "C-/")
          (should (equal (chatmd-test--text pay-buffer) written))
          (with-current-buffer pay-buffer
            (goto-char (point-min))
            (delete-region (point) (line-end-position))
            (insert "FN PAY() { DONE }")
            (undo-boundary))
          (let ((refused (condition-case err (progn (undo-action) nil)
                           (error (error-message-string err)))))
            (should (string-match-p (regexp-quote "pay.rs changed since @writer wrote it; undo by hand")
                                    (or refused "")))))
        (should (equal (chatmd-test--text pay-buffer) "FN PAY() { DONE }\n// total\n"))
        ;; notes.txt, not open: read from the disk, written into a buffer of its own.
        (should-not (find-buffer-visiting notes))
        (with-current-buffer buffer
          (goto-char (point-max))
          (insert (format "@writer MOCK-MODE=writefile WRITE-ABS=%s again\n" notes))
          (chatmd-test--keys "C-c C-c"))
        (chatmd-test--wait "the second turn to end" (funcall done "t2") nil dump)
        (should (equal (nthcdr 2 (chatmd-test--fake-answers log))
                       (list (list :content "draft notes\nsecond line\n") nil)))
        (let ((notes-buffer (find-buffer-visiting notes)))
          (should notes-buffer)
          (should (equal (chatmd-test--text notes-buffer) "DRAFT NOTES\nsecond line\n"))
          (should (buffer-modified-p notes-buffer))
          (should-not (get-buffer-window notes-buffer))
          (should (equal (chatmd-test--file notes) "draft notes\nsecond line\n")))
        (should (string-match-p (regexp-quote "> - changed `notes.txt` (+1 \u2212\u0031)")
                                (chatmd-test--text buffer)))
        ;; A new file: eglot takes no `create' operation, so the server sends the edit
        ;; alone and the file is a buffer of its own, made on disk when saved.
        (let ((new (expand-file-name "new.txt" demo)))
          (with-current-buffer buffer
            (goto-char (point-max))
            (insert (format "@writer MOCK-MODE=writefile WRITE-ABS=%s create it\n" new))
            (chatmd-test--keys "C-c C-c"))
          (chatmd-test--wait "the third turn to end" (funcall done "t3") nil dump)
          (should (equal (car (nthcdr 5 (chatmd-test--fake-answers log))) nil))
          (let ((new-buffer (find-buffer-visiting new)))
            (should new-buffer)
            (should (equal (chatmd-test--text new-buffer) "created by the fake agent\n"))
            (should-not (file-exists-p new))))))))

;; ---------------------------------------------------------------------------
;; Warm sessions: the chatmd-warm-* variables as initialization options.

(defvar chatmd-test--initialize-params nil
  "The params of the `initialize' request eglot sent, as it sent them.")

(defun chatmd-test--record-initialize (_connection method params &rest _)
  (when (memq method '(:initialize initialize))
    (setq chatmd-test--initialize-params params)))

(defun chatmd-test--sent-options ()
  "The initializationOptions the server was started with, as JSON text.
Recorded where eglot hands the request to jsonrpc, which writes it out."
  (should chatmd-test--initialize-params)
  (json-serialize (plist-get chatmd-test--initialize-params :initializationOptions)
                  :false-object :json-false :null-object nil))

(defun chatmd-test--warm-workspace ()
  "`chatmd-test--workspace' with `@writer' an ACP member (the fake claude-agent-acp),
which logs each start (`{\"started\": pid}') in acp.jsonl of the scratch folder."
  (let* ((ws (chatmd-test--workspace))
         (dir (plist-get ws :dir))
         (demo (plist-get ws :demo))
         (log (expand-file-name "acp.jsonl" dir)))
    (make-symbolic-link (chatmd-test--need "FAKE_AGENT_BIN")
                        (expand-file-name "claude-agent-acp" (plist-get ws :bin)))
    (with-temp-file (expand-file-name "chatmd.toml" demo)
      (insert "[members.writer]\nagent = \"acp\"\npreset = \"claude\"\n[members.writer.env]\n"
              (format "FAKE_ACP_LOG = \"%s\"\nIS_SANDBOX = \"1\"\nCLAUDE_CONFIG_DIR = \"%s/state\"\n" log dir)))
    ;; Its `env' applies once the user trusts the file (in a config folder of the test's own).
    (setenv "XDG_CONFIG_HOME" (expand-file-name "config" dir))
    (should (equal 0 (call-process (chatmd-test--need "CHATMD_BIN") nil nil nil
                                   "trust" (expand-file-name "chatmd.toml" demo))))
    (advice-add 'jsonrpc-async-request :before #'chatmd-test--record-initialize)
    (plist-put ws :log log)))

(defun chatmd-test--warnings ()
  (let ((buffer (get-buffer "*Warnings*")))
    (if buffer (chatmd-test--text buffer) "")))

(ert-deftest chatmd-test-warm-options ()
  "The four chatmd-warm-* variables reach the server as warmIdleSeconds, warmMembers,
warmMemoryMB and warmHeadless, beside agentPath; and the server applies the idle time:
`@writer''s agent, kept running after its answer for the next turn, ends once it has
waited half a second (the server's default, without the option: 300 s)."
  (chatmd-test--setup)
  (let* ((ws (chatmd-test--warm-workspace))
         (chat (expand-file-name "idle.chat.md" (plist-get ws :demo))))
    (setq chatmd-warm-idle-seconds 0.5
          chatmd-warm-members 2
          chatmd-warm-memory-mb 1536.5
          chatmd-warm-headless t)
    (with-temp-file chat (insert "## @me\n@writer hello\n"))
    (let ((buffer (chatmd-test--open chat)))
      (should (equal (chatmd-test--sent-options)
                     (format (concat "{\"agentPath\":%S,\"warmIdleSeconds\":0.5,\"warmMembers\":2,"
                                     "\"warmMemoryMB\":1536.5,\"warmHeadless\":true}")
                             (plist-get ws :bin))))
      (should (equal (chatmd-test--warnings) ""))
      (chatmd-test--keys "C-c C-c")
      (chatmd-test--wait "the answer"
                         (lambda () (let ((text (chatmd-test--text buffer)))
                                      (and (string-match-p "status=done" text)
                                           (string-suffix-p "\n## @me\n" text)))))
      (let ((pids (delq nil (mapcar (lambda (line)
                                      (plist-get (ignore-errors (json-parse-string line :object-type 'plist))
                                                 :started))
                                    (split-string (chatmd-test--file (plist-get ws :log)) "\n" t)))))
        (should (= (length pids) 1))
        (chatmd-test--wait "the idle agent to end after chatmd-warm-idle-seconds"
                           (lambda ()
                             (let ((stat (ignore-errors
                                           (chatmd-test--file (format "/proc/%d/stat" (car pids))))))
                               ;; A zombie not yet reaped has ended too.
                               (or (null stat) (string-match-p ") Z" stat)))))))))

(ert-deftest chatmd-test-warm-unset ()
  "With the chatmd-warm-* variables nil (their default), no warm option is sent: the
server's defaults apply."
  (chatmd-test--setup)
  (let* ((ws (chatmd-test--warm-workspace))
         (chat (expand-file-name "idle.chat.md" (plist-get ws :demo))))
    (with-temp-file chat (insert "## @me\n@writer hello\n"))
    (chatmd-test--open chat)
    (should (equal (chatmd-test--sent-options) (format "{\"agentPath\":%S}" (plist-get ws :bin))))
    (should (equal (chatmd-test--warnings) ""))))

(ert-deftest chatmd-test-warm-wrong ()
  "A chatmd-warm-* variable of the wrong type is not sent, and a warning says which and
why; the others are sent and the server starts."
  (chatmd-test--setup)
  (let* ((ws (chatmd-test--warm-workspace))
         (chat (expand-file-name "idle.chat.md" (plist-get ws :demo))))
    (setq chatmd-warm-idle-seconds "60"
          chatmd-warm-members 2.5
          chatmd-warm-memory-mb 512
          chatmd-warm-headless 'yes)
    (with-temp-file chat (insert "## @me\n@writer hello\n"))
    (chatmd-test--open chat)
    (should (equal (chatmd-test--sent-options)
                   (format "{\"agentPath\":%S,\"warmMemoryMB\":512}" (plist-get ws :bin))))
    (should (equal (chatmd-test--warnings)
                   (concat
                    "Warning (chatmd): chatmd-warm-idle-seconds is \"60\", not a number of seconds, 0 or more: "
                    "not sent, the server's default applies\n"
                    "Warning (chatmd): chatmd-warm-members is 2.5, not a whole number, 0 or more: "
                    "not sent, the server's default applies\n"
                    "Warning (chatmd): chatmd-warm-headless is yes, not t or :json-false: "
                    "not sent, the server's default applies\n")))))

(provide 'chatmd-test)
;;; chatmd-test.el ends here
