#!/bin/bash
# mmap-fault: a python3 program (named page-toucher) maps a 1 GB file on
# the disk (/work, or $FSYNC_DIR; not a tmpfs), with MADV_RANDOM (no
# readahead), and reads one byte of 7000 pages picked at random, after the
# file's pages were dropped from the page cache (posix_fadvise DONTNEED,
# this file only): every touch is a major page fault, and the thread waits,
# in D state, for a 4 KB read of the disk (about 0.3 ms each here: 2 s in
# all). No read(2) or other system call: the waits are page faults. Normal
# run: 50 touches of a 1 MB file.
# Truth: fixtures/real/mmap-fault/truth.
. "$(dirname "$0")/lib.sh"
need_root
need head:coreutils
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"
dir=${FSYNC_DIR:-/work}
[ -d "$dir" ] && [ "$(stat -f -c %T "$dir")" != tmpfs ] || skip "needs $dir on a disk (FSYNC_DIR)"
[ "$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')" -gt 3000000 ] || skip "needs 3 GB free in $dir"
data=$(mktemp -d "$dir/argus-mmap.XXXXXX")
trap 's=$?; rm -rf "$data"; (exit $s); cleanup' EXIT

cat > "$WORK/touch.py" <<'EOF'
import ctypes, mmap, os, random, sys
ctypes.CDLL(None).prctl(15, b"page-toucher", 0, 0, 0)  # PR_SET_NAME
fd = os.open(sys.argv[1], os.O_RDONLY)
m = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
m.madvise(mmap.MADV_RANDOM)
pages = len(m) // 4096
pick = random.Random(1)
total = 0
for i in range(int(sys.argv[2])):
    total += m[pick.randrange(pages) * 4096]
print(total)
EOF
# drop FILE: its pages out of the page cache (written back first)
drop() {
    $py -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.fsync(fd); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$1"
}
head -c 1000000 /dev/urandom > "$data/small"
head -c 1000000000 /dev/urandom > "$data/big"
drop "$data/small"
drop "$data/big"
record normal $py "$WORK/touch.py" "$data/small" 50 > /dev/null
record hang $py "$WORK/touch.py" "$data/big" 7000 > /dev/null

truth proc page-toucher
truth hang "$RECORDED_PID page-toucher/main"
truth culprit "$RECORDED_PID page-toucher/main"
truth ending io
truth why "the program touched 7000 random pages of a 1 GB file mapped from the disk (MADV_RANDOM) and not in the page cache: each major page fault waited (D state) for a read of the disk; no other thread held it up"
