#!/usr/bin/env bash
# Runs the headless Neovim tests of the chatmd plugin.
#   CHATMD_BIN      the built `chatmd` binary (required)
#   FAKE_AGENT_BIN  the built `fake-agent` binary of chatmd-tests (required)
#   NVIM            the nvim to run (default: nvim on PATH); Neovim 0.10 or newer
# Arguments: test files to run (default: every tests/test_*.lua). Prints one line per
# test and a closing "N passed, N failed"; exits 1 when any failed.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
nvim="${NVIM:-nvim}"
if [[ "$nvim" == */* ]]; then
    nvim="$(realpath "$nvim")"
else
    nvim="$(command -v "$nvim")" || { echo "nvim not found (set NVIM)" >&2; exit 1; }
fi
: "${CHATMD_BIN:?set CHATMD_BIN to the built chatmd binary}"
: "${FAKE_AGENT_BIN:?set FAKE_AGENT_BIN to the built fake-agent binary}"
export CHATMD_BIN FAKE_AGENT_BIN
CHATMD_BIN="$(realpath "$CHATMD_BIN")"
FAKE_AGENT_BIN="$(realpath "$FAKE_AGENT_BIN")"

if (($# > 0)); then
    tests=()
    for t in "$@"; do tests+=("$(realpath "$t")"); done
else
    tests=("$here"/test_*.lua)
fi

passed=0
failed=0
failures=()
for t in "${tests[@]}"; do
    name="$(basename "$t" .lua)"
    start=$(date +%s%N)
    # A hard limit per test in case nvim itself hangs; the tests' own waits are shorter.
    out="$(cd "$here" && timeout 60 "$nvim" --headless -u NONE -i NONE -n -l "$t" 2>&1)"
    rc=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    if ((rc == 0)) && grep -q "^PASS $name\$" <<<"$out"; then
        passed=$((passed + 1))
        echo "ok    $name (${ms} ms)"
    else
        failed=$((failed + 1))
        failures+=("$name")
        echo "FAIL  $name (${ms} ms, exit $rc)"
        sed 's/^/      /' <<<"$out"
    fi
done
echo
echo "nvim: $passed passed, $failed failed"
((failed == 0))
