#!/bin/bash
# late-start: the scenario wait-child (tests/live/scenarios/wait-child.sh,
# the same programs and truth) started late: a shell sleeps 1.5 s, then
# execs the waiter (START_DELAY), as a launcher script or a slow start
# would. The recorder released the command 1.5 s before the hang and waits
# for its exit all through it; in the normal run its release is on the
# baseline's path to the hang (the first thing that woke the program).
# argus must not call the recorder a culprit: it waited on the hang, the
# hang's own thread woke it at its exit (DIFF-WAITER).
# Truth: fixtures/real/late-start/truth.
START_DELAY=1.5 exec "$(dirname "$0")/wait-child.sh" "$@"
