# Sourced by the install scripts: runs a command that fetches from a package registry
# under a time limit, and tries it again when it fails or stalls.
#
# Why: a CI run (stop 37, 2026-12-07) waited on the editor tools' install until CI's own
# limit ended it, with nothing in its log to say which download stalled. A registry that
# stops sending keeps npm or apt waiting far longer than a retry takes, so each fetch gets
# CHATMD_NET_STEP_TIMEOUT seconds (default 900: code-server's install compiles native
# modules for about 2 minutes on 2 cores), and three tries.
#
#   net_try [--before CMD] COMMAND ARGS...
#
# --before CMD  runs CMD (a shell function or command, no arguments) before each try,
#               to clear what a failed try left half done.
# Prints a UTC time on each try, so a log shows where the time went.

net_try() {
    local before=""
    if [[ "${1:-}" == --before ]]; then
        before=$2
        shift 2
    fi
    local limit="${CHATMD_NET_STEP_TIMEOUT:-900}" tries=3 try rc
    for ((try = 1; try <= tries; try++)); do
        printf '%s net_try %d/%d (limit %ss): %s\n' "$(date -u +%T)" "$try" "$tries" "$limit" "$*"
        if [[ -n "$before" ]]; then
            "$before"
        fi
        rc=0
        timeout --kill-after=30 "$limit" "$@" || rc=$?
        if ((rc == 0)); then
            printf '%s net_try done: %s\n' "$(date -u +%T)" "$*"
            return 0
        fi
        if ((rc == 124 || rc == 137)); then
            printf '%s net_try: %s stalled: no end within %s s\n' "$(date -u +%T)" "$1" "$limit" >&2
        else
            printf '%s net_try: %s failed with exit code %d\n' "$(date -u +%T)" "$1" "$rc" >&2
        fi
        # A registry that refused or stalled often answers a little later.
        ((try < tries)) && sleep $((try * 15))
    done
    printf 'net_try: gave up after %d tries: %s\n' "$tries" "$*" >&2
    return 1
}
