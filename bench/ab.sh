#!/bin/bash
# bench/ab.sh N 'COMMAND A' 'COMMAND B': runs A and B N times each, one
# after the other, and prints the least user + system CPU seconds of
# each. On a shared machine, two programs compared this way see the same
# load; their ratio means more than either figure.
set -eu
n=$1 a=$2 b=$3
t=$(mktemp)
trap 'rm -f "$t"' EXIT
least_a=  least_b=
for _ in $(seq "$n"); do
    for which in a b; do
        cmd=${!which}
        /usr/bin/time -o "$t" -f '%U %S' bash -c "$cmd" >/dev/null 2>&1 || true
        cpu=$(awk 'END { print $1 + $2 }' "$t")  # the last line: time(1) may say an exit status first
        if [ "$which" = a ]; then
            least_a=$(awk -v x="$cpu" -v y="${least_a:-$cpu}" 'BEGIN { print (x < y) ? x : y }')
        else
            least_b=$(awk -v x="$cpu" -v y="${least_b:-$cpu}" 'BEGIN { print (x < y) ? x : y }')
        fi
    done
done
echo "A: $least_a s  B: $least_b s  B/A: $(awk -v a="$least_a" -v b="$least_b" 'BEGIN { if (a > 0) printf "%.2f", b / a; else print "-" }')"
