#!/usr/bin/env bats
# Each defect found on real, unmodified programs, pinned on the
# recording that showed it (fixtures/real, README.md there: the scenario,
# the truth, the trace lines). Every test here failed before its fix. The
# tids are the recordings' own (fixtures/real/NAME/truth). No root needed.

load test_helper
load real_helper

setup_file() {
    unpack redis-sleep cpu-starved midwait http-slow sqlite-poll pg-rowlock gui-dbus-kernel \
           gui-dbus qt-dbus gui-worker gui-busy redis-script cpu-quota lock-cycle spin-yield
    unpack tcp-backlog
}

@test "CULL-SYSCALL: a wakeup in the server's own NET_RX softirq is its (redis-sleep)" {
    run sh -c "argus-decode '$R/redis-sleep.txt' | argus-to-json | jq -c 'select(.type == \"interrupt\" and .in_syscall and .ts > 2000000000) | [.tid, .phase, .name, .in_syscall]'"
    assert_output '[28100,"begin","NET_RX","write"]
[28100,"end","NET_RX","write"]'
    argus graph "$R/redis-sleep.txt" | argus-to-json > "$R/rs.graph.json"
    # the edges into redis-cli's last woken (its 2 s wait's end), and the
    # thread of the event each comes from
    run jq -sc '(map(select(.id)) | map({key: (.id | tostring), value: .tid}) | from_entries) as $tid
        | (map(select(.type == "woken" and .tid == 28116)) | last | .id) as $w
        | .[] | select(.type == "edge" and .to == $w) | [.kind, $tid[.from | tostring]]' "$R/rs.graph.json"
    assert_output '["wakeup",28100]'
}

@test "DISP-TIMER-KERNEL: what an interrupt did makes no ipc or timer edge (http-slow)" {
    argus graph "$R/http-slow.txt" | argus-to-json > "$R/hs.graph.json"
    run jq -c 'select(.type == "ipc" and (.ctx or .tid == 0))' "$R/hs.graph.json"
    assert_output ''
    # every timer edge starts at an arm in a thread's own context
    run jq -sc '(map(select(.type == "timer_arm")) | map({key: (.id | tostring), value: [.ctx // "own", .tid == 0, .func]}) | from_entries) as $arm
        | [.[] | select(.type == "edge" and .kind == "timer") | $arm[.from | tostring]] | group_by(.) | map([.[0], length])' "$R/hs.graph.json"
    assert_output '[[["own",false,"hrtimer_wakeup"],132]]'
}

@test "a sleep its own hrtimer ended is timed_out; its chain ends timeout (redis-sleep)" {
    run sh -c "argus-decode '$R/redis-sleep.txt' | argus-to-json | jq -c 'select(.tid == 28100 and .type == \"woken\" and .ts > 2000000000) | .result'"
    assert_line --index 0 '"timed_out"'
    diagnose redis-sleep --proc redis-cli
    run records redis-sleep 'select(.type == "wait_chain") | [.tids, .states, .end, .reason]'
    assert_output '[[28116,28100],["blocked","blocked"],"timeout","clock_nanosleep"]'
    run grep -F "Ends: the last thread's own timer ended its wait: the sleep or timeout expired." "$R/redis-sleep.report"
    assert_success
    # and the verdict says it in a word: the server slept
    run grep -c -F "redis-server/main [28100], which slept 2.000 s in clock_nanosleep;" "$R/redis-sleep.report"
    assert_output 1
}

@test "the wait chain follows what ended the hang to the lock holder (pg-rowlock)" {
    local hang
    for hang in 500 1200; do
        diagnose pg-rowlock --proc psql --hang "$hang"
        run records pg-rowlock 'select(.type == "wait_chain" and .hang == 0) | [.tids, .links, .waits, .end]'
        assert_output '[[28207,28208,28201],["wakeup","wakeup"],[1,2,1],"timeout"]'
    done
    run records pg-rowlock 'select(.type == "culprit" and .hang == 0 and .rank == 1) | [.tid, .reason]'
    assert_output '[28201,"epoll_wait"]'
}

@test "woken is not running: the chain ends runnable at the CPU hog (cpu-starved)" {
    diagnose cpu-starved --proc redis-cli
    run records cpu-starved 'select(.type == "wait_chain") | [.tids, .links, .states, .end, ((.until[0] - .since[0]) / 1000000 | floor)]'
    assert_output '[[1110,1114],["cpu"],["runnable","running"],"runnable",1819]'
    run records cpu-starved 'select(.type == "culprit" and .rank == 1) | [.tid, .state]'
    assert_output '[1114,"busy"]'
    run records cpu-starved 'select(.type == "hang") | .runnable / 1000000 | floor'
    assert_output 1819
}

@test "a thread asleep at the trace's start gets a wait there and a chain (midwait)" {
    run sh -c "argus-decode '$R/midwait.txt' | argus-to-json | jq -c 'select(.tid == 1197 and (.type == \"wait\" or .type == \"woken\")) | [.type, .ts, .reason, .synth, .result]'"
    assert_output '["wait",0,"recvfrom",true,null]
["woken",2152857000,null,null,"awakened"]'
    diagnose midwait --proc redis-cli
    run records midwait 'select(.type == "hang") | [.tid, .begin, .class]'
    assert_output '[1197,0,"wait"]'
    run records midwait 'select(.type == "wait_chain") | [.tids, .end]'
    assert_output '[[1197,1184],"timeout"]'
}

@test "34 polling sleeps between failed locks are one hang, on the holder (sqlite-poll)" {
    diagnose sqlite-poll --proc sqlite3
    run records sqlite-poll 'select(.type == "hang" and .hang == 0) | [.tid, .waits, .class, .reason, (.blocked / 1000000 | floor)]'
    assert_output '[28121,34,"wait","clock_nanosleep",2538]'
    run records sqlite-poll 'select(.type == "wait_chain" and .hang == 0) | [.tids, .links]'
    assert_output '[[28121,28115,28118,28122],["lock","wakeup","wakeup"]]'
}

@test "hangs are real: no kernel, idle, recorder or display server (gui-dbus-kernel)" {
    diagnose gui-dbus-kernel
    run records gui-dbus-kernel 'select(.type == "hang") | .proc' 
    refute_output --partial '"swapper"'
    refute_output --partial '"argus-record"'
    refute_output --partial '"Xvfb"'
    refute_output --regexp '"(kworker|ksoftirqd|migration|kcompactd|kdamond|rcu_)'
    # SPIN-ORDER: the hangs whose chain names a cause (the app,
    # dbus-daemon, the service: all held up by the service's sleep; the
    # key press's driver, waiting on the app, is told in the app's place)
    # before the waits still open at the end on nothing known (the
    # sandbox's runtime threads, a leftover redis-server)
    run records gui-dbus-kernel 'select(.type == "wait_chain") | .end'
    assert_output '"timeout"
"timeout"
"timeout"
"not_woken"
"not_woken"
"not_woken"'
    # the app's hangs: only the 2 s D-Bus call, not its wait for the key
    run records gui-dbus-kernel 'select(.type == "hang" and .tid == 32019) | [.reason, (.duration / 1000000 | floor)]'
    assert_output '["poll",2006]'
    # the kernel's comm holds 15 bytes: a longer --proc matches it
    diagnose gui-dbus-kernel --proc memfd:sealed-91-of-the-sandbox
    run records gui-dbus-kernel 'select(.type == "hang") | .proc'
    assert_line --index 0 '"memfd:sealed-91"'
}

@test "DIFF-MISSING, DIFF-RELAY: a baseline never makes a right answer wrong" {
    diagnose gui-dbus-kernel --proc gtk-dbus-app --baseline "$R/gui-dbus-kernel.normal.txt"
    run records gui-dbus-kernel 'select(.type == "culprit") | [.rank, .tid]'
    assert_output '[1,32008]
[2,31979]'
    run records gui-dbus-kernel 'select(.type == "wait_chain") | .tids'
    assert_output '[32019,32037,32003,32013,32008]'
    argus graph "$R/gui-dbus-kernel.txt" | argus-find-spinning --proc gtk-dbus-app > "$R/gdk.hangs"
    argus graph "$R/gui-dbus-kernel.normal.txt" > "$R/gdk.base"
    run sh -c "argus-similar --in '$R/gdk.base' '$R/gdk.hangs' | argus-diff -v --baseline '$R/gdk.base' 2>&1 >/dev/null"
    assert_line 'argus-diff: baseline threads that acted here too (DIFF-MISSING): 1'
    diagnose redis-sleep --proc redis-cli --baseline "$R/redis-sleep.normal.txt"
    run records redis-sleep 'select(.type == "culprit") | [.rank, .tid]'
    assert_output '[1,28100]'
}

@test "no hang on a Linux trace says how to ask for one (redis-sleep's normal run)" {
    run argus diagnose --proc redis-cli "$R/redis-sleep.normal.txt"
    assert_failure 1
    assert_line 'no hang found'
    assert_line --partial 'Linux trace: no main thread of redis-cli blocked or ran 500 ms or more (--hang MS sets how long'
}

@test "DEC-FD: recvfrom on fd 3 names its connect; an unseen epoll fd stays 'fd 8'" {
    diagnose redis-sleep --proc redis-cli
    run sed -n 1,4p "$R/redis-sleep.report"
    assert_output "Verdict: redis-cli/main [28116] was blocked 2.001 s in recvfrom on fd 3 (a socket it connected at
498.036807 s), waiting on redis-server/main [28100], which slept 2.000 s in clock_nanosleep; no UI
event was found that led to it. Culprit: redis-server/main [28100], the thread at the end of that
wait."
    # its first connect (498.036655) returned -EINPROGRESS; the second, at
    # 498.036807, returned 0; fd 3 was a library file read before them
    run grep -E '^ +redis-cli-28116 .* (498\.036655|498\.036800|498\.036807|498\.036812): sys_connect' "$R/redis-sleep.txt"
    assert_output "       redis-cli-28116   (  28116) [000] .....   498.036655: sys_connect(fd: 3, uservaddr: 0x7f4309033030, addrlen: 0x10)
       redis-cli-28116   (  28116) [000] .....   498.036800: sys_connect -> 0xffffffffffffff8d
       redis-cli-28116   (  28116) [000] .....   498.036807: sys_connect(fd: 3, uservaddr: 0x7f4309020020, addrlen: 0x10)
       redis-cli-28116   (  28116) [000] .....   498.036812: sys_connect -> 0x0"
    run cat "$R/redis-sleep.report"
    assert_line "    1. redis-cli/main [28116]: blocked 2.001 s in recvfrom on fd 3 (a socket it connected at"
    assert_line "       498.036807 s)"
    diagnose redis-script --proc redis-cli
    run sed -n 1,2p "$R/redis-script.report"
    assert_output "Verdict: redis-cli/main [2704] was blocked 2.004 s in recvfrom on fd 3 (a socket it connected at
813.573744 s), waiting on redis-server/main [2625], which was running 1.952 s on the CPU; no UI"
    diagnose cpu-starved --proc redis-cli
    run grep -A1 '^  Class:' "$R/cpu-starved.report"
    assert_output "  Class:     wait - blocked 2.121 s in recvfrom on fd 3 (a socket it connected at 790.506854 s),
             then woken; the last 1.820 s of it runnable (woken, waiting for a CPU)"
    diagnose pg-rowlock
    run grep -cE 'on fd [0-9]+ \(a ' "$R/pg-rowlock.report"
    assert_output 0
    run grep -c 'epoll_wait on fd 8' "$R/pg-rowlock.report"
    refute_output 0
}


# gtk3-sleep: the key handler of a GTK 3 app calls time.sleep(3); it wrote
# to Xvfb (an X request) before the sleep. The sleep ended timed_out.
@test "SPIN-SLEEP: a sleep its own timer ended is the sleeper's doing (gtk3-sleep)" {
    unpack gtk3-sleep
    diagnose gtk3-sleep
    run records gtk3-sleep 'select(.type == "wait_chain" and .hang == 0) | [.tids, .states, .end]'
    assert_output '[[7074],["blocked"],"timeout"]'
    run records gtk3-sleep 'select(.type == "culprit" and .hang == 0) | [.rank, .tid, .reason]'
    assert_output '[1,7074,"clock_nanosleep"]'
    run sed -n 1,2p "$R/gtk3-sleep.report"
    assert_output "Verdict: gtk-sleep-app/main [7074] slept 3.000 s in clock_nanosleep; the keyDown at 270.683002 s
started it. Culprit: gtk-sleep-app/main [7074] itself."
}

# wait-child: a python3 program named gz-waiter waits in os.waitpid
# (wait4) for its child gzip -9, which computes about 2.5 s.
@test "SPIN-IDLE: a named program's wait for its child is a hang (wait-child)" {
    unpack wait-child
    diagnose wait-child --proc gz-waiter
    run records wait-child 'select(.type == "hang") | [.hang, .tid, .reason]'
    assert_output '[0,9463,"wait4"]'
    run records wait-child 'select(.type == "wait_chain") | [.tids, .states, .end]'
    assert_output '[[9463,9473],["blocked","running"],"running"]'
    run records wait-child 'select(.type == "culprit" and .rank == 1) | .tid'
    assert_output 9473
    # the recording's command, it is a hang with no flag (DEC-LAUNCHED);
    # with the recorder's line gone nothing says so
    grep -v '^# recorded by' "$R/wait-child.txt" > "$R/wait-child-unknown.txt"
    diagnose wait-child-unknown
    run records wait-child-unknown 'select(.type == "hang" and .tid == 9463) | .hang'
    assert_output ''
}

# late-start: wait-child started by a shell that sleeps 1.5 s, then execs
# the waiter (pid 30971); the recorder (30970) released it 1.5 s before
# the hang and waits for its exit in ppoll all through it.
@test "DIFF-WAITER, SPIN-IDLE: a thread the hung one woke after is no culprit" {
    unpack late-start
    diagnose late-start --proc gz-waiter --baseline "$R/late-start.normal.txt"
    run records late-start 'select(.type == "hang") | [.hang, .tid, .reason]'
    assert_output '[0,30971,"wait4"]'
    run records late-start 'select(.type == "culprit") | [.rank, .tid, .state]'
    assert_output '[1,30973,"busy"]'
    # the recorder, on the baseline's path (its release woke the program
    # first), blocked in ppoll until the waiter's exit woke it
    run records late-start 'select(.type == "thread" and .tid == 30970) | .proc'
    assert_output '"argus-record"'
}

# gui-dbus: the app's GDBus worker, dbus-daemon and the service's GDBus
# worker only pass the call and its reply on; the service's main thread
# sleeps 3 s.
@test "DIFF-RELAY, SPIN-CRITICAL: relays are on the chain but no culprits (gui-dbus)" {
    unpack gui-dbus
    diagnose gui-dbus
    run records gui-dbus 'select(.type == "wait_chain" and .hang == 0) | .tids | length'
    assert_output 5
    run records gui-dbus 'select(.type == "culprit" and .hang == 0) | [.rank, .proc, .thread, .reason]'
    assert_output '[1,"slow-dbus-svc","slow-dbus-svc","clock_nanosleep"]'
    # no gap, no overlap, from the hang's window's start to its end
    run records gui-dbus 'select(.type == "critical_path" and .hang == 0) | [.steps as $s | range(1; $s | length) | select($s[.].from != $s[. - 1].to)] | length'
    assert_output 0
    run records gui-dbus 'select(.type == "critical_path" and .hang == 0) | [.steps[0].from, .steps[-1].to] as [$a, $b] | [$b - $a]'
    refute_output '[0]'
    run grep -m1 -A2 '^  Where the time went:' "$R/gui-dbus.report"
    assert_output --regexp '^  Where the time went:
    slow-dbus-svc/main \[[0-9]+\]: 3\.001 s \(99%\): 1\.3 ms running, 3\.000 s waiting out its own timer
      \(a sleep or a timeout\)$'
}

# gtk-idle: the key handler queues GLib.idle_add(a callback computing 3 s);
# the loop dispatches it right after the key's callouts, with no wait.
@test "SPIN-PATH: a source queued by a key handler steps back to the key (gtk-idle)" {
    unpack gtk-idle
    diagnose gtk-idle
    run records gtk-idle 'select(.type == "path" and .hang == 0 and .rank == 1) | [.complete, .ui_kind, .edge_kinds]'
    assert_output '[true,"keyDown",["thread","thread"]]'
    run sed -n 1,2p "$R/gtk-idle.report"
    assert_output "Verdict: gtk-idle-app/main [7482] ran 3.001 s on the CPU without blocking; the keyDown at
300.581223 s started it. Culprit: gtk-idle-app/main [7482] itself, busy in its own code."
}

# pipe-full and wait-child were recorded while a compile ran: with no flag
# its cat and grep, waiting on cc1 through pipes, were reported first.
# argus-record now writes the command's pid ("# argus-command: pid=N");
# these two were recorded before it did, and decode finds the same pid in
# their thread list (DEC-LAUNCHED).
@test "SPIN-ORDER, SPIN-IDLE, DEC-LAUNCHED: the launched command's hangs come first" {
    unpack pipe-full wait-child
    { echo '# argus-command: pid=16177'; cat "$R/pipe-full.txt"; } > "$R/pipe-full-launched.txt"
    run sh -c "argus-decode '$R/pipe-full-launched.txt' | argus-to-json | head -1 | jq -c .launched"
    assert_output 16177
    run sh -c "argus-decode '$R/pipe-full.txt' | argus-to-json | head -1 | jq -c .launched"
    assert_output 16177
    diagnose pipe-full-launched
    run records pipe-full-launched 'select(.type == "hang" and .hang == 0) | [.tid, .reason]'
    assert_output '[16177,"write"]'
    diagnose wait-child
    run records wait-child 'select(.type == "wait_chain" and .hang == 0) | [.tids, .end]'
    assert_output '[[9463,9473],"running"]'
}

# The same two recordings as if made with `argus record --pid` on the
# running program: without the recorder's line, no launched command is
# known; the focus line alone gives the same answers.
@test "DEC-FOCUS, SPIN-ORDER, SPIN-IDLE: a focused process is asked about first" {
    unpack pipe-full wait-child
    for n in pipe-full wait-child; do
        grep -v '^# recorded by argus-record' "$R/$n.txt" > "$R/$n-unknown.txt"
    done
    { echo '# argus-focus: pid=16177'; cat "$R/pipe-full-unknown.txt"; } > "$R/pipe-full-focus.txt"
    { echo '# argus-focus: pid=9463'; cat "$R/wait-child-unknown.txt"; } > "$R/wait-child-focus.txt"
    run sh -c "argus-decode '$R/pipe-full-focus.txt' | argus-to-json | head -1 | jq -c '[.launched, .focus]'"
    assert_output '[null,[16177]]'
    diagnose pipe-full-unknown
    run records pipe-full-unknown 'select(.type == "hang" and .hang == 0) | [.tid, .proc]'
    assert_output '[16168,"cc1"]'
    diagnose pipe-full-focus
    run records pipe-full-focus 'select(.type == "hang" and .hang == 0) | [.tid, .reason]'
    assert_output '[16177,"write"]'
    diagnose wait-child-unknown
    run records wait-child-unknown 'select(.type == "hang" and .tid == 9463)'
    assert_output ''
    diagnose wait-child-focus
    run records wait-child-focus 'select(.type == "hang" and .hang == 0) | [.tid, .reason]'
    assert_output '[9463,"wait4"]'
    run records wait-child-focus 'select(.type == "wait_chain" and .hang == 0) | [.tids, .end]'
    assert_output '[[9463,9473],"running"]'
}

# udp-timeout ran dig through `sh -c 'dig ... & wait'`: the launched sh
# waited (dash's wait: rt_sigsuspend, a "sleeping" wait) until dig's exit
# woke it. A shell passes the question on to the command it runs.
@test "SPIN-IDLE, SPIN-ORDER, DEC-PARENT: a launched shell's child wait is no hang" {
    unpack udp-timeout
    diagnose udp-timeout
    run records udp-timeout 'select(.type == "thread" and .tid == 27120 and .proc == "dig") | .parent'
    assert_output 27118
    run records udp-timeout 'select(.type == "hang" and .hang == 0) | [.tid, .proc]'
    assert_output '[27120,"dig"]'
    run records udp-timeout 'select(.type == "hang" and .tid == 27118)'
    assert_output ''
}

# midwait's recording ran `sleep 2.8` as its timer while redis-cli waited
# on a server's DEBUG SLEEP; sdl-busy's ran the key driver, which waited
# for the app's answer, while the SDL app computed 3 s.
@test "SPIN-ORDER: a lone timer sleep goes aside; a GUI main thread comes first" {
    unpack midwait sdl-busy
    diagnose midwait
    run records midwait 'select(.type == "hang" and .hang == 0) | [.tid, .proc]'
    assert_output '[1197,"redis-cli"]'
    run records midwait 'select(.type == "hang" and .tid == 1204) | [.reason, .result]'
    assert_output '["clock_nanosleep","timed_out"]'
    diagnose sdl-busy
    run records sdl-busy 'select(.type == "hang") | .tid'
    assert_line --index 0 18931
    refute_line 19114
    argus graph "$R/sdl-busy.txt" > "$R/sdl-busy.graph"
    run sh -c "argus-find-spinning -v '$R/sdl-busy.graph' 2>&1 >/dev/null | grep 'told in its place'"
    assert_output "argus-find-spinning: hangs waiting on a GUI program's hang, told in its place (SPIN-ORDER): 1"
}

# mmap-fault: a program touches 7000 random pages of a 1 GB file mapped
# from the disk; each major fault is a short uninterruptible wait with no
# system call, and none alone comes near the limit.
@test "SPIN-HANG, DIFF-RELAY: page faults in a row are one wait (mmap-fault)" {
    unpack mmap-fault
    diagnose mmap-fault --proc page-toucher
    run records mmap-fault 'select(.type == "hang") | [.hang, .tid, .class, .reason, .waits]'
    assert_output '[0,4234,"wait","disk",6807]'
    run records mmap-fault 'select(.type == "wait_chain") | [.tids, .end]'
    assert_output '[[4234],"io"]'
    run records mmap-fault 'select(.type == "culprit") | [.rank, .tid]'
    assert_output '[1,4234]'
    run sed -n 1,3p "$R/mmap-fault.report"
    assert_output "Verdict: page-toucher/main [4234] was blocked 1.701 s in uninterruptible disk waits (no system
call traced: page faults or I/O) until an interrupt (I/O) ended it; no UI event was found that led
to it. Culprit: page-toucher/main [4234] itself."
}

@test "SPIN-HOLDER: a thread throttled by its cgroup quota has no holder (cpu-quota)" {
    diagnose cpu-quota --proc cat
    run records cpu-quota 'select(.type == "wait_chain" and .hang == 0) | [.tids, .links, .states, .end]'
    assert_output '[[13217,13168],["wakeup"],["blocked","runnable"],"runnable"]'
    run records cpu-quota 'select(.type == "culprit" and .hang == 0 and .rank == 1) | [.tid, .state]'
    assert_output '[13168,"runnable"]'
}

@test "SPIN-DEADLOCK: a lock wait goes on to the blocked locker, a cycle (lock-cycle)" {
    diagnose lock-cycle --proc cycle-app
    run records lock-cycle 'select(.type == "wait_chain" and .hang == 0) | [.tids, .links, .states, .end]'
    assert_output '[[23559,23571],["deadlock"],["blocked","blocked"],"cycle"]'
    run records lock-cycle 'select(.type == "culprit" and .hang == 0 and .rank == 1) | [.tid, .state]'
    assert_output '[23571,"blocked"]'
}

@test "SPIN-YIELD: the yield loop's chain goes on to the thread it yielded to" {
    diagnose spin-yield --proc spin-waiter
    run records spin-yield 'select(.type == "wait_chain" and .hang == 0) | [.tids, .links, .states, .end]'
    assert_output '[[26167,26156],["yield"],["running","running"],"running"]'
    run records spin-yield 'select(.type == "culprit" and .hang == 0 and .rank == 1) | [.tid, .state]'
    assert_output '[26156,"busy"]'
}

@test "SPIN-ACCEPT: curl's connect goes on to the server's accept4 (tcp-backlog)" {
    diagnose tcp-backlog --proc curl
    run records tcp-backlog 'select(.type == "wait_chain" and .hang == 0) | [.tids, .links, .states, .end]'
    assert_output '[[3784,3721],["accept"],["blocked","blocked"],"timeout"]'
    run records tcp-backlog 'select(.type == "culprit" and .hang == 0 and .rank == 1) | .tid'
    assert_output 3721
}

# gtk-script: a GTK 3 app run as `/usr/bin/python3 .../gtkapp.py`, never
# renamed (comm python3), whose key handler waits on a threading.Event its
# worker sets after computing 2.5 s. shell-script: `bash ./hang.sh` (comm
# bash) waits in `read -t` on a fifo that reply-writer writes after a 2 s
# sleep. The user knows them as gtkapp.py and hang.sh: only their command
# lines (argus-record's `# argus-cmdline:` lines) say so.
@test "DEC-CMDLINE: a script's main thread record carries its command line (gtk-script, shell-script)" {
    unpack gtk-script shell-script
    run sh -c "argus-decode '$R/gtk-script.txt' | argus-to-json | jq -c 'select(.type == \"thread\" and (.tid == 16875 or .tid == 17225)) | [.tid, .proc, .main, .cmdline]'"
    assert_output '[16875,"python3",true,["/usr/bin/python3","/tmp/argus-gtk-script.jGDo9I/gtkapp.py","/tmp/argus-gtk-script.jGDo9I/done","/tmp/argus-gtk-script.jGDo9I/worker.tid"]]
[17225,"python3",null,null]'
    run sh -c "argus-decode '$R/shell-script.txt' | argus-to-json | jq -c 'select(.type == \"thread\" and .tid == 14653) | [.proc, .main, .cmdline]'"
    assert_output '["bash",true,["bash","./hang.sh"]]'
}

@test "SPIN-HANG: --proc gtkapp.py, gtkapp or python3 names python3 gtkapp.py (gtk-script)" {
    unpack gtk-script
    local name
    for name in gtkapp.py gtkapp python3; do
        diagnose gtk-script --proc "$name"
        run records gtk-script 'select(.type == "hang") | [.hang, .tid, .class, .reason]'
        assert_output '[0,16875,"wait","futex"]'
        run records gtk-script 'select(.type == "culprit" and .hang == 0 and .rank == 1) | [.tid, .state]'
        assert_output '[17225,"busy"]'
        run records gtk-script 'select(.type == "wait_chain" and .hang == 0) | [.tids, .end]'
        assert_output '[[16875,17225],"running"]'
    done
    run sed -n 1p "$R/gtk-script.report"
    assert_output "Verdict: python3/main [16875] was blocked 2.506 s in futex on 0x2acfef70, waiting on"
}

@test "SPIN-HANG: --proc hang.sh or hang names bash ./hang.sh, waiting on the writer (shell-script)" {
    unpack shell-script
    local name
    for name in hang.sh hang; do
        diagnose shell-script --proc "$name"
        run records shell-script 'select(.type == "hang") | [.hang, .tid, .class, .reason]'
        assert_output '[0,14653,"wait","pselect6"]'
        run records shell-script 'select(.type == "culprit" and .hang == 0 and .rank == 1) | [.tid, .reason]'
        assert_output '[14793,"clock_nanosleep"]'
        run records shell-script 'select(.type == "wait_chain" and .hang == 0) | [.tids, .end]'
        assert_output '[[14653,14793],"timeout"]'
    done
    run grep -c -x '  Command:   bash ./hang.sh' "$R/shell-script.report"
    assert_output 1
    # the normal run: the writer answered at once
    run argus diagnose --proc hang.sh "$R/shell-script.normal.txt"
    assert_line --index 0 "no hang found"
}

# clip-paste: a GTK 3 app's key handler pastes with
# Gtk.Clipboard.wait_for_text while the clipboard's owner, xclip, is
# stopped 2.5 s; the handler waits in a nested loop on the app's own GLib
# context (its diagnosis: tests/desktop.bats). Pinned here is what the
# graph holds: the key's callout with the nested loop's dispatches of the
# same context inside it, and the wakeups that bring the answer back
# (stall's SIGCONT -> xclip -> Xvfb -> the app).
@test "clip-paste: the key's callout holds the nested loop's dispatches, and the answer's wakeups" {
    unpack clip-paste
    argus graph "$R/clip-paste.txt" | argus-to-json > "$R/clip-paste.graph.json"
    run jq -c -s '[.[] | select(.tid == 13792 and .ts >= 242325000 and .ts <= 2618509000)]
        | [(map(select(.type == "runloop_invoke")) | [length, (map(.item) | unique), .[0].phase, .[-1].phase]),
           (map(select(.type == "ui_event")) | map([.kind, .key]))]' "$R/clip-paste.graph.json"
    assert_output '[[14,["0x27d547c0"],"begin","end"],[["keyDown",104],["keyUp",104]]]'
    run jq -c 'select(.type == "wakeup" and .ts >= 2603000000 and .ts <= 2605000000
        and (.target == 13785 or .target == 13747 or .target == 13792)) | [.tid, .target]' "$R/clip-paste.graph.json"
    assert_output '[13892,13785]
[13785,13747]
[13747,13792]'
}
