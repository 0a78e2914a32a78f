#!/bin/bash
# wait-child-loaded: the scenario wait-child (tests/live/scenarios/wait-child.sh, the same
# programs, action and truth) recorded on a loaded machine: stress-ng
# --cpu 2 (nice 0, on both CPUs) runs through each recording, the normal
# run's too (lib.sh's record, LOAD_CPU).
# Truth: fixtures/real/wait-child-loaded/truth.
LOAD_CPU=2 exec "$(dirname "$0")/wait-child.sh" "$@"
