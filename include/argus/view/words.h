/* The words a key event is named by, for every view (lib/view/words.c;
 * docs/diagnose.md's glossary gives both kinds): plain, as the report
 * and the HTML page say them ("input keyDown", "main-loop callback",
 * "timer set", "woken by its timeout"), or the stream's, as the report's
 * details (-v) and the Perfetto and DOT exports say them ("ui keyDown",
 * "runloop callout", "timer_arm", "woken timed_out"). */
#ifndef ARGUS_VIEW_WORDS_H
#define ARGUS_VIEW_WORDS_H

#include <stdbool.h>

typedef struct argus_event_words {
    const char *word;           /* first: "input", "timer set", ...; "" for
                                   a system call (its name says it) */
    const char *text;           /* then, after a space: the event's own text,
                                   a stand-in where it has none ("event",
                                   "callout"), or NULL: nothing */
    bool ours;                  /* text is words of ours, not the event's
                                   own (a symbol, a name) */
} argus_event_words;

/* What a key event of TYPE (an argus_type) with TEXT (its key event
 * text, "" for none) is named by. The kinds a view writes its own way
 * (waits, messages, flags, wakeups) and the others get their type's
 * name alone. */
argus_event_words argus_event_words_of(int type, const char *text, bool plain);
/* Whether a plain view leaves the event out: a timer Linux keeps for
 * itself (a wait's own timeout, the scheduler's, the tick's: the wait
 * says it) and every cancel (a cancel says nothing the next wait does
 * not). The stream's words keep them. */
bool argus_event_left_out(int type, const char *text);
/* A woken event's result in plain words ("by its timeout" for
 * timed_out, "by a signal", "to restart its call"); NULL for awakened
 * and for words of its own. */
const char *argus_woken_words(const char *result);

#endif
