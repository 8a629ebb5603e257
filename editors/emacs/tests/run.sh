#!/usr/bin/env bash
# Runs the end-to-end tests of chatmd.el, each in its own `emacs --batch` (ERT).
#   CHATMD_BIN      the built `chatmd` binary (required)
#   FAKE_AGENT_BIN  the built `fake-agent` binary of chatmd-tests (required)
#   EMACS           the emacs to run (default: emacs on PATH); 28.2 with the elpa-eglot
#                   package, or 29+ with its built-in eglot
# Arguments: test names to run (default: every `ert-deftest' in chatmd-test.el). Prints
# one line per test and a closing "N passed, N failed"; exits 1 when any failed.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
emacs="${EMACS:-emacs}"
command -v "$emacs" >/dev/null || { echo "emacs not found (set EMACS)" >&2; exit 1; }
: "${CHATMD_BIN:?set CHATMD_BIN to the built chatmd binary}"
: "${FAKE_AGENT_BIN:?set FAKE_AGENT_BIN to the built fake-agent binary}"
CHATMD_BIN="$(realpath "$CHATMD_BIN")"
FAKE_AGENT_BIN="$(realpath "$FAKE_AGENT_BIN")"
export CHATMD_BIN FAKE_AGENT_BIN

if (($# > 0)); then
    tests=("$@")
else
    mapfile -t tests < <(sed -n 's/^(ert-deftest \([^ ]*\) .*/\1/p' "$here/chatmd-test.el")
fi

# The package compiles without warnings (what a user's package manager does).
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cp "$here/../chatmd.el" "$scratch/"
if ! out="$("$emacs" --batch -q -L "$scratch" \
    --eval '(setq byte-compile-error-on-warn t)' -f batch-byte-compile "$scratch/chatmd.el" 2>&1)"; then
    echo "FAIL  byte-compile chatmd.el"
    sed 's/^/      /' <<<"$out"
    exit 1
fi
echo "ok    byte-compile chatmd.el"

passed=0
failed=0
for t in "${tests[@]}"; do
    start=$(date +%s%N)
    # -q: no user init, but the site start files, so Debian's elpa-* packages load as
    # they do for a user. A hard limit per test in case Emacs itself hangs; the tests'
    # own waits are shorter.
    out="$(cd "$here" && timeout 120 "$emacs" --batch -q -l "$here/chatmd-test.el" \
        --eval "(ert-run-tests-batch-and-exit '(member $t))" 2>&1)"
    rc=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    if ((rc == 0)) && grep -q "^Ran 1 tests, 1 results as expected" <<<"$out"; then
        passed=$((passed + 1))
        echo "ok    $t (${ms} ms)"
    else
        failed=$((failed + 1))
        echo "FAIL  $t (${ms} ms, exit $rc)"
        grep -v '^Loading ' <<<"$out" | sed 's/^/      /'
    fi
done
echo
echo "emacs: $passed passed, $failed failed"
((failed == 0))
