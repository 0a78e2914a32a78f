#!/bin/bash
# fsync-disk: `sync FILE` (coreutils: fsync(2) on FILE) of a 3 GB file
# just written to the disk (/work, or $FSYNC_DIR; not a tmpfs) through the
# page cache: the writer (cat, before the recording) left about 2.4 GB
# dirty, and fsync waits, in D state, until the disk has them. Nothing of
# user space holds it up: the wait is the device's (ending io). On ext4 it
# is hundreds of short D waits, each ended by the I/O's completion, most
# through ext4's end-io worker (a kworker running ext4_end_io_rsv_work):
# the truth names sync itself (its own I/O) and that kworker, the one
# that woke it most, found in the trace. Normal run: `sync` of a 1 MB
# file just written.
# Truth: fixtures/real/fsync-disk/truth.
. "$(dirname "$0")/lib.sh"
need_root
need sync:coreutils cat:coreutils
dir=${FSYNC_DIR:-/work}
[ -d "$dir" ] && [ "$(stat -f -c %T "$dir")" != tmpfs ] || skip "needs $dir on a disk (FSYNC_DIR)"
[ "$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')" -gt 8000000 ] || skip "needs 8 GB free in $dir"
data=$(mktemp -d "$dir/argus-fsync.XXXXXX")
trap 's=$?; rm -rf "$data"; (exit $s); cleanup' EXIT

# 1 GB of random data (not zeros: nothing to compress or skip), read back
# into the page cache, then written 3 times over into the file to sync
head -c 1000000000 /dev/urandom > "$data/src"
head -c 1000000 "$data/src" > "$data/small"
record normal sync "$data/small"

cat "$data/src" > /dev/null
cat "$data/src" "$data/src" "$data/src" > "$data/big"
say "dirty before the fsync: $(awk '/^Dirty:/ { print $2, $3 }' /proc/meminfo)"
record hang sync "$data/big"

# who woke sync most often during the recording (tid and comm)
read -r waker wcomm < <(awk -v pid="$RECORDED_PID" '
    $0 ~ ("sched_waking: comm=sync pid=" pid " ") {
        w = $1; t = w; sub(/^.*-/, "", t); sub(/-[0-9]+$/, "", w); n[t]++; c[t] = w
    }
    END { for (t in n) print n[t], t, c[t] }' "$OUT/hang.txt" | sort -rn | head -1 | cut -d" " -f2-)
say "sync was woken most by $wcomm ($waker)"

truth proc sync
truth hang "$RECORDED_PID sync/main"
truth culprit "$RECORDED_PID sync/main"
case $wcomm in
kworker/*) truth culprit "$waker ${wcomm%%-*}/main" ;;
esac
truth ending io
truth why "fsync of a 3 GB file just written: the thread waited (D state) for the disk to take about 2.4 GB of dirty pages; no user-space thread held it up: the wait was the device's, ended by the I/O completions (ext4's end-io kworker woke it)"
