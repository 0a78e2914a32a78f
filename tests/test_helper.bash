# Shared setup for the Bats suite: the programs under test come from
# ARGUS_BIN (bin/ by default; build-san/bin under `make check`).
bats_load_library bats-support
bats_load_library bats-assert

ARGUS_ROOT="${ARGUS_ROOT:-$(cd "$BATS_TEST_DIRNAME/.." && pwd)}"
ARGUS_BIN="${ARGUS_BIN:-$ARGUS_ROOT/bin}"
PATH="$ARGUS_BIN:$PATH"
export PATH ARGUS_ROOT

# Tests run from the repository root, so that file names in messages and
# in the header's "stages" are the same on every machine.
cd "$ARGUS_ROOT" || exit 1

# tests/tools/cbor-records writes exact CBOR streams from Python literals.
cbor_records() { "$ARGUS_ROOT/tests/tools/cbor-records"; }
PATH="$ARGUS_ROOT/tests/tools:$PATH"

HEADER="{'type':'stream','format':'argus','version':1,'source':'test','stages':['decode x']}"
export HEADER
