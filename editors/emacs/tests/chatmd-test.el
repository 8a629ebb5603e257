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
      (ert-fail (format "timed out waiting for %s\n%s%s" what
                        (if dump (concat (funcall dump) "\n") "")
                        (chatmd-test--dump))))))

(defun chatmd-test--text (&optional buffer)
  (with-current-buffer (or buffer (current-buffer))
    (buffer-substring-no-properties (point-min) (point-max))))

(defun chatmd-test--normalize (text)
  (dolist (field '("started" "session" "took") text)
    (setq text (replace-regexp-in-string
                (concat field "=[^ \n]+")
                (concat field "=<" (upcase (substring field 0 1)) ">") text t t))))

(defun chatmd-test--shape (text)
  "TEXT with every status comment as `<!-- C -->' (they carry host, pid and times)."
  (replace-regexp-in-string "<!-- chatmd [^\n]*-->" "<!-- C -->" text t t))

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

(defun chatmd-test--setup ()
  (setq chatmd-test--messages nil)
  (advice-add 'chatmd--say :after
              (lambda (&rest args) (push (apply #'format args) chatmd-test--messages))
              '((name . chatmd-test)))
  ;; Nothing may ask yes or no: a question would block a real user's typing.
  (advice-add 'y-or-n-p :override
              (lambda (prompt &rest _) (ert-fail (format "asked: %s" prompt)))
              '((name . chatmd-test))))

(defun chatmd-test--answer (member)
  "The fake claude's or codex's finished section for MEMBER (id N) with TEXT."
  (ignore member))

;; ---------------------------------------------------------------------------

(ert-deftest chatmd-test-mode ()
  "A *.chat.md file opens in chatmd-mode (on markdown-mode), with the chat highlighted,
the keys bound, and the server connected."
  (chatmd-test--setup)
  (let* ((ws (chatmd-test--workspace))
         (chat (expand-file-name "look.chat.md" (plist-get ws :demo))))
    (with-temp-file chat
      (insert "## @me\n@reviewer see #file:src/pay.rs:2-4 and #diff.\n\n"
              "## @reviewer\n<!-- chatmd id=t1 agent=claude status=waiting -->\n"
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
      (should (memq 'chatmd-status-value-face (ensure-list (face-at "status=waiting"))))
      (should (memq 'chatmd-permission-face (ensure-list (face-at "> **Permission**"))))
      (should (memq 'chatmd-permission-option-face (ensure-list (face-at "> - [ ] Allow")))))
    (should (eq (key-binding (kbd "C-c C-c")) 'chatmd-send))
    (should (eq (key-binding (kbd "C-c C-a")) 'chatmd-ask))
    (should (eq (key-binding (kbd "C-c C-k")) 'chatmd-cancel))
    (should (eq (key-binding (kbd "C-c C-r")) 'chatmd-answer))
    ;; The waiting permission request counts in the mode line.
    (chatmd-test--wait "the mode line to say 1 chat waits"
                       (lambda () (equal (chatmd-mode-line-text) "1 chat waits")))
    (should (string-match-p "1 chat waits" (format-mode-line mode-line-format)))))

(provide 'chatmd-test)
;;; chatmd-test.el ends here
