/* argus-record: --watch, writes and reads of a shared flag seen by
 * hardware watchpoints (perf breakpoint events), with the value read at
 * the access by a BPF program (or, where the kernel refuses, when the
 * perf ring is drained), written as argus_flag_write/read lines. */
#include "record.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* Resolves watch W in process PID: its address, length and name. A
 * symbol not found is an error when MUST, else false. */
bool resolve_watch(struct watch *w, pid_t pid, bool must)
{
    struct maps maps;
    if (!read_maps(pid, &maps))
        argus_die(ARGUS_EX_USAGE, "--watch %s: no process %d (%s)", w->spec, (int)pid,
                  strerror(errno));
    struct symbol_hit hit;
    if (w->symbol) {
        bool found = find_symbol(pid, &maps, w->symbol, 0, &hit);
        if (!found && !must) {
            free_maps(&maps);
            return false;
        }
        if (!found && w->of_command)
            argus_die(ARGUS_EX_USAGE,
                      "--watch %s: no symbol '%s' in the ELF symbol tables of the files %s maps (process %d, after its dynamic linker ran)",
                      w->spec, w->symbol, rec.opt.cmd[0], (int)pid);
        if (!found)
            argus_die(ARGUS_EX_USAGE,
                      "--watch %s: no symbol '%s' in the ELF symbol tables of process %d's mapped files",
                      w->spec, w->symbol, (int)pid);
        if (hit.tls)
            argus_die(ARGUS_EX_USAGE, "--watch %s: '%s' is thread-local; watch one thread's copy by address",
                      w->spec, w->symbol);
        if (hit.size != 1 && hit.size != 2 && hit.size != 4 && hit.size != 8)
            argus_die(ARGUS_EX_USAGE,
                      "--watch %s: '%s' in %s is %llu bytes; a watchpoint covers 1, 2, 4 or 8 (watch 0xADDR@PID of one field)",
                      w->spec, w->symbol, hit.file, (unsigned long long)hit.size);
        w->addr = hit.addr;
        w->len = (unsigned)hit.size;
        w->name = argus_xstrdup(w->symbol, "--watch names");
    } else {
        if (find_symbol(pid, &maps, NULL, w->addr, &hit) &&
            (hit.size == 1 || hit.size == 2 || hit.size == 4 || hit.size == 8)) {
            w->len = (unsigned)hit.size;
            w->name = argus_xstrdup(hit.name, "--watch names");
        } else {
            /* no symbol starts there: the widest aligned length */
            w->len = w->addr % 8 == 0 ? 8 : w->addr % 4 == 0 ? 4 : w->addr % 2 == 0 ? 2 : 1;
            char hex[sizeof "0x" + 16];
            snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)w->addr);
            w->name = argus_xstrdup(hex, "--watch names");
        }
    }
    if (w->addr % w->len)
        argus_die(ARGUS_EX_USAGE, "--watch %s: 0x%llx is not aligned to its %u bytes (hardware watchpoints need it)",
                  w->spec, (unsigned long long)w->addr, w->len);
    bool mapped = false;
    for (size_t m = 0; m < maps.n && !mapped; m++)
        mapped = w->addr >= maps.v[m].start && w->addr + w->len <= maps.v[m].end;
    free_maps(&maps);
    if (!mapped)
        argus_die(ARGUS_EX_USAGE, "--watch %s: 0x%llx is not mapped in process %d", w->spec,
                  (unsigned long long)w->addr, (int)pid);
    w->pid = pid;
    return true;
}

static int perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
    return (int)syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static long sys_bpf(int cmd, union bpf_attr *a)
{
    return syscall(SYS_bpf, cmd, a, sizeof *a);
}

/* An mmap'ed perf ring buffer. */
struct ring {
    int fd;
    struct perf_event_mmap_page *meta;
    uint8_t *data;
    size_t size; /* data part, a power of two */
    int cpu;
};

static bool ring_map(struct ring *r, size_t pages)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *p = mmap(NULL, (pages + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
    if (p == MAP_FAILED)
        return false;
    r->meta = p;
    r->data = (uint8_t *)p + page;
    r->size = pages * page;
    return true;
}

/* One access seen by a watchpoint. */
struct hit {
    uint64_t ts, ip, value;
    uint32_t tid, tgid;
    uint16_t cpu, watch;
    uint8_t rw;        /* from the RW breakpoint (else the W one) */
    uint8_t has_value;
    uint8_t paired;    /* 1: the second of a W+RW pair (not written); 2: the first */
    char comm[16];
};

/* Which watch and kind a breakpoint event is (drain mode's samples carry
 * the event id; inherited events report their parent's). */
struct bp_event {
    int fd;
    uint64_t id;
    uint16_t watch;
    uint8_t rw;
};

/* The watchpoints' state. */
static struct {
    bool bpf;                 /* values read at the access (else at drain) */
    struct ring *rings;       /* one per CPU */
    size_t n_rings;
    struct bp_event *bps;     /* every breakpoint event */
    size_t n_bp;
    int map_fd;               /* BPF: the perf event array of the rings */
    struct hit *hits;         /* every access seen, sorted by watch_finish */
    size_t n_hits, cap_hits;
    size_t next_hit;          /* the first not written yet */
    uint64_t lost, dropped;   /* lost by the rings, dropped past MAX_HITS */
    /* drain mode: the comm of watch-hit threads, read from /proc when
     * first seen (they may be gone by the end) */
    struct thread_list hit_threads;
} wp = {.map_fd = -1};

#define MAX_HITS (2u << 20) /* 2M accesses, 112 MB */

static void add_ring(struct ring r)
{
    wp.rings = argus_xrealloc(wp.rings, (wp.n_rings + 1) * sizeof *wp.rings, "watchpoint rings");
    wp.rings[wp.n_rings++] = r;
}

/* Undoes a half-made BPF setup (drain mode makes rings of its own). */
static void drop_rings(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < wp.n_rings; i++) {
        munmap(wp.rings[i].meta, wp.rings[i].size + page);
        close(wp.rings[i].fd);
    }
    wp.n_rings = 0;
    if (wp.map_fd >= 0)
        close(wp.map_fd);
    wp.map_fd = -1;
}

static struct hit *new_hit(void)
{
    if (wp.n_hits == wp.cap_hits) {
        if (wp.n_hits >= MAX_HITS) {
            wp.dropped++;
            return NULL;
        }
        wp.cap_hits = wp.cap_hits ? wp.cap_hits * 2 : 1024;
        wp.hits = argus_xrealloc(wp.hits, wp.cap_hits * sizeof *wp.hits, "watchpoint hits");
    }
    struct hit *h = &wp.hits[wp.n_hits++];
    memset(h, 0, sizeof *h);
    return h;
}

/* Drain mode: the comm of thread TID, from /proc when first seen. */
static const char *hit_thread_comm(uint32_t tgid, uint32_t tid)
{
    struct thread_list *seen = &wp.hit_threads;
    for (size_t i = seen->n; i-- > 0;)
        if (seen->v[i].tid == (int)tid)
            return seen->v[i].comm;
    struct thread_info t = {.tid = (int)tid, .tgid = (int)tgid};
    if (!read_thread((int)tgid, (int)tid, &t))
        t.comm[0] = 0;
    if (seen->n == seen->cap) {
        seen->cap = seen->cap ? seen->cap * 2 : 16;
        seen->v = argus_xrealloc(seen->v, seen->cap * sizeof *seen->v, "thread table");
    }
    seen->v[seen->n] = t;
    return seen->v[seen->n++].comm;
}

/* The record BPF writes (the program below lays it out on its stack). */
struct bpf_record {
    uint64_t ts, pid_tgid, ip, value, kind; /* kind: watch << 1 | rw */
    uint32_t cpu;
    int32_t read_err;
    char comm[16];
};

static const struct bp_event *bp_by_id(uint64_t id)
{
    for (size_t i = 0; i < wp.n_bp; i++)
        if (wp.bps[i].id == id)
            return &wp.bps[i];
    return NULL;
}

static void on_sample(const uint8_t *sample, size_t len)
{
    if (wp.bpf) {
        /* PERF_SAMPLE_RAW: u32 size, then the record */
        uint32_t raw;
        struct bpf_record b;
        if (len < 4 + sizeof b)
            return;
        memcpy(&raw, sample, 4);
        if (raw < sizeof b)
            return;
        memcpy(&b, sample + 4, sizeof b);
        if ((b.kind >> 1) >= rec.opt.n_watches)
            return;
        struct hit *h = new_hit();
        if (!h)
            return;
        h->ts = b.ts;
        h->tgid = (uint32_t)(b.pid_tgid >> 32);
        h->tid = (uint32_t)b.pid_tgid;
        h->ip = b.ip;
        h->cpu = (uint16_t)b.cpu;
        h->watch = (uint16_t)(b.kind >> 1);
        h->rw = b.kind & 1;
        h->has_value = b.read_err == 0;
        h->value = b.value;
        memcpy(h->comm, b.comm, sizeof h->comm);
        h->comm[sizeof h->comm - 1] = 0;
        return;
    }
    /* IDENTIFIER, IP, TID (pid, tid), TIME, CPU (cpu, res): the order of
     * the sample_type bits */
    struct {
        uint64_t id, ip;
        uint32_t pid, tid;
        uint64_t time;
        uint32_t cpu, res;
    } s;
    if (len < sizeof s)
        return;
    memcpy(&s, sample, sizeof s);
    const struct bp_event *bp = bp_by_id(s.id);
    if (!bp)
        return;
    struct hit *h = new_hit();
    if (!h)
        return;
    const struct watch *w = &rec.opt.watches[bp->watch];
    h->ts = s.time;
    h->tgid = s.pid;
    h->tid = s.tid;
    h->ip = s.ip;
    h->cpu = (uint16_t)s.cpu;
    h->watch = bp->watch;
    h->rw = bp->rw;
    /* the value now, at drain time: maybe later than the access */
    uint64_t v = 0;
    struct iovec local = {&v, w->len}, remote = {(void *)(uintptr_t)w->addr, w->len};
    h->has_value = process_vm_readv((pid_t)s.pid, &local, 1, &remote, 1, 0) == (ssize_t)w->len;
    h->value = v;
    /* comm: at most 15 characters, like the kernel's */
    const char *comm = hit_thread_comm(h->tgid, h->tid);
    memcpy(h->comm, comm, strnlen(comm, sizeof h->comm - 1));
}

static void drain_ring(struct ring *r)
{
    uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = r->meta->data_tail;
    uint8_t buf[512];
    while (tail < head) {
        struct perf_event_header eh;
        size_t off = (size_t)(tail & (r->size - 1));
        for (size_t i = 0; i < sizeof eh; i++)
            ((uint8_t *)&eh)[i] = r->data[(off + i) & (r->size - 1)];
        if (eh.size < sizeof eh || eh.size > head - tail)
            break;
        size_t len = eh.size - sizeof eh;
        if (len <= sizeof buf) {
            for (size_t i = 0; i < len; i++)
                buf[i] = r->data[(off + sizeof eh + i) & (r->size - 1)];
            if (eh.type == PERF_RECORD_SAMPLE)
                on_sample(buf, len);
            else if (eh.type == PERF_RECORD_LOST && len >= 16) {
                uint64_t lost;
                memcpy(&lost, buf + 8, 8);
                wp.lost += lost;
            }
        }
        tail += eh.size;
    }
    __atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
}

/* Where struct bpf_perf_event_data's regs hold the ip. */
#if defined(__x86_64__)
#define PT_REGS_IP_OFFSET (16 * 8) /* pt_regs: 16 registers, then ip */
#elif defined(__aarch64__)
#define PT_REGS_IP_OFFSET (32 * 8) /* user_pt_regs: regs[31], sp, then pc */
#else
#error "argus-record: the ip offset in pt_regs of this architecture"
#endif

#define INSN(op, dst, src, off_, imm_) \
    ((struct bpf_insn){.code = (op), .dst_reg = (dst), .src_reg = (src), .off = (off_), .imm = (imm_)})

/* Loads the program that runs at each hit of watch W's breakpoint (RW or
 * W): it reads the flag right after the access (x86 data breakpoints trap
 * after the instruction) and sends a struct bpf_record to the perf ring
 * of its CPU. Returns the fd, or -1 with errno. */
static int load_program(const struct watch *w, unsigned index, bool rw, char *log, size_t log_size)
{
    uint64_t kind = (uint64_t)index << 1 | rw;
    /* struct bpf_record at r10 - 64: ts -64, pid_tgid -56, ip -48,
     * value -40, kind -32, cpu -24, read_err -20, comm -16 */
    struct bpf_insn prog[] = {
        INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_6, BPF_REG_1, 0, 0),   /* r6 = ctx */
        INSN(BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_7, BPF_REG_6, PT_REGS_IP_OFFSET, 0),
        INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_current_pid_tgid),
        INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_10, BPF_REG_0, -56, 0),
        INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ktime_get_ns),       /* = mono */
        INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_10, BPF_REG_0, -64, 0),
        INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_10, BPF_REG_7, -48, 0),
        INSN(BPF_ST | BPF_MEM | BPF_DW, BPF_REG_10, 0, -40, 0),
        INSN(BPF_ST | BPF_MEM | BPF_DW, BPF_REG_10, 0, -32, (int32_t)kind),
        INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_smp_processor_id),
        INSN(BPF_STX | BPF_MEM | BPF_W, BPF_REG_10, BPF_REG_0, -24, 0),
        INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_10, 0, 0),
        INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_1, 0, 0, -16),
        INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, 16),
        INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_current_comm),
        INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_10, 0, 0),
        INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_1, 0, 0, -40),
        INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, (int32_t)w->len),
        INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_3, 0, 0, (int32_t)(uint32_t)w->addr),
        INSN(0, 0, 0, 0, (int32_t)(uint32_t)(w->addr >> 32)),
        INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_probe_read_user),
        INSN(BPF_STX | BPF_MEM | BPF_W, BPF_REG_10, BPF_REG_0, -20, 0),
        INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_6, 0, 0),
        INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_2, BPF_PSEUDO_MAP_FD, 0, wp.map_fd),
        INSN(0, 0, 0, 0, 0),
        INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_3, 0, 0, (int32_t)(uint32_t)BPF_F_CURRENT_CPU),
        INSN(0, 0, 0, 0, 0),
        INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_4, BPF_REG_10, 0, 0),
        INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_4, 0, 0, -64),
        INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_5, 0, 0, (int32_t)sizeof(struct bpf_record)),
        INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_perf_event_output),
        /* 0: the breakpoint's own sample is not written anywhere */
        INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
        INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
    };
    union bpf_attr a;
    memset(&a, 0, sizeof a);
    a.prog_type = BPF_PROG_TYPE_PERF_EVENT;
    a.insns = (uint64_t)(uintptr_t)prog;
    a.insn_cnt = sizeof prog / sizeof *prog;
    /* the helpers probe_read_user and perf_event_output are for
     * GPL-compatible programs only; this one is ours, dual-licensed */
    a.license = (uint64_t)(uintptr_t)"Dual MIT/GPL";
    a.log_buf = (uint64_t)(uintptr_t)log;
    a.log_size = (uint32_t)log_size;
    a.log_level = log ? 1 : 0;
    if (log)
        log[0] = 0;
    return (int)sys_bpf(BPF_PROG_LOAD, &a);
}

static int cpu_count(const char *file)
{
    char buf[256];
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    /* "0-3,5": the highest CPU + 1 */
    int max = -1;
    for (char *p = buf; *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p)
            break;
        if (v > max)
            max = (int)v;
        p = end;
        while (*p == '-' || *p == ',' || *p == '\n')
            p++;
    }
    return max + 1;
}

static bool cpu_online(int cpu)
{
    char buf[256];
    int fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return true;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return true;
    buf[n] = 0;
    for (char *p = buf; *p;) {
        char *end;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p)
            break;
        p = end;
        if (*p == '-') {
            hi = strtol(p + 1, &end, 10);
            p = end;
        }
        if (cpu >= lo && cpu <= hi)
            return true;
        while (*p == ',' || *p == '\n')
            p++;
    }
    return false;
}

/* Sets up exact values: a BPF perf-event-array map with a bpf-output
 * event and its ring on each CPU. False (with a reason) when the kernel
 * refuses; then values are read at drain time. */
static bool setup_bpf(char *why, size_t why_size)
{
    const char *mode = getenv("ARGUS_RECORD_WATCH_VALUES");
    if (mode && strcmp(mode, "drain") == 0) {
        snprintf(why, why_size, "ARGUS_RECORD_WATCH_VALUES=drain");
        return false;
    }
    int ncpu = cpu_count("/sys/devices/system/cpu/possible");
    if (ncpu <= 0) {
        snprintf(why, why_size, "no CPU count in /sys/devices/system/cpu/possible");
        return false;
    }
    union bpf_attr a;
    memset(&a, 0, sizeof a);
    a.map_type = BPF_MAP_TYPE_PERF_EVENT_ARRAY;
    a.key_size = 4;
    a.value_size = 4;
    a.max_entries = (uint32_t)ncpu;
    a.map_flags = 0;
    wp.map_fd = (int)sys_bpf(BPF_MAP_CREATE, &a);
    if (wp.map_fd < 0) {
        snprintf(why, why_size, "BPF map: %s", strerror(errno));
        return false;
    }
    /* the program must load before rings are worth making */
    struct watch probe = {.addr = 0x1000, .len = 8};
    int fd = load_program(&probe, 0, false, NULL, 0);
    if (fd < 0) {
        snprintf(why, why_size, "BPF program: %s", strerror(errno));
        close(wp.map_fd);
        wp.map_fd = -1;
        return false;
    }
    close(fd);
    for (int cpu = 0; cpu < ncpu; cpu++) {
        if (!cpu_online(cpu))
            continue;
        struct perf_event_attr pa;
        memset(&pa, 0, sizeof pa);
        pa.size = sizeof pa;
        pa.type = PERF_TYPE_SOFTWARE;
        pa.config = PERF_COUNT_SW_BPF_OUTPUT;
        pa.sample_type = PERF_SAMPLE_RAW;
        pa.sample_period = 1;
        pa.watermark = 1;
        pa.wakeup_watermark = 64 * 1024; /* a quarter of the ring */
        struct ring r = {.fd = perf_open(&pa, -1, cpu), .cpu = cpu};
        if (r.fd < 0 || !ring_map(&r, 64)) {
            snprintf(why, why_size, "bpf-output event on CPU %d: %s", cpu, strerror(errno));
            if (r.fd >= 0)
                close(r.fd);
            drop_rings();
            return false;
        }
        uint32_t key = (uint32_t)cpu, value = (uint32_t)r.fd;
        union bpf_attr u;
        memset(&u, 0, sizeof u);
        u.map_fd = (uint32_t)wp.map_fd;
        u.key = (uint64_t)(uintptr_t)&key;
        u.value = (uint64_t)(uintptr_t)&value;
        u.flags = BPF_ANY;
        add_ring(r);
        if (sys_bpf(BPF_MAP_UPDATE_ELEM, &u) != 0) {
            snprintf(why, why_size, "BPF map update: %s", strerror(errno));
            drop_rings();
            return false;
        }
    }
    return true;
}

/* Drain mode's ring of CPU, made by the first event opened there; the
 * events that come after write into it (PERF_EVENT_IOC_SET_OUTPUT). */
static const struct ring *cpu_ring(int cpu)
{
    for (size_t i = 0; i < wp.n_rings; i++)
        if (wp.rings[i].cpu == cpu)
            return &wp.rings[i];
    return NULL;
}

static void add_bp(struct bp_event bp)
{
    wp.bps = argus_xrealloc(wp.bps, (wp.n_bp + 1) * sizeof *wp.bps, "watchpoints");
    wp.bps[wp.n_bp++] = bp;
}

/* Opens the W and RW breakpoints of watch INDEX on thread TID (inherited
 * by the threads and children it creates later). With BPF: one event per
 * kind for all CPUs, each with its program. Without: the kernel maps no
 * ring of an inherited event for all CPUs, so one event per kind and CPU,
 * all writing into one ring per CPU. */
static void open_breakpoints(unsigned index, pid_t tid, bool enabled)
{
    const struct watch *w = &rec.opt.watches[index];
    int ncpu = wp.bpf ? 1 : cpu_count("/sys/devices/system/cpu/possible");
    for (int rw = 0; rw < 2; rw++) {
        for (int c = 0; c < ncpu; c++) {
            int cpu = wp.bpf ? -1 : c;
            if (cpu >= 0 && !cpu_online(cpu))
                continue;
            struct perf_event_attr a;
            memset(&a, 0, sizeof a);
            a.size = sizeof a;
            a.type = PERF_TYPE_BREAKPOINT;
            a.bp_type = rw ? HW_BREAKPOINT_RW : HW_BREAKPOINT_W;
            a.bp_addr = w->addr;
            a.bp_len = w->len;
            a.sample_period = 1;
            a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                            PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
            a.use_clockid = 1;
            a.clockid = CLOCK_MONOTONIC;
            a.inherit = 1;
            a.exclude_kernel = 1; /* the program's own accesses, not copy_from_user */
            a.exclude_hv = 1;
            a.disabled = !enabled;
            a.wakeup_events = 1; /* drain mode: drain soon, the value is read then */
            int fd = perf_open(&a, tid, cpu);
            if (fd < 0) {
                if (errno == ESRCH)
                    return; /* the thread ended meanwhile */
                if (errno == ENOSPC)
                    argus_die(ARGUS_EX_UNAVAILABLE,
                              "--watch %s: no free hardware breakpoint in thread %d (x86 has 4 debug registers; each watch takes 2)",
                              w->spec, (int)tid);
                argus_die(ARGUS_EX_UNAVAILABLE,
                          "--watch %s: perf_event_open of a breakpoint on thread %d: %s", w->spec,
                          (int)tid, strerror(errno));
            }
            struct bp_event bp = {.fd = fd, .watch = (uint16_t)index, .rw = (uint8_t)rw};
            if (ioctl(fd, PERF_EVENT_IOC_ID, &bp.id) != 0)
                argus_die(ARGUS_EX_UNAVAILABLE, "--watch %s: PERF_EVENT_IOC_ID: %s", w->spec,
                          strerror(errno));
            add_bp(bp);
            if (wp.bpf) {
                /* one program per watch and kind, for all its threads */
                int *prog = &rec.opt.watches[index].prog[rw];
                char log[4096];
                if (*prog < 0 && (*prog = load_program(w, index, rw, log, sizeof log)) < 0)
                    argus_die(ARGUS_EX_UNAVAILABLE, "--watch %s: BPF program rejected (%s): %s",
                              w->spec, strerror(errno), log);
                if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, *prog) != 0)
                    argus_die(ARGUS_EX_UNAVAILABLE,
                              "--watch %s: cannot attach BPF to the breakpoint (%s)", w->spec,
                              strerror(errno));
                continue;
            }
            const struct ring *ring = cpu_ring(cpu);
            if (ring) {
                if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring->fd) != 0)
                    argus_die(ARGUS_EX_UNAVAILABLE, "--watch %s: PERF_EVENT_IOC_SET_OUTPUT: %s",
                              w->spec, strerror(errno));
                continue;
            }
            struct ring r = {.fd = fd, .cpu = cpu};
            if (!ring_map(&r, 16))
                argus_die(ARGUS_EX_UNAVAILABLE, "--watch %s: cannot map the perf ring (%s)",
                          w->spec, strerror(errno));
            add_ring(r);
        }
    }
}

/* A watch on a running process: every thread it has now (each with its
 * own events; the ones created later inherit them). */
static void open_process_watch(unsigned index)
{
    pid_t pid = rec.opt.watches[index].pid;
    int *done = NULL;
    size_t n_done = 0;
    for (bool more = true; more;) {
        more = false; /* new threads appear while we open: scan again */
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
        DIR *d = opendir(path);
        if (!d)
            argus_die(ARGUS_EX_USAGE, "--watch %s: no process %d", rec.opt.watches[index].spec,
                      (int)pid);
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!isdigit((unsigned char)e->d_name[0]))
                continue;
            int tid = atoi(e->d_name);
            bool seen = false;
            for (size_t i = 0; i < n_done && !seen; i++)
                seen = done[i] == tid;
            if (seen)
                continue;
            open_breakpoints(index, tid, false);
            done = argus_xrealloc(done, (n_done + 1) * sizeof *done, "thread table");
            done[n_done++] = tid;
            more = true;
        }
        closedir(d);
    }
    free(done);
}

void watch_enable(void)
{
    for (size_t i = 0; i < wp.n_bp; i++)
        ioctl(wp.bps[i].fd, PERF_EVENT_IOC_ENABLE, 0);
}

void watch_disable(void)
{
    for (size_t i = 0; i < wp.n_bp; i++)
        ioctl(wp.bps[i].fd, PERF_EVENT_IOC_DISABLE, 0);
}

static int by_time(const void *a, const void *b)
{
    const struct hit *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    /* the same instant: the W hit first, so that it is the one kept */
    return (int)x->rw - (int)y->rw;
}

/* Sorts the hits and pairs them: a write trips both the W and the RW
 * breakpoint of its watch, one right after the other in the same thread
 * at the same ip; the pair is one write. Any other RW hit is a read. */
void watch_finish(void)
{
    argus_sort(wp.hits, wp.n_hits, sizeof *wp.hits, by_time);
    for (size_t i = 0; i < wp.n_hits; i++) {
        struct hit *h = &wp.hits[i];
        /* the previous hit of the same watch and thread */
        for (size_t j = i; j-- > 0 && i - j <= 256;) {
            struct hit *p = &wp.hits[j];
            if (p->watch != h->watch || p->tid != h->tid)
                continue;
            if (!p->paired && p->rw != h->rw && p->ip == h->ip) {
                /* keep the W hit (it says write), at the earlier time */
                struct hit *keep = p->rw ? h : p, *drop = p->rw ? p : h;
                uint64_t ts = p->ts;
                if (keep == h) {
                    *p = *h; /* the pair takes the earlier slot */
                    keep = p;
                    drop = h;
                }
                keep->ts = ts;
                drop->paired = 1;
                keep->paired = 2; /* matched: cannot pair again */
            }
            break;
        }
    }
}

bool watch_setup(void)
{
    char why[256];
    wp.bpf = setup_bpf(why, sizeof why);
    if (!wp.bpf && !getenv("ARGUS_RECORD_WATCH_VALUES"))
        argus_note("watch values are read when drained, not at the access (%s)", why);
    bool of_command = false;
    for (size_t i = 0; i < rec.opt.n_watches; i++) {
        if (rec.opt.watches[i].of_command) {
            of_command = true;
            continue;
        }
        resolve_watch(&rec.opt.watches[i], rec.opt.watches[i].pid, true);
        open_process_watch((unsigned)i);
    }
    return of_command;
}

void watch_command(pid_t pid)
{
    for (size_t i = 0; i < rec.opt.n_watches; i++)
        if (rec.opt.watches[i].of_command)
            open_breakpoints((unsigned)i, pid, true);
}

size_t watch_n_rings(void) { return wp.n_rings; }
int watch_ring_fd(size_t i) { return wp.rings[i].fd; }
uint64_t watch_lost(void) { return wp.lost + wp.dropped; }

void watch_drain(void)
{
    for (size_t i = 0; i < wp.n_rings; i++)
        drain_ring(&wp.rings[i]);
}

void write_watch_header(void)
{
    for (size_t i = 0; i < rec.opt.n_watches; i++) {
        const struct watch *w = &rec.opt.watches[i];
        out_printf("# watch: name=%s addr=0x%llx len=%u pid=%d values=%s\n", w->name,
                   (unsigned long long)w->addr, w->len, (int)w->pid,
                   wp.bpf ? "at-access" : "at-drain");
    }
}

/* The comm of a hit's thread: at the access (BPF), when drained, or from
 * /proc at the start or the end. */
static const char *thread_comm(const struct hit *h, const struct thread_list *a,
                               const struct thread_list *b)
{
    if (h->comm[0])
        return h->comm;
    int tid = (int)h->tid;
    const struct thread_info *t = find_thread(a, tid);
    if (!t)
        t = find_thread(b, tid);
    return t ? t->comm : "<...>";
}

uint64_t write_watch_hits(uint64_t limit, const struct thread_list *start,
                          const struct thread_list *end)
{
    uint64_t written = 0;
    for (; wp.next_hit < wp.n_hits && wp.hits[wp.next_hit].ts < limit; wp.next_hit++) {
        const struct hit *h = &wp.hits[wp.next_hit];
        if (h->paired == 1)
            continue;
        const struct watch *w = &rec.opt.watches[h->watch];
        bool write = !h->rw || h->paired == 2;
        /* the kernel's own layout: "%16s-%-7d (%7d) [%03d] " */
        out_printf("%16s-%-7u (%7u) [%03u] .... %5llu.%09llu: argus_flag_%s: addr=0x%llx",
                   thread_comm(h, start, end), h->tid, h->tgid, h->cpu,
                   (unsigned long long)(h->ts / 1000000000u),
                   (unsigned long long)(h->ts % 1000000000u), write ? "write" : "read",
                   (unsigned long long)w->addr);
        if (h->has_value) {
            uint64_t v = h->value;
            if (w->len < 8)
                v &= (UINT64_C(1) << (8 * w->len)) - 1;
            out_printf(" value=0x%llx", (unsigned long long)v);
        }
        out_printf(" name=%s\n", w->name);
        written++;
    }
    return written;
}
