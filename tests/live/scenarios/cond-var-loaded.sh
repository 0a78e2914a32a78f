#!/bin/bash
# cond-var-loaded: the scenario cond-var (tests/live/scenarios/cond-var.sh, the same
# programs, action and truth) recorded on a loaded machine: stress-ng
# --cpu 2 (nice 0, on both CPUs) runs through each recording, the normal
# run's too (lib.sh's record, LOAD_CPU).
# Truth: fixtures/real/cond-var-loaded/truth.
LOAD_CPU=2 exec "$(dirname "$0")/cond-var.sh" "$@"
