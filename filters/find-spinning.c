/* argus-find-spinning: finds the hang nodes of a graph (the spinning
 * cursor, or a main thread blocked or busy too long), classifies them, and
 * searches each one's causal paths back to the user's input and what it
 * waits on (docs/stages/find-spinning.md). */
#include "argus/analysis/find-spinning.h"
#include "argus/stream/cli.h"
#include "argus/stages/stage.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: argus-find-spinning [--indicator SYMBOL]... [--hang MS] [--proc NAME]\n"
    "                           [--input-server NAME]... [--no-idle] [--beam N]\n"
    "                           [--max-steps N] [--no-thread-order]\n"
    "                           [--no-wait-chain] [-v] [FILE|-]\n"
    "Find the hang nodes of a graph stream, their causal paths and wait chains.\n"
    "The stream passes through, with hang, path and wait_chain records appended.\n"
    "\n"
    "Rules (docs/stages/find-spinning.md; all rules: docs/rules.md):\n"
    "  SPIN-INDICATOR  the spinning cursor starts at a backtrace whose frames\n"
    "                  hold CGSConnectionSetSpinning or ConnectionSetSpinning\n"
    "                  (or an --indicator SYMBOL), or a flag_write of\n"
    "                  sCGEventIsMainThreadSpinning = 1; the hang node is the\n"
    "                  main thread's segment ongoing then, else its latest\n"
    "                  segment that began within 1.5 s before\n"
    "  SPIN-LOOP       a GUI program's main loop (its runloop events: argus-\n"
    "                  record's uprobes) away from its wait for 2000 ms (by\n"
    "                  default on a Linux trace; --hang MS on any): the\n"
    "                  segment most of that time was in; idle in its wait is\n"
    "                  never a hang\n"
    "  SPIN-HANG       --hang MS (by default on a Linux trace, which has no\n"
    "                  spinning cursor: 500 ms, or, where SPIN-LOOP watches a\n"
    "                  GUI program's loop, 2000 ms for the other GUI programs\n"
    "                  only): a program's main thread (not a kernel thread,\n"
    "                  the idle task or argus-record) that runs for MS, or\n"
    "                  waits for MS, a wait retried after timeouts or woken\n"
    "                  by its own threads counting as one\n"
    "  SPIN-IDLE       a wait is no hang when a display server woke it (input),\n"
    "                  when it is a loop's poll that only timed out, a display\n"
    "                  server's own loop, a parent waiting for its child (not\n"
    "                  --proc's, nor the launched command's or a focused one's\n"
    "                  unless a shell or wrapper), or a wait still open at the\n"
    "                  end that asked nothing before\n"
    "  SPIN-ORDER      tiers: a GUI program's hangs, then the launched command's\n"
    "                  and the focused processes' (argus record --pid, --proc)\n"
    "                  and their children's, then the others, then a lone sleep\n"
    "                  its timer ended and a wait still open at the end on\n"
    "                  nothing known; in a tier worst first, hangs with one\n"
    "                  cause together, the longest chain first, a cause after\n"
    "                  its victims\n"
    "  SPIN-CLASS      yield (yield syscalls are >= 1/3 of its events), wait\n"
    "                  (a final wait >= 0.8 s, or repeated timed-out waits),\n"
    "                  busy (runs >= 1.5 s without blocking); else by its end\n"
    "  SPIN-PATH       beam search backward over incoming edges to a segment\n"
    "                  holding a ui_event (strong edge -1, weak +1, a step to\n"
    "                  the thread's previous segment +2); for a wait node, the\n"
    "                  chain of what it waits on, walked back from what ended\n"
    "                  the wait: each thread's longest stretch (blocked until\n"
    "                  a thread woke it: go on to that thread; running;\n"
    "                  runnable: the thread that held the CPU; its own\n"
    "                  timeout), a polled file lock's releaser, the peer of a\n"
    "                  request nobody answered\n"
    "  SPIN-SUM        in the wait chain a thread's running and runnable time\n"
    "                  count as one stretch, their sum: running if it ran a\n"
    "                  tenth of the window, else runnable (then its CPU holder)\n"
    "  SPIN-HOLDER     a runnable link goes on to its CPU's holder only when\n"
    "                  one thread held it off half its runnable time or more\n"
    "  SPIN-DEADLOCK   a lock wait its timer ended goes on to the thread of its\n"
    "                  process it then woke, blocked on a lock meanwhile\n"
    "  SPIN-YIELD      a yield loop's chain goes on to the thread it gave its\n"
    "                  CPU to half its runnable time or more\n"
    "  SPIN-ACCEPT     a connect's wait goes on to the local server whose\n"
    "                  accept took the connection within 100 ms after\n"
    "  SPIN-SLEEP      a sleep its own timer ended ends the chain at the\n"
    "                  sleeper, whatever it asked of others before\n"
    "  SPIN-CRITICAL   the critical path: the hang's window in time order,\n"
    "                  each blocked stretch replaced by the stretches of the\n"
    "                  thread that held it up (critical_path records)\n"
    "\n"
    "      --indicator SYMBOL  also a backtrace frame holding SYMBOL, or a\n"
    "                          flag_write of a flag named SYMBOL, not 0\n"
    "      --hang MS           SPIN-LOOP and SPIN-HANG with MS milliseconds, on\n"
    "                          every program's main thread (0: both off); by\n"
    "                          default on a Linux trace: a GUI program's main\n"
    "                          loop away from its wait for 2000 ms, or, where no\n"
    "                          GUI loop is seen, a main thread blocked or busy\n"
    "                          for 500 ms (docs/stages/find-spinning.md,\n"
    "                          Thresholds)\n"
    "      --proc NAME         hang nodes of processes named NAME only: their\n"
    "                          comm (its first 15 bytes), or the program or\n"
    "                          script their command line runs (app.py, app)\n"
    "      --input-server NAME one more display server for SPIN-IDLE (Xorg,\n"
    "                          Xvfb, Xwayland, gnome-shell, kwin_wayland, ...)\n"
    "      --no-idle           do not apply SPIN-IDLE\n"
    "      --beam N            paths kept per step and written (default 5)\n"
    "      --max-steps N       longest path searched, in edges (default 64)\n"
    "      --no-thread-order   never step to a thread's previous segment\n"
    "      --no-wait-chain     do not write wait_chain or critical_path records\n"
    "  -v, --verbose           print counts to stderr at the end\n"
    "  -h, --help              show this help\n"
    "      --version           show the version\n";

int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    static const struct option opts[] = {
        ARGUS_SPIN_LONG_OPTIONS,
        ARGUS_OPTION_VERBOSE,
        ARGUS_OPTION_HELP,
        ARGUS_OPTION_VERSION,
        {0, 0, 0, 0},
    };
    argus_spin_options o;
    argus_spin_defaults(&o);
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
        switch (c) {
        default:
            if (!argus_spin_option(&o, c, optarg))
                argus_common_option(c, usage, &common, argv);
        }
    }
    const char *input = argus_input_arg(argc, argv);

    argus_stage st;
    argus_stage_open(&st, input, common.verbose);
    argus_spin *sp = argus_spin_start(&o, argus_reader_header(st.in));
    argus_graph g;
    argus_graph_options gopt = {.pass = st.out, .on_event = argus_spin_on_event, .ctx = sp};
    argus_graph_load(&g, st.in, &gopt);
    argus_spin_finish(sp, &g, st.out);
    argus_graph_free(&g);
    argus_stage_close(&st);
    return 0;
}
