#!/bin/bash
# gtk4-lock-loaded: the scenario gtk4-lock (tests/live/scenarios/gtk4-lock.sh, the same
# programs, action and truth) recorded on a loaded machine: stress-ng
# --cpu 2 (nice 0, on both CPUs) runs through each recording, the normal
# run's too (lib.sh's record, LOAD_CPU).
# Truth: fixtures/real/gtk4-lock-loaded/truth.
LOAD_CPU=2 exec "$(dirname "$0")/gtk4-lock.sh" "$@"
