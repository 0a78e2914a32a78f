#!/usr/bin/env bats
# The page of argus diagnose --html on every real recording
# (fixtures/real/*/hang.txt.gz), opened in headless Chromium (Debian's
# chromium; the tests skip without it) and measured as a reader sees it
# (tests/tools/page-labels: getBoundingClientRect of every text on the
# timelines): no label hides another or a bar's own text, one HANG tag
# per hang, and every time on the page is on the trace's own clock, as
# the report on the same page prints it, with the wall clock where the
# trace has it.

load test_helper

# the recordings whose page also draws the baseline (normal.txt.gz)
WITH_BASELINE="gui-dbus http-slow gtk-click"

setup_file() {
    local d=$BATS_FILE_TMPDIR
    command -v chromium >/dev/null 2>&1 || return 0
    # each page (two at a time: the machine has two cores)
    ls fixtures/real | grep -v README | xargs -P 2 -I{} sh -c '
        zcat fixtures/real/{}/hang.txt.gz > "$0/{}.txt"
        argus diagnose --html "$0/{}.html" "$0/{}.txt" > "$0/{}.report" || true
        rm -f "$0/{}.txt"' "$d"
    for r in $WITH_BASELINE; do
        zcat "fixtures/real/$r/hang.txt.gz" > "$d/$r.txt"
        zcat "fixtures/real/$r/normal.txt.gz" > "$d/$r.normal.txt"
        argus diagnose --baseline "$d/$r.normal.txt" --html "$d/$r.base.html" "$d/$r.txt" > /dev/null || true
        rm -f "$d/$r.txt" "$d/$r.normal.txt"
    done
    local -a urls=()
    for f in "$d"/*.html; do urls+=("file://$f"); done
    timeout 900 page-labels "$d/profile" "${urls[@]}" > "$d/labels.txt" 2> "$d/labels.err" || true
}

D() { echo "$BATS_FILE_TMPDIR"; }

need_browser() {
    command -v chromium >/dev/null 2>&1 || skip "no chromium (Debian package chromium)"
    [ -s "$(D)/labels.txt" ] || {
        cat "$(D)/labels.err" >&2
        false
    }
}

# labels_of NAME: page-labels' lines of the page NAME.html
labels_of() {
    awk -v page="file://$(D)/$1.html" '/^page: / {on = ($2 == page); next} on' "$(D)/labels.txt"
}

@test "browser: every real recording's page draws with no console message" {
    need_browser
    local n
    n=$(ls "$(D)"/*.html | wc -l)
    [ "$n" -ge 50 ] || fail "only $n pages"
    run grep -c '^ready: 1$' "$(D)/labels.txt"
    assert_output "$n"
    run grep '^console:' "$(D)/labels.txt"
    assert_output ""
}

@test "browser: no two texts of a real recording's timeline overlap" {
    need_browser
    run grep -c '^texts: ' "$(D)/labels.txt"
    [ "$output" -ge 50 ] || fail "$output timelines measured"
    run grep '^overlap: ' "$(D)/labels.txt"
    assert_output ""
    # and no tag's text runs out of its coloured box
    run grep '^overflow: ' "$(D)/labels.txt"
    assert_output ""
}

@test "browser: the overlap check catches two labels drawn on one spot" {
    need_browser
    # the page of gui-dbus with every arrow's label put back where it was
    # once drawn, at its arrow's middle, whatever is there
    sed -e 's|put(l.kind, "edgelabel", spots);|put(l.kind, "edgelabel", [[(l.x1 + l.x2) / 2 + 3, (l.y1 + l.y2) / 2 - 3]]);|' \
        -e 's|const put = (text, cls, spots) => {|const put = (text, cls, spots) => { const hits = () => false;|' \
        "$(D)/gui-dbus.html" > "$BATS_TEST_TMPDIR/crowded.html"
    run cmp -s "$(D)/gui-dbus.html" "$BATS_TEST_TMPDIR/crowded.html"
    assert_failure
    run timeout 120 page-labels "$BATS_TEST_TMPDIR/profile" "file://$BATS_TEST_TMPDIR/crowded.html"
    assert_line --regexp "^overlap: trace edge '[a-z]+' \| edge '[a-z]+'$"
}

@test "browser: one HANG tag per hang on every real recording's page" {
    need_browser
    run grep -c '^texts: trace ' "$(D)/labels.txt"
    local pages=$output
    run grep -c '^tags: trace HANG 1$' "$(D)/labels.txt"
    assert_output "$pages"
    run grep '^tags: baseline HANG' "$(D)/labels.txt"
    assert_output ""
    # http-slow: curl's hang, five of whose segments are marked hang
    page_hangs=$(sed -n '/^const DATA = /,/;$/p' "$(D)/http-slow.html" | grep -o '"cls":" hang[^"]*"' | wc -l)
    [ "$page_hangs" -gt 1 ] || fail "http-slow: $page_hangs segments marked hang"
}

@test "browser: the page's times are the report's, wall clock beside (gtk-click)" {
    need_browser
    # the report on the page says the hang's moments so
    run grep -F 'When:      2561.429400 s (2026-11-28 21:28:38.419 UTC) to 2564.452864 s (3.023 s)' "$(D)/gtk-click.report"
    assert_success
    run sh -c "grep -o '<p class=\"verdict\" id=\"verdict\">.*' '$(D)/gtk-click.html' | sed 's/<[^>]*>//g'"
    assert_output "Hang 0 gtk-click-app/main [31923] hung 3.023 s (wait: blocked in wait4), from 2561.429400 s (2026-11-28 21:28:38.419 UTC) to 2564.452864 s; found by its main loop not back to waiting for events in time."
    run labels_of gtk-click
    assert_line "tick: trace 2562 s"
    assert_line "range: trace 2561.369 s to 2564.513 s (3.144 s shown; from 2026-11-28 21:28:38.359 UTC)"
    assert_line "marker: trace main loop not back in 2000 ms, at 2563.429400 s"
    assert_line --partial "tip: trace 260 seg 260: input mouseUp / gtk-click-app/main [31923] / events 2561.429407 s (2026-11-28 21:28:38.419 UTC) to 2564.452603 s (3.023 s) /"
    assert_line "event: trace 260 2561.429407"
    # the baseline's timeline on its own trace's clock
    run labels_of gtk-click.base
    assert_line --regexp '^tick: baseline 25[0-9][0-9]\.[0-9]+ s$'
}

@test "browser: a trace with no wall clock shows its own clock's times (gui-dbus)" {
    need_browser
    run grep -F 'When:      13507.243398 s to 13510.265154 s (3.022 s)' "$(D)/gui-dbus.report"
    assert_success
    run sh -c "grep -o '<p class=\"verdict\" id=\"verdict\">.*' '$(D)/gui-dbus.html' | sed 's/<[^>]*>//g'"
    assert_output "Hang 0 gtk-dbus-app/main [25605] hung 3.022 s (wait: blocked in poll), from 13507.243398 s to 13510.265154 s; found by its main loop not back to waiting for events in time."
    run labels_of gui-dbus
    assert_line "tick: trace 13508 s"
    assert_line "range: trace 13507.183 s to 13510.325 s (3.142 s shown)"
    assert_line "marker: trace main loop not back in 2000 ms, at 13509.243398 s"
    assert_line "event: trace 125 13507.243398"
}
