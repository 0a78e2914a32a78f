/* argus-record's parts (docs/stages/record.md): what one file of the
 * recorder uses of another's. Their state is one struct recorder, rec
 * (below); each part writes its own member of it, named here.
 *
 *   main.c     the command line (rec.opt), signals (rec.stop), the
 *              recording's steps; it defines rec (argus-watch's main.c,
 *              which records with the other parts, defines its own)
 *   command.c  CMD: started held, released once tracing is on (rec.child)
 *   tracefs.c  the tracefs mount, the instance, restoring what changed
 *              (rec.tfs)
 *   events.c   the tracefs events enabled (rec.tfs.n_enabled)
 *   probes.c   uprobes on the desktop's libraries (main loops, input, D-Bus)
 *   threads.c  the threads in /proc at the start and at the end
 *   symbols.c  ELF symbols of a running process
 *   watch.c    --watch: hardware watchpoints, perf rings, BPF (it fills in
 *              rec.opt.watches)
 *   options.c  the options argus-record and argus-watch parse alike
 *   output.c   writing the trace and argus's lines (rec.out)
 *   parse.c    what it parses of the kernel's text (trace, maps, stat) */
#ifndef ARGUS_RECORD_H
#define ARGUS_RECORD_H

#include "argus/stream/cli.h"

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

/* ---------------------------------------------------------------------- */
/* The recorder's state */

struct watch {
    const char *spec;    /* as given, for messages */
    char *symbol;        /* NULL for an address watch */
    uint64_t addr;       /* given (address watch) or resolved */
    unsigned len;        /* 1, 2, 4 or 8 */
    char *name;          /* name= on the lines */
    pid_t pid;           /* 0 until resolved when of_command */
    bool of_command;     /* no @PID: CMD's process */
    int prog[2];         /* BPF programs of the W and RW breakpoints, -1: none yet */
};

/* The command line: set by the program's main.c and options.c, read by
 * every part; watch.c fills in each watch as it resolves it. */
struct options {
    const char *output;  /* -o FILE, NULL or "-": stdout */
    uint64_t buffer_mb;  /* --buffer-mb: the ring buffer per CPU */
    double duration;     /* seconds; 0: none */
    char **events;       /* --event, as SYS/NAME or SYS */
    const char **event_specs; /* --event, as given */
    size_t n_events;     /* of each */
    bool all_syscalls;   /* --all-syscalls */
    struct watch *watches; /* --watch */
    size_t n_watches;    /* 0: no watchpoints */
    char instance_name[NAME_MAX + 1]; /* --instance, or argus-PID */
    bool quiet;          /* -q */
    bool cleanup;        /* --cleanup: only remove what dead recorders left */
    int *focus;          /* --pid, --proc: the processes focused */
    size_t n_focus;      /* each once */
    char **cmd;          /* NULL: no command */
};

/* SIGINT, SIGTERM and SIGHUP asked for the recording's end: counted by the
 * program's main.c as its signalfd says, and while the output is written
 * by a handler (main.c); output.c abandons the output at the second. */
struct stop_requests {
    volatile sig_atomic_t count; /* how many came */
    volatile sig_atomic_t last;  /* the last one's number */
};

/* What was changed in tracefs, so that restore() can undo it from any
 * exit path (tracefs.c; argus-watch's main.c makes the detection
 * instance). */
struct tracefs_state {
    pid_t owner;               /* the recorder (atexit also runs in a child) */
    char root[PATH_MAX];       /* tracefs directory */
    int root_fd;               /* held open: keeps the mount in use */
    bool mounted;              /* we mounted root */
    char instance[PATH_MAX];   /* "instances/NAME", relative to root_fd */
    bool instance_made;        /* it exists: restore() removes it */
    char detect_instance[PATH_MAX]; /* argus-watch's second instance, "": none */
    bool detect_made;          /* the same for detect_instance */
    int top_tgid_old;          /* old top-level record-tgid, -1: untouched */
    size_t n_enabled;          /* events (or subsystems) enabled in the
                                  instance (events.c, probes.c) */
    FILE *trace;               /* the instance's trace, while output.c reads it */
};

/* CMD (command.c; main.c's loop reaps it when it ends): restore() kills
 * it while it is held. */
struct child_state {
    pid_t pid;                 /* 0: no command */
    int go_fd;                 /* closed: CMD may exec (-1: closed) */
    int exec_err_fd;           /* CMD's exec error (errno), or EOF */
    bool released;             /* running the command (not held) */
    bool reaped;               /* it ended and was waited for */
    int status;                /* its wait status, once reaped */
};

/* The output and what went into it (output.c; argus-watch's report.c
 * points fd at each window it writes). */
struct output_state {
    int fd;                    /* the trace's file, or stdout */
    char *partial;             /* FILE.partial while writing FILE, else NULL */
    uint64_t events;           /* event lines written */
    uint64_t hits;             /* watch lines written */
    uint64_t overwritten;      /* events the ring buffer dropped */
    unsigned threads;          /* "# argus-thread:" lines written */
};

/* argus-record's state, and argus-watch's, which records with these
 * parts: one program-wide instance, defined by each program's main.c with
 * RECORDER_INIT, because restore() runs from atexit (every argus_die) and
 * must reach the tracefs state and the command, and the writer must see
 * the stop requests a signal handler counts. Which part writes a
 * member is said above it; the others only read it. */
struct recorder {
    struct options opt;
    struct stop_requests stop;
    struct tracefs_state tfs;
    struct child_state child;
    struct output_state out;
};
extern struct recorder rec;

#define RECORDER_INIT(default_buffer_mb)                                   \
    {                                                                      \
        .opt = {.buffer_mb = (default_buffer_mb)},                         \
        .tfs = {.root_fd = -1, .top_tgid_old = -1},                        \
        .child = {.go_fd = -1, .exec_err_fd = -1},                         \
        .out = {.fd = STDOUT_FILENO},                                      \
    }

/* Options both argus-record and argus-watch take (options.c); a bad
 * value is a usage error. RECORDING_OPTIONS goes in each program's
 * getopt_long table, its own options numbered from OPT_RECORDING_END. */
enum {
    OPT_BUFFER_MB = 0x2000, OPT_DURATION, OPT_INSTANCE, OPT_PROBES, OPT_NO_PROBES,
    OPT_RECORDING_END
};
#define RECORDING_OPTIONS                                          {"buffer-mb", required_argument, 0, OPT_BUFFER_MB},            {"duration", required_argument, 0, OPT_DURATION},              {"instance", required_argument, 0, OPT_INSTANCE},              {"probes", required_argument, 0, OPT_PROBES},                  {"no-probes", no_argument, 0, OPT_NO_PROBES},                  {"quiet", no_argument, 0, 'q'}
/* Sets the instance's default name (argus-PID) before the options. */
void recording_options_start(void);
/* Option C (getopt_long's return) with ARG, when it is one of
 * RECORDING_OPTIONS: sets it in rec.opt (--probes' list in *PROBES,
 * "none" for --no-probes) and returns true. */
bool recording_option(int c, const char *arg, const char **probes);
double parse_duration(const char *arg);       /* --duration: seconds > 0 */
void set_instance_name(const char *arg);      /* --instance */
/* --pid: focuses on PID's process (once); returns it */
int focus_pid(int pid);
/* --proc: focuses on every running process of that name but the caller;
 * none running is a usage error when MUST_RUN */
void focus_name(const char *name, bool must_run);

/* The signals that end a recording (signals.c): SIGINT, SIGTERM and
 * SIGHUP, with SIGCHLD (a child changed), blocked and read from the
 * signalfd returned (*OLD_MASK, when not NULL, gets the caller's mask).
 * SIGPIPE becomes EPIPE, so that a closed pipe still restores
 * everything. */
int stop_signals_open(sigset_t *blocked, sigset_t *old_mask);
/* Reads what came on FD: a stop is counted in rec.stop; returns whether
 * SIGCHLD came. */
bool stop_signals_take(int fd);

/* ---------------------------------------------------------------------- */
/* tracefs and restoring what was changed (tracefs.c) */

void restore(void);
void find_tracefs(void);
/* Removes the instances and uprobe groups of recorders that are dead
 * (killed: SIGKILL runs no restore), says which on stderr; their number. */
size_t reap_dead_recorders(void);
void setup_instance(void);
/* Makes instance DIR ("instances/NAME") with the recorder's settings:
 * off, BUFFER_MB per CPU, overwrite, trace_clock mono, the (TGID) column;
 * *MADE is set once it exists, for restore(). Dies on an error. */
void make_instance(const char *dir, uint64_t buffer_mb, bool *made);

/* tracefs files, relative to rec.tfs.root_fd: 0 or an errno */
int tfs_write(const char *path, const char *text);
int tfs_append(const char *path, const char *text);
int tfs_read(const char *path, char *buf, size_t size);
bool tfs_exists(const char *path);
/* PATH under the instance (a static buffer) */
const char *ipath(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* PATH under argus-watch's detection instance (a static buffer) */
const char *dpath(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---------------------------------------------------------------------- */
/* Events (events.c) */

/* enables them in the instance, counted in rec.tfs.n_enabled */
void enable_events(void);

/* ---------------------------------------------------------------------- */
/* uprobes on the desktop's libraries (probes.c) */

extern size_t probes_n_defined;
/* the uprobe group of the probes defined ("argus_PID") */
const char *probes_group(void);
/* the sets to probe: LIST (comma-separated, "none"), NULL: every one */
void probes_choose(const char *list);
/* the processes whose libraries are probed too (--pid, --proc): the
 * files they map of each set's libraries where these are not the
 * system's (a bundled library, a container's), each file once; before
 * probes_define */
void probes_focus(const int *pids, size_t n);
/* the uprobe groups defined: probes_group() and, for the same events on
 * other files, "argus_PID_G" (G from 1) */
size_t probes_n_groups(void);
const char *probes_group_at(size_t g);
/* defines and enables them in the instance (after the events) */
void probes_define(void);
void probes_remove(void);
void write_probes_header(void);

/* ---------------------------------------------------------------------- */
/* Threads (threads.c) */

struct thread_info {
    int tid, tgid;
    int ppid;           /* the parent process, 0 when none (kthreadd, init's) */
    bool kernel;
    char comm[64];
    char *cmdline;      /* a process's main thread: its command line as
                           "# argus-cmdline:" writes it; NULL: none, or
                           not read */
};

struct thread_list {
    struct thread_info *v;
    size_t n, cap;
};

bool read_thread(int tgid, int tid, struct thread_info *t);
/* The process of thread PID (its Tgid), 0 when none is running. */
int running_process(int pid);
/* Appends to PIDS (N of them) the running processes NAME names (their
 * comm, program or script: argus_proc_named), each once, but the caller;
 * returns how many are so named (0: none, or /proc unreadable). */
size_t processes_named(const char *name, int **pids, size_t *n);
/* T's comm, parent and kernel flag from the text of a /proc stat file
 * (parse.c) */
bool parse_thread_stat(const char *buf, struct thread_info *t);
void scan_threads(struct thread_list *list);
/* PID's arguments as /proc/PID/cmdline holds them, each ended by a NUL,
 * cut at an argument to fit SIZE; their length, 0 when none or gone. */
size_t read_cmdline(int pid, char *args, size_t size);
/* The same as argus_proc_named takes them, NUL-terminated in WORDS:
 * separated by '\n' (a '\n' inside one made '?'); false when none. */
bool cmdline_words(int pid, char *words, size_t size);
void free_threads(struct thread_list *list);
void sort_threads(struct thread_list *list);
/* in a sorted list */
const struct thread_info *find_thread(const struct thread_list *l, int tid);

/* ---------------------------------------------------------------------- */
/* ELF symbols of a process (symbols.c) */

struct mapping {
    uint64_t start, end, offset;
    char *path; /* NULL: anonymous */
};

struct maps {
    struct mapping *v;
    size_t n;
};

/* A symbol found: runtime address, size, name. */
struct symbol_hit {
    uint64_t addr, size;
    char name[256];
    char file[PATH_MAX];
    bool tls;
};

bool read_maps(pid_t pid, struct maps *m);
/* One line of /proc/PID/maps into MP (parse.c) (its path strdup'ed, NULL when not
 * a file); false when the line is not one (LINE is changed). */
bool parse_maps_line(char *line, struct mapping *mp);
void free_maps(struct maps *m);
/* NAME (or, NAME NULL, the data symbol at ADDR) in the files PID maps */
bool find_symbol(pid_t pid, const struct maps *maps, const char *name, uint64_t addr,
                 struct symbol_hit *hit);
/* NAME (or the data symbol at ADDR) in ELF file FILE, mapped by MAPS as
 * PATH (which gives the load bias); HIT->file is PATH */
bool symbol_in_file(const char *file, const struct maps *maps, const char *path,
                    const char *name, uint64_t addr, struct symbol_hit *hit);
/* the file offset of function NAME in ELF file PATH (a uprobe's place) */
bool function_offset(const char *path, const char *name, uint64_t *offset);

/* ---------------------------------------------------------------------- */
/* --watch (watch.c) */

/* Resolves watch W in process PID: its address, length and name. A
 * symbol not found is an error when MUST, else false. */
bool resolve_watch(struct watch *w, pid_t pid, bool must);
/* BPF (or drain mode) and the watches of running processes; true when
 * some watch is of CMD's process */
bool watch_setup(void);
/* the watches of CMD's process, stopped right after its exec */
void watch_command(pid_t pid);
void watch_enable(void);
void watch_disable(void);
size_t watch_n_rings(void);
int watch_ring_fd(size_t i);
void watch_drain(void);
void watch_finish(void); /* sorts and pairs the hits */
uint64_t watch_lost(void);
void write_watch_header(void);
/* the watch lines before time LIMIT (ns; UINT64_MAX: all) */
uint64_t write_watch_hits(uint64_t limit, const struct thread_list *start,
                          const struct thread_list *end);

/* ---------------------------------------------------------------------- */
/* The command (command.c) */

void start_child(bool traced, const sigset_t *old_mask);
void release_child(bool traced);

/* ---------------------------------------------------------------------- */
/* Output (output.c) */

/* Opens -o FILE (as FILE.partial when a file), compressed by its name;
 * stdout when none */
void out_open(void);
/* Closes it, FILE.partial renamed to FILE: the recording is whole */
void out_close(void);
/* the file being written, for messages */
const char *output_name(void);
void out_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void out_write(const char *s, size_t n);
void out_flush(void);
/* The last bytes, and the end of a compressed output. */
void out_finish(void);
/* argus's lines after the kernel's header: the recorder, the clock, the
 * command, the probes, the watches, the threads */
void write_argus_header(const struct thread_list *start, const struct thread_list *end);
void write_output(const struct thread_list *start, const struct thread_list *end);
/* The ns timestamp of an event line of the trace file; false for other
 * lines (parse.c) */
bool trace_line_time(const char *line, uint64_t *ns);
/* The events dropped, from the trace file's entries-in-buffer header line */
bool trace_header_overwritten(const char *line, uint64_t *lost);

#endif
