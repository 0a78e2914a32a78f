/* The words of a key event, plain or the stream's: one table for the
 * report, the page and the exports (argus/view/words.h). */
#include "argus/view/words.h"

#include "argus/stream/stream.h"

#include <string.h>

/* Linux's own timers: a waiting thread's timeout (its wait says it) and
 * the scheduler's and the tick's. A timer of the program's (timerfd,
 * POSIX timers) is not one of them. */
static bool kernel_timer(const char *func)
{
    static const char *const own[] = {
        "hrtimer_wakeup", "process_timeout", "dl_task_timer", "inactive_task_timer",
        "tick_sched_timer", "tick_nohz_handler", "sched_rt_period_timer",
        "sched_cfs_period_timer", "sched_cfs_slack_timer", "hrtick",
    };
    for (size_t i = 0; i < sizeof own / sizeof *own; i++)
        if (strcmp(func, own[i]) == 0)
            return true;
    return false;
}

bool argus_event_left_out(int type, const char *text)
{
    return type == ARGUS_T_TIMER_CANCEL || (type == ARGUS_T_TIMER_ARM && kernel_timer(text));
}

const char *argus_woken_words(const char *result)
{
    if (strcmp(result, "timed_out") == 0) return "by its timeout";
    if (strcmp(result, "interrupted") == 0) return "by a signal";
    if (strcmp(result, "restart") == 0) return "to restart its call";
    return NULL;
}

argus_event_words argus_event_words_of(int type, const char *text, bool plain)
{
    const char *own = *text ? text : NULL;
    switch (type) {
    case ARGUS_T_SYSCALL:
        return (argus_event_words){"", own ? own : "syscall", !own};
    case ARGUS_T_UI_EVENT:
        return (argus_event_words){plain ? "input" : "ui", own ? own : "event", !own};
    case ARGUS_T_RUNLOOP_INVOKE:
        if (plain)
            return (argus_event_words){"main-loop callback", own, false};
        return (argus_event_words){"runloop", own ? own : "callout", !own};
    case ARGUS_T_DISPATCH_INVOKE:
        return (argus_event_words){"dispatch", own ? own : "block", !own};
    case ARGUS_T_TIMER_ARM:
        return (argus_event_words){plain ? "timer set" : "timer_arm", own, false};
    case ARGUS_T_TIMER_FIRE:
        return (argus_event_words){plain ? "timer fired" : "timer_fire", NULL, false};
    case ARGUS_T_WOKEN:
        /* awakened is what woken means: no word for it */
        if (own && strcmp(own, "awakened") == 0)
            return (argus_event_words){"woken", NULL, false};
        if (plain && own && argus_woken_words(own))
            return (argus_event_words){"woken", argus_woken_words(own), true};
        return (argus_event_words){"woken", own, false};
    case ARGUS_T_BACKTRACE:
        return (argus_event_words){"backtrace", own, false};
    default:
        return (argus_event_words){argus_type_name(type >= 0 && type < ARGUS_T_COUNT ? type : 0),
                                   NULL, false};
    }
}
