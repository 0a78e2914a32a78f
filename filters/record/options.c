/* argus-record (and argus-watch, which records with its parts): the
 * options both parse alike, RECORDING_OPTIONS, --pid and --proc. */
#include "record.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void recording_options_start(void)
{
    snprintf(rec.opt.instance_name, sizeof rec.opt.instance_name, "argus-%d", (int)getpid());
}

bool recording_option(int c, const char *arg, const char **probes)
{
    switch (c) {
    case OPT_BUFFER_MB:
        rec.opt.buffer_mb = argus_parse_uint_option("--buffer-mb", arg, 1, 65536, " (MB per CPU)");
        return true;
    case OPT_DURATION:
        rec.opt.duration = parse_duration(arg);
        return true;
    case OPT_INSTANCE:
        set_instance_name(arg);
        return true;
    case OPT_PROBES:
        *probes = arg;
        return true;
    case OPT_NO_PROBES:
        *probes = "none";
        return true;
    case 'q':
        rec.opt.quiet = true;
        argus_cli_quiet(true);
        return true;
    default:
        return false;
    }
}

double parse_duration(const char *arg)
{
    char *end;
    errno = 0;
    double d = strtod(arg, &end);
    if (!*arg || *end || errno || !(d > 0) || d > 1e9 || isspace((unsigned char)*arg))
        argus_usage_error("--duration %s: expected seconds > 0 (like 5 or 0.5)", arg);
    return d;
}

void set_instance_name(const char *arg)
{
    if (!*arg || strchr(arg, '/') || strcmp(arg, ".") == 0 || strcmp(arg, "..") == 0 ||
        strlen(arg) > NAME_MAX)
        argus_usage_error("--instance %s: expected a directory name", arg);
    snprintf(rec.opt.instance_name, sizeof rec.opt.instance_name, "%s", arg);
}

int focus_pid(int pid)
{
    int tgid = running_process(pid);
    if (!tgid)
        argus_usage_error("--pid %d: no such process is running", pid);
    struct options *o = &rec.opt;
    for (size_t i = 0; i < o->n_focus; i++)
        if (o->focus[i] == tgid)
            return tgid;
    o->focus = argus_xrealloc(o->focus, (o->n_focus + 1) * sizeof *o->focus, "--pid options");
    o->focus[o->n_focus++] = tgid;
    return tgid;
}

void focus_name(const char *name, bool must_run)
{
    if (!*name)
        argus_usage_error("--proc: expected a process name");
    if (!processes_named(name, &rec.opt.focus, &rec.opt.n_focus) && must_run)
        argus_usage_error("--proc %s: no process of that name is running", name);
}
