#!/bin/bash
# fuse-read: `cat MNT/slow` (coreutils) reads a file of a FUSE filesystem
# whose daemon, a python3-fusepy script (slow-fuse, single-threaded),
# sleeps 2 s in its read handler (at offset 0) before it answers: cat's read(2) waits
# in the kernel's FUSE request queue, the daemon's thread took the request
# from /dev/fuse and sleeps. Normal run: `cat MNT/fast`, answered at once.
# Truth: fixtures/real/fuse-read/truth.
. "$(dirname "$0")/lib.sh"
need_root
need cat:coreutils mountpoint:util-linux umount:mount
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"
[ -c /dev/fuse ] && grep -qw fuse /proc/filesystems || skip "this kernel has no FUSE (/dev/fuse)"
$py -c 'import fusepy' 2>/dev/null || skip "needs fusepy (apt-get install python3-fusepy)"

# the filesystem: two files, fast and slow; reading slow sleeps 2 s
cat > "$WORK/slowfs.py" <<'EOF'
import ctypes, errno, stat, sys, time
ctypes.CDLL(None).prctl(15, b"slow-fuse", 0, 0, 0)  # PR_SET_NAME
from fusepy import FUSE, FuseOSError, Operations
DATA = b"ok\n"
class SlowFS(Operations):
    def getattr(self, path, fh=None):
        if path == "/":
            return {"st_mode": stat.S_IFDIR | 0o755, "st_nlink": 2}
        if path in ("/fast", "/slow"):
            return {"st_mode": stat.S_IFREG | 0o444, "st_nlink": 1, "st_size": len(DATA)}
        raise FuseOSError(errno.ENOENT)
    def readdir(self, path, fh):
        return [".", "..", "fast", "slow"]
    def read(self, path, size, offset, fh):
        if path == "/slow" and offset == 0:
            time.sleep(2)
        return DATA[offset:offset + size]
FUSE(SlowFS(), sys.argv[1], foreground=True, nothreads=True, ro=True, direct_io=True)
EOF
mnt=$WORK/mnt
mkdir "$mnt"
trap 's=$?; umount -l "$mnt" 2>/dev/null; (exit $s); cleanup' EXIT
spawn $py "$WORK/slowfs.py" "$mnt"
daemon=$SPAWNED_PID
wait_for 10 test -e "$mnt/fast"

record normal cat "$mnt/fast"
record hang cat "$mnt/slow"

truth proc cat
truth hang "$RECORDED_PID cat/main"
truth culprit "$daemon slow-fuse/main"
truth ending timeout
truth why "cat's read of a FUSE file waited for the filesystem's daemon (slow-fuse, $daemon), whose read handler slept 2 s before it answered"
