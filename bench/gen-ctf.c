/* bench/gen-ctf: writes a deterministic synthetic CTF 1.8 kernel trace in
 * LTTng's names (a directory: `metadata` and a stream file per CPU), and
 * with --text the ftrace text of the same events as tracefs would print
 * them, for measuring `argus-decode DIR` against the ftrace text decoder
 * on the same events (bench/run.sh, docs/inputs/ctf.md) and for checking
 * that both decode to one stream (tests/decode-ctf.bats).
 *
 * The events come from a small simulation: threads of a few processes on
 * CPUs, the statedump's process table first; each running thread reads
 * and writes (syscall_entry_read/exit), waits in futex (sched_switch with
 * prev_state 1, the CPU to another runnable thread or the idle task) until
 * another thread's futex wake (sched_waking, sched_wakeup) or an
 * interrupt's wakes it, is preempted (prev_state 0), and now and then an
 * event argus does not map (sched_stat_runtime). Like LTTng without
 * contexts, no event names its thread: the reader follows sched_switch.
 *
 * No libargus: this writes the input of a decoder. Memory is fixed after
 * start-up. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
    "Usage: gen-ctf [OPTIONS] DIR\n"
    "Write a deterministic synthetic CTF 1.8 kernel trace with LTTng's event\n"
    "names into DIR (made if needed): DIR/metadata and DIR/channel0_N per CPU.\n"
    "\n"
    "  -n, --events N   events after the statedump (default 1000000)\n"
    "  -c, --cpus N     CPUs, 1 to 64 (default 4)\n"
    "  -t, --threads N  threads, 2 to 4096 (default 64), in processes of 4\n"
    "  -s, --seed N     random seed (default 1)\n"
    "      --contexts   each event with LTTng's tid, pid and procname contexts\n"
    "                   (lttng add-context -k -t tid -t pid -t procname)\n"
    "      --text FILE  also the ftrace text of the same events (tracefs\n"
    "                   `trace` lines, the process table as argus-record's\n"
    "                   '# argus-thread:' lines)\n"
    "  -h, --help       show this help\n";

/* ---- Random numbers (xorshift64*) --------------------------------------- */

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}
static uint32_t below(uint32_t n) { return (uint32_t)(rnd() % n); }

/* ---- The metadata ------------------------------------------------------- */

enum { EV_SWITCH, EV_WAKING, EV_WAKEUP, EV_FUTEX_IN, EV_FUTEX_OUT, EV_READ_IN, EV_READ_OUT,
       EV_WRITE_IN, EV_WRITE_OUT, EV_STATEDUMP, EV_IRQ_IN, EV_IRQ_OUT, EV_RUNTIME };

static const char metadata[] =
    "/* CTF 1.8 */\n"
    "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
    "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
    "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
    "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
    "typealias integer { size = 64; align = 8; signed = false; base = 16; } := uint64_hex_t;\n"
    "typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
    "typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n"
    "trace {\n"
    "\tmajor = 1;\n\tminor = 8;\n\tbyte_order = le;\n"
    "\tpacket.header := struct { uint32_t magic; uint32_t stream_id; };\n"
    "};\n"
    "env {\n\thostname = \"gen-ctf\";\n\tdomain = \"kernel\";\n\tsysname = \"Linux\";\n"
    "\tkernel_release = \"6.1.0\";\n\ttracer_name = \"lttng-modules\";\n"
    "\ttracer_major = 2;\n\ttracer_minor = 13;\n};\n"
    "clock {\n\tname = \"monotonic\";\n\tdescription = \"Monotonic Clock\";\n"
    "\tfreq = 1000000000;\n\toffset = 0;\n};\n"
    "typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; }"
    " := uint64_clock_t;\n"
    "stream {\n\tid = 0;\n"
    "\tevent.header := struct { uint16_t id; uint64_clock_t timestamp; };\n"
    "\tpacket.context := struct { uint64_clock_t timestamp_begin; uint64_clock_t timestamp_end;"
    " uint64_t content_size; uint64_t packet_size; uint32_t cpu_id; };\n"
    "};\n"
    "event { name = \"sched_switch\"; id = 0; stream_id = 0; fields := struct { string prev_comm;"
    " int32_t prev_tid; int32_t prev_prio; int64_t prev_state; string next_comm; int32_t next_tid;"
    " int32_t next_prio; }; };\n"
    "event { name = \"sched_waking\"; id = 1; stream_id = 0; fields := struct { string comm;"
    " int32_t tid; int32_t prio; int32_t target_cpu; }; };\n"
    "event { name = \"sched_wakeup\"; id = 2; stream_id = 0; fields := struct { string comm;"
    " int32_t tid; int32_t prio; int32_t target_cpu; }; };\n"
    "event { name = \"syscall_entry_futex\"; id = 3; stream_id = 0; fields := struct {"
    " uint64_hex_t uaddr; int32_t op; uint32_t val; uint64_hex_t utime; uint64_hex_t uaddr2;"
    " uint32_t val3; }; };\n"
    "event { name = \"syscall_exit_futex\"; id = 4; stream_id = 0; fields := struct {"
    " int64_t ret; uint64_hex_t uaddr; uint64_hex_t uaddr2; }; };\n"
    "event { name = \"syscall_entry_read\"; id = 5; stream_id = 0; fields := struct {"
    " uint32_t fd; uint64_t count; }; };\n"
    "event { name = \"syscall_exit_read\"; id = 6; stream_id = 0; fields := struct {"
    " int64_t ret; uint64_hex_t buf; }; };\n"
    "event { name = \"syscall_entry_write\"; id = 7; stream_id = 0; fields := struct {"
    " uint32_t fd; uint64_hex_t buf; uint64_t count; }; };\n"
    "event { name = \"syscall_exit_write\"; id = 8; stream_id = 0; fields := struct {"
    " int64_t ret; }; };\n"
    "event { name = \"lttng_statedump_process_state\"; id = 9; stream_id = 0; fields := struct {"
    " int32_t tid; int32_t pid; int32_t ppid; string name; int32_t type; }; };\n"
    "event { name = \"irq_handler_entry\"; id = 10; stream_id = 0; fields := struct {"
    " int32_t irq; string name; }; };\n"
    "event { name = \"irq_handler_exit\"; id = 11; stream_id = 0; fields := struct {"
    " int32_t irq; int32_t ret; }; };\n"
    "event { name = \"sched_stat_runtime\"; id = 12; stream_id = 0; fields := struct {"
    " string comm; int32_t tid; uint64_t runtime; uint64_t vruntime; }; };\n";

/* ---- Streams: a packet per MiB ------------------------------------------ */

#define PACKET_MAX (1u << 20)
#define HEAD_BYTES (8 + 8 + 8 + 8 + 8 + 4)

typedef struct stream {
    FILE *f;
    uint32_t cpu;
    uint8_t buf[PACKET_MAX];
    size_t len;            /* bytes of events in buf, after the head */
    uint64_t first_ts, last_ts;
} stream;

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void flush_packet(stream *s)
{
    if (s->len == 0)
        return;
    uint8_t head[HEAD_BYTES];
    uint64_t bits = (uint64_t)(HEAD_BYTES + s->len) * 8;
    put_le(head, 0xc1fc1fc1u, 4);
    put_le(head + 4, 0, 4);
    put_le(head + 8, s->first_ts, 8);
    put_le(head + 16, s->last_ts, 8);
    put_le(head + 24, bits, 8);
    put_le(head + 32, bits, 8);
    put_le(head + 40, s->cpu, 4);
    if (fwrite(head, 1, sizeof head, s->f) != sizeof head || fwrite(s->buf, 1, s->len, s->f) != s->len) {
        perror("gen-ctf: write");
        exit(1);
    }
    s->len = 0;
}

/* An event being written: its bytes after the header. */
static uint8_t ev[4096];
static size_t ev_len;
static bool contexts;      /* --contexts */
static int *current;       /* per cpu: a task index, -1 the idle task */
static void ev_int(uint64_t v, int bytes) { put_le(ev + ev_len, v, bytes); ev_len += (size_t)bytes; }
static void ev_str(const char *s)
{
    size_t n = strlen(s) + 1;
    memcpy(ev + ev_len, s, n);
    ev_len += n;
}

typedef struct task task;
static void context_of(int cpu, uint8_t *out, size_t *len);

static void emit(stream *s, uint16_t id, uint64_t ts)
{
    uint8_t ctx[64];
    size_t ctx_len = 0;
    if (contexts)
        context_of((int)s->cpu, ctx, &ctx_len);
    if (HEAD_BYTES + s->len + 10 + ctx_len + ev_len > PACKET_MAX)
        flush_packet(s);
    if (s->len == 0)
        s->first_ts = ts;
    put_le(s->buf + s->len, id, 2);
    put_le(s->buf + s->len + 2, ts, 8);
    memcpy(s->buf + s->len + 10, ctx, ctx_len);
    memcpy(s->buf + s->len + 10 + ctx_len, ev, ev_len);
    s->len += 10 + ctx_len + ev_len;
    s->last_ts = ts;
    ev_len = 0;
}

/* ---- The simulation ------------------------------------------------------ */

enum { RUNNING, RUNNABLE, ASLEEP };

struct task {
    int tid, pid, state, cpu;
    char comm[16];
    uint64_t futex;        /* the word it waits on */
};

static task *tasks;
static int ntasks;
static stream *streams;
static int ncpus;
static FILE *text;
static uint64_t now = 1000000000000ull;

static const char *comm_of(int t) { return t < 0 ? "swapper" : tasks[t].comm; }
static int tid_of(int t) { return t < 0 ? 0 : tasks[t].tid; }

/* LTTng's contexts of an event on CPU: its current task's tid, pid and
 * name (the statedump's events are the session daemon's, tid 1). */
static void context_of(int cpu, uint8_t *out, size_t *len)
{
    int t = current ? current[cpu] : -1;
    put_le(out, (uint64_t)tid_of(t), 4);
    put_le(out + 4, (uint64_t)(t < 0 ? 0 : tasks[t].pid), 4);
    size_t n = strlen(comm_of(t)) + 1;
    memcpy(out + 8, comm_of(t), n);
    *len = 8 + n;
}

/* The tracefs line's head for CPU's current task. */
static void text_head(int cpu, const char *event)
{
    int t = current[cpu];
    fprintf(text, "%16s-%-7d (%7d) [%03d] %llu.%09llu: %s: ", t < 0 ? "<idle>" : tasks[t].comm,
            tid_of(t), t < 0 ? 0 : tasks[t].pid, cpu, (unsigned long long)(now / 1000000000u),
            (unsigned long long)(now % 1000000000u), event);
}

static void sched_switch(int cpu, int next, int state)
{
    int prev = current[cpu];
    ev_str(comm_of(prev));
    ev_int((uint64_t)tid_of(prev), 4);
    ev_int(120, 4);
    ev_int((uint64_t)state, 8);
    ev_str(comm_of(next));
    ev_int((uint64_t)tid_of(next), 4);
    ev_int(120, 4);
    emit(&streams[cpu], EV_SWITCH, now);
    if (text) {
        text_head(cpu, "sched_switch");
        fprintf(text, "prev_comm=%s prev_pid=%d prev_prio=120 prev_state=%s ==> next_comm=%s "
                "next_pid=%d next_prio=120\n", comm_of(prev), tid_of(prev),
                state == 1 ? "S" : "R", comm_of(next), tid_of(next));
    }
    if (prev >= 0)
        tasks[prev].state = state == 1 ? ASLEEP : RUNNABLE;
    if (next >= 0) {
        tasks[next].state = RUNNING;
        tasks[next].cpu = cpu;
    }
    current[cpu] = next;
}

static void wake(int cpu, int t)
{
    for (int k = 0; k < 2; k++) {
        ev_str(tasks[t].comm);
        ev_int((uint64_t)tasks[t].tid, 4);
        ev_int(120, 4);
        ev_int((uint64_t)cpu, 4);
        emit(&streams[cpu], k ? EV_WAKEUP : EV_WAKING, now);
        if (text) {
            text_head(cpu, k ? "sched_wakeup" : "sched_waking");
            fprintf(text, "comm=%s pid=%d prio=120 target_cpu=%03d\n", tasks[t].comm, tasks[t].tid,
                    cpu);
        }
        now += 300 + below(400);
    }
    tasks[t].state = RUNNABLE;
}

/* A runnable task not running, or -1. */
static int pick_runnable(void)
{
    int start = (int)below((uint32_t)ntasks);
    for (int i = 0; i < ntasks; i++) {
        int t = (start + i) % ntasks;
        if (tasks[t].state == RUNNABLE)
            return t;
    }
    return -1;
}

static int pick_asleep(uint64_t futex)
{
    int start = (int)below((uint32_t)ntasks);
    for (int i = 0; i < ntasks; i++) {
        int t = (start + i) % ntasks;
        if (tasks[t].state == ASLEEP && (!futex || tasks[t].futex == futex))
            return t;
    }
    return -1;
}

static void syscall_pair(int cpu, int t, bool is_read)
{
    uint32_t fd = 3 + (uint32_t)(t % 5);
    if (is_read) {
        ev_int(fd, 4);
        ev_int(4096, 8);
        emit(&streams[cpu], EV_READ_IN, now);
        if (text) {
            text_head(cpu, "sys_enter_read");
            fprintf(text, "fd: 0x%x, count: 0x1000\n", fd);
        }
    } else {
        ev_int(fd, 4);
        ev_int(0x7f0000001000ull, 8);
        ev_int(64, 8);
        emit(&streams[cpu], EV_WRITE_IN, now);
        if (text) {
            text_head(cpu, "sys_enter_write");
            fprintf(text, "fd: 0x%x, buf: 0x7f0000001000, count: 0x40\n", fd);
        }
    }
    now += 500 + below(2000);
    ev_int(64, 8);
    if (is_read)
        ev_int(0x7f0000002000ull, 8);
    emit(&streams[cpu], is_read ? EV_READ_OUT : EV_WRITE_OUT, now);
    if (text) {
        text_head(cpu, is_read ? "sys_exit_read" : "sys_exit_write");
        fprintf(text, "0x40\n");
    }
}

static void futex_enter(int cpu, uint64_t uaddr, int op)
{
    ev_int(uaddr, 8);
    ev_int((uint64_t)op, 4);
    ev_int(1, 4);
    ev_int(0, 8);
    ev_int(0, 8);
    ev_int(0, 4);
    emit(&streams[cpu], EV_FUTEX_IN, now);
    if (text) {
        text_head(cpu, "sys_enter_futex");
        fprintf(text, "uaddr: 0x%llx, op: 0x%x, val: 0x1, utime: 0x0, uaddr2: 0x0, val3: 0x0\n",
                (unsigned long long)uaddr, op);
    }
}

static void futex_exit(int cpu, uint64_t uaddr, int64_t ret)
{
    ev_int((uint64_t)ret, 8);
    ev_int(uaddr, 8);
    ev_int(0, 8);
    emit(&streams[cpu], EV_FUTEX_OUT, now);
    if (text) {
        text_head(cpu, "sys_exit_futex");
        fprintf(text, "0x%llx\n", (unsigned long long)ret);
    }
}

/* Runs NEXT (or the idle task) on CPU; a task back from a futex wait
 * returns from it first. */
static void switch_to(int cpu, int next, int state)
{
    sched_switch(cpu, next, state);
    if (next >= 0 && tasks[next].futex) {
        now += 200 + below(300);
        futex_exit(cpu, tasks[next].futex, 0);
        tasks[next].futex = 0;
    }
}

static void step(int cpu, int64_t *left)
{
    int t = current[cpu];
    now += 100 + below(3000);
    if (t < 0) {
        int r = pick_runnable();
        if (r < 0 && (r = pick_asleep(0)) >= 0 && below(4) == 0) {
            /* an interrupt wakes it */
            ev_int(30, 4);
            ev_str("eth0");
            emit(&streams[cpu], EV_IRQ_IN, now);
            if (text) {
                text_head(cpu, "irq_handler_entry");
                fprintf(text, "irq=30 name=eth0\n");
            }
            wake(cpu, r);
            ev_int(30, 4);
            ev_int(1, 4);
            emit(&streams[cpu], EV_IRQ_OUT, now);
            if (text) {
                text_head(cpu, "irq_handler_exit");
                fprintf(text, "irq=30 ret=handled\n");
            }
            *left -= 4;
        }
        if (r >= 0 && tasks[r].state == RUNNABLE) {
            switch_to(cpu, r, 0);
            *left -= 1 + (tasks[r].futex != 0);
        }
        return;
    }
    uint32_t what = below(100);
    uint64_t word = 0x7f0000100000ull + (uint64_t)(tasks[t].pid % 8) * 64;
    if (what < 45) {
        syscall_pair(cpu, t, what < 25);
        *left -= 2;
    } else if (what < 65) {
        /* a futex wait: off the CPU until a wake */
        futex_enter(cpu, word, 0x80);
        tasks[t].futex = word;
        now += 300;
        int next = pick_runnable();
        switch_to(cpu, next, 1);
        *left -= 3;
    } else if (what < 85) {
        /* a futex wake of a thread waiting on the word */
        futex_enter(cpu, word, 0x81);
        int w = pick_asleep(word);
        if (w >= 0)
            wake(cpu, w);
        now += 300;
        futex_exit(cpu, word, w >= 0);
        *left -= 2 + (w >= 0 ? 2 : 0);
    } else if (what < 95) {
        int next = pick_runnable();
        if (next >= 0) {
            switch_to(cpu, next, 0);
            *left -= 1;
        }
    } else {
        uint64_t runtime = below(1000000), vruntime = rnd() >> 20;
        ev_str(tasks[t].comm);
        ev_int((uint64_t)tasks[t].tid, 4);
        ev_int(runtime, 8);
        ev_int(vruntime, 8);
        emit(&streams[cpu], EV_RUNTIME, now);
        if (text) {
            text_head(cpu, "sched_stat_runtime");
            fprintf(text, "comm=%s pid=%d runtime=%llu vruntime=%llu\n", tasks[t].comm,
                    tasks[t].tid, (unsigned long long)runtime, (unsigned long long)vruntime);
        }
        *left -= 1;
    }
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"events", required_argument, 0, 'n'}, {"cpus", required_argument, 0, 'c'},
        {"threads", required_argument, 0, 't'}, {"seed", required_argument, 0, 's'},
        {"text", required_argument, 0, 'T'},   {"help", no_argument, 0, 'h'},
        {"contexts", no_argument, 0, 'C'},
        {0, 0, 0, 0},
    };
    uint64_t events = 1000000, seed = 1;
    long cpus = 4, threads = 64;
    const char *text_path = NULL;
    int c;
    while ((c = getopt_long(argc, argv, "n:c:t:s:h", opts, NULL)) != -1) {
        switch (c) {
        case 'n': events = strtoull(optarg, NULL, 10); break;
        case 'c': cpus = strtol(optarg, NULL, 10); break;
        case 't': threads = strtol(optarg, NULL, 10); break;
        case 's': seed = strtoull(optarg, NULL, 10); break;
        case 'T': text_path = optarg; break;
        case 'C': contexts = true; break;
        case 'h': fputs(usage, stdout); return 0;
        default: fputs(usage, stderr); return 64;
        }
    }
    if (optind != argc - 1 || cpus < 1 || cpus > 64 || threads < 2 || threads > 4096) {
        fputs(usage, stderr);
        return 64;
    }
    const char *dir = argv[optind];
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        perror(dir);
        return 73;
    }
    rng_state = seed * 0x9e3779b97f4a7c15ull + 1;
    ncpus = (int)cpus;
    ntasks = (int)threads;
    tasks = calloc((size_t)ntasks, sizeof *tasks);
    streams = calloc((size_t)ncpus, sizeof *streams);
    current = calloc((size_t)ncpus, sizeof *current);
    if (!tasks || !streams || !current)
        abort();
    char path[4096];
    snprintf(path, sizeof path, "%s/metadata", dir);
    FILE *m = fopen(path, "w");
    /* the contexts as LTTng declares them: names with an underscore */
    static const char context[] =
        "stream {\n\tid = 0;\n"
        "\tevent.context := struct { int32_t _tid; int32_t _pid; string _procname; };\n";
    const char *stream_at = strstr(metadata, "stream {\n\tid = 0;\n");
    size_t before = (size_t)(stream_at - metadata);
    if (!m || fwrite(metadata, 1, before, m) != before ||
        fputs(contexts ? context : "stream {\n\tid = 0;\n", m) < 0 ||
        fputs(stream_at + sizeof "stream {\n\tid = 0;\n" - 1, m) < 0 || fclose(m) != 0) {
        perror(path);
        return 73;
    }
    for (int i = 0; i < ncpus; i++) {
        snprintf(path, sizeof path, "%s/channel0_%d", dir, i);
        streams[i].f = fopen(path, "wb");
        streams[i].cpu = (uint32_t)i;
        if (!streams[i].f) {
            perror(path);
            return 73;
        }
        current[i] = -1;
    }
    if (text_path && !(text = fopen(text_path, "w"))) {
        perror(text_path);
        return 73;
    }
    static const char *const names[] = {"firefox", "Xorg", "pulseaudio", "gnome-shell",
                                        "dbus-daemon", "Web Content", "code", "bash"};
    for (int i = 0; i < ntasks; i++) {
        tasks[i].tid = 1000 + i;
        tasks[i].pid = 1000 + i / 4 * 4;
        tasks[i].state = RUNNABLE;
        snprintf(tasks[i].comm, sizeof tasks[i].comm, "%s", names[(i / 4) % 8]);
    }
    /* the statedump, on cpu 0, and its lines */
    for (int i = 0; i < ntasks; i++) {
        ev_int((uint64_t)tasks[i].tid, 4);
        ev_int((uint64_t)tasks[i].pid, 4);
        ev_int(1, 4);
        ev_str(tasks[i].comm);
        ev_int(0, 4);
        emit(&streams[0], EV_STATEDUMP, now);
        now += 100;
        if (text)
            fprintf(text, "# argus-thread: tid=%d tgid=%d kernel=0%s comm=%s\n", tasks[i].tid,
                    tasks[i].pid, tasks[i].tid == tasks[i].pid ? " ppid=1" : "", tasks[i].comm);
    }
    int64_t left = (int64_t)events; /* a step writes a few events */
    while (left > 0)
        step((int)below((uint32_t)ncpus), &left);
    for (int i = 0; i < ncpus; i++) {
        flush_packet(&streams[i]);
        if (fclose(streams[i].f) != 0) {
            perror("gen-ctf: close");
            return 74;
        }
    }
    if (text && fclose(text) != 0) {
        perror(text_path);
        return 74;
    }
    free(tasks);
    free(streams);
    free(current);
    return 0;
}
