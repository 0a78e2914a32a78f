#!/bin/bash
# gtk-dialog-spinner: the scenario gtk-dialog (tests/live/scenarios/gtk-dialog.sh,
# the same programs, action and truth) with a spinner spinning in the
# dialog while it waits for the answer: the dialog's nested loop wakes on
# GTK's frame clock every 16 ms and draws, where gtk-dialog's waits with
# no deadline.
# Truth: fixtures/real/gtk-dialog-spinner/truth.
DIALOG_SPINNER=1 exec "$(dirname "$0")/gtk-dialog.sh" "$@"
