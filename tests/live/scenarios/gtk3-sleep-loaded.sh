#!/bin/bash
# gtk3-sleep-loaded: the scenario gtk3-sleep (tests/live/scenarios/gtk3-sleep.sh, the same
# programs, action and truth) recorded on a loaded machine: stress-ng
# --cpu 2 (nice 0, on both CPUs) and 2 loops of GCC's compiler (cc1 -O2,
# a new compiler process every second or so) run through each recording,
# the normal run's too (lib.sh's record, LOAD_CPU and LOAD_COMPILE).
# Truth: fixtures/real/gtk3-sleep-loaded/truth.
LOAD_CPU=2 LOAD_COMPILE=2 exec "$(dirname "$0")/gtk3-sleep.sh" "$@"
