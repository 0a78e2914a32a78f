#!/usr/bin/env python3
"""bench/gen-threads.py N [THREADS_PER_PROCESS [hangs]]: writes Linux
ftrace text (tracefs `trace` layout, as bench/gen-ftrace) with N distinct
threads on CPU 0, to measure how the stages and the report scale with the
number of threads and processes (docs/performance.md), not with events.

Each thread is switched in from the idle task, makes a read syscall and
is switched out asleep: about 4 lines per thread. Threads are grouped
THREADS_PER_PROCESS (default 4) to a process (tgid = its first tid).
With `hangs`, every thread is woken again 600 ms after it slept, its read
then returning: every main thread has a hang (a wait over 500 ms)."""
import sys

HEADER = ("# tracer: nop\n#\n"
          "#           TASK-PID     TGID   CPU#  |||||  TIMESTAMP  FUNCTION\n"
          "#              | |         |      |   |||||     |         |\n")


def stamp(us):
    return "%d.%06d" % (us // 1000000, us % 1000000)


def switch(ts, task, prev_comm, prev_pid, state, next_comm, next_pid):
    return ("%s d..2. %s: sched_switch: prev_comm=%s prev_pid=%d prev_prio=120 "
            "prev_state=%s ==> next_comm=%s next_pid=%d next_prio=120\n"
            % (task, stamp(ts), prev_comm, prev_pid, state, next_comm, next_pid))


IDLE = "          <idle>-0       (-------) [000]"


def main():
    n = int(sys.argv[1])
    per_process = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    hangs = len(sys.argv) > 3 and sys.argv[3] == "hangs"
    out = sys.stdout
    out.write(HEADER)
    ts = 1000_000_000  # microseconds
    buf = []

    def flush():
        if len(buf) >= 40000:
            out.write("".join(buf))
            buf.clear()

    def thread(i):
        tid = 100 + i
        comm = "t%d" % (i % 1000)
        return tid, comm, "%16s-%-7d (%7d) [000]" % (comm, tid, 100 + i - i % per_process)

    for i in range(n):
        tid, comm, task = thread(i)
        buf.append(switch(ts, IDLE, "swapper/0", 0, "R", comm, tid))
        buf.append("%s ..... %s: sys_read(fd: 0x3, buf: 0x7ffc07f82a30, count: 0x80)\n"
                   % (task, stamp(ts + 1)))
        if not hangs:
            buf.append("%s ..... %s: sys_read -> 0x80\n" % (task, stamp(ts + 2)))
        buf.append(switch(ts + 3, task, comm, tid, "S", "swapper/0", 0))
        ts += 4
        flush()
    if hangs:
        ts = max(ts, 1000_000_000 + 4 * n) + 600_000
        for i in range(n):
            tid, comm, task = thread(i)
            buf.append("%s d.h.. %s: sched_waking: comm=%s pid=%d prio=120 target_cpu=000\n"
                       % (IDLE, stamp(ts), comm, tid))
            buf.append(switch(ts + 1, IDLE, "swapper/0", 0, "R", comm, tid))
            buf.append("%s ..... %s: sys_read -> 0x80\n" % (task, stamp(ts + 2)))
            buf.append(switch(ts + 3, task, comm, tid, "S", "swapper/0", 0))
            ts += 4
            flush()
    out.write("".join(buf))


main()
