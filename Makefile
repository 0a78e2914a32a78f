# argus: build, test, check, bench, demo, install. See README.md.
PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
DESTDIR ?=
CC ?= cc
CFLAGS ?= -O2 -g
# libtracecmd and libtraceevent read trace-cmd's trace.dat (lib/decode/tracedat.c);
# their headers are in folders of their own, which pkg-config names.
TRACECMD_CFLAGS := $(shell pkg-config --cflags libtracecmd 2>/dev/null || \
    echo -I/usr/include/trace-cmd -I/usr/include/traceevent -I/usr/include/tracefs)
# libbabeltrace2 reads CTF traces (lib/decode/ctf.c): LTTng's, perf's.
BABELTRACE_CFLAGS := $(shell pkg-config --cflags babeltrace2 2>/dev/null)
BABELTRACE_LIBS := $(shell pkg-config --libs babeltrace2 2>/dev/null || echo -lbabeltrace2)
ARGUS_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Iinclude $(TRACECMD_CFLAGS) \
    $(BABELTRACE_CFLAGS)
# zlib and libzstd read compressed input (lib/stream/input.c, DEC-COMPRESSED);
# zlib also inflates Perfetto's compressed packets (lib/decode/perfetto.c).
LDLIBS := -lcbor -lxxhash -lyajl -lz -lzstd -ltracecmd -ltracefs -ltraceevent $(BABELTRACE_LIBS) \
    -lm -pthread

# A program is filters/NAME.c, or a folder filters/NAME/ of its own files
# (the recorder, the watcher).
FOLDER_PROGRAMS := $(notdir $(patsubst %/,%,$(wildcard filters/*/)))
FILTERS := $(sort $(basename $(notdir $(wildcard filters/*.c))) $(FOLDER_PROGRAMS))
PROGRAMS := $(FILTERS:%=bin/argus-%) bin/argus
# The library in its layers, each a folder of lib/ and of include/argus/:
# stream (CBOR, reader, writer, input, tables, command line), decode (the
# trace decoders), stages (the link stages' plumbing), analysis (the
# graph, its searches, the findings), view (the report, the exports); a
# layer uses only the ones before it.
LIB_SRC := $(wildcard lib/*/*.c)
HEADERS := $(wildcard include/argus/*/*.h filters/*/*.h)
# Each object's headers, as the compiler found them (-MMD: OBJ.d beside
# it; -MP: a header removed is no error). An object built before it had
# its .d depends on every header, once.
DEPFLAGS = -MMD -MP
headers_unless_d = $$(if $$(wildcard $$(basename $$@).d),,$$(HEADERS))
SAN_OBJ := $(LIB_SRC:lib/%.c=build-san/lib/%.o) build-san/gen/export-page.o
folder_objects = $(patsubst filters/%.c,$(1)/filters/%.o,$(wildcard filters/$(2)/*.c))

# Sanitizer build for `make check`, in a tree of its own.
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
FUZZERS := $(basename $(notdir $(wildcard tests/fuzz/fuzz-*.c)))
FUZZ_SECONDS ?= 30

.SECONDEXPANSION:
.PHONY: all test check sweep real-seeds bench bench-probes bench-watch demo install uninstall clean deps check-deps accuracy live man
.DELETE_ON_ERROR:
.SECONDARY:

all: $(PROGRAMS) bench/gen bench/gen-kdebug bench/gen-ftrace bench/gen-perfetto bench/gen-ctf \
    bench/first-touch bench/perfdata-text build/tests/findings-roundtrip

build/lib/%.o: lib/%.c $(headers_unless_d)
	@mkdir -p $(@D)
	$(CC) $(ARGUS_CFLAGS) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

build/libargus.a: $(LIB_SRC:lib/%.c=build/lib/%.o) build/gen/export-page.o
	rm -f $@
	ar rcs $@ $^

build/filters/%.o: filters/%.c $(headers_unless_d)
	@mkdir -p $(@D)
	$(CC) $(ARGUS_CFLAGS) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

bin/argus-%: build/filters/%.o build/libargus.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# The HTML export (lib/view/export-html.c) writes share/export-page.html,
# compiled into the library as a C string (argus_export_page), so that
# argus-export needs no file at run time; '?' is escaped so that no "??x"
# reads as a trigraph.
build/gen/export-page.c: share/export-page.html
	@mkdir -p $(@D)
	{ echo '/* generated from $< by the Makefile */'; \
	  echo 'const char argus_export_page[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/^/"/' -e 's/$$/\\n"/' $<; \
	  echo ';'; } > $@

build/gen/export-page.o: build/gen/export-page.c
	$(CC) $(ARGUS_CFLAGS) $(CFLAGS) -c -o $@ $<

build-san/gen/export-page.o: build/gen/export-page.c
	@mkdir -p $(@D)
	$(CC) $(ARGUS_CFLAGS) $(CFLAGS) -c -o $@ $<

define folder_program
bin/argus-$(1): $(call folder_objects,build,$(1)) build/libargus.a
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) -o $$@ $$^ $$(LDLIBS)

build-san/bin/argus-$(1): $(call folder_objects,build-san,$(1)) $(SAN_OBJ)
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) -o $$@ $$^ $$(LDLIBS)
endef
$(foreach p,$(FOLDER_PROGRAMS),$(eval $(call folder_program,$(p))))

# argus-watch records with argus-record's parts (all but its main and its
# command): tracefs, events, probes, threads, the trace's header lines.
RECORD_PARTS := $(filter-out filters/record/main.c filters/record/command.c,$(wildcard filters/record/*.c))
bin/argus-watch: $(RECORD_PARTS:filters/%.c=build/filters/%.o)
build-san/bin/argus-watch: $(RECORD_PARTS:filters/%.c=build-san/filters/%.o)

bin/argus: scripts/argus
	@mkdir -p $(@D)
	cp $< $@
	chmod +x $@

bench/gen: bench/gen.c bench/rng.h build/libargus.a $(HEADERS)
	$(CC) $(ARGUS_CFLAGS) $(CFLAGS) -o $@ bench/gen.c build/libargus.a $(LDLIBS)

bench/gen-kdebug: bench/gen-kdebug.c bench/rng.h
	$(CC) $(ARGUS_CFLAGS) $(CFLAGS) -o $@ bench/gen-kdebug.c

bench/gen-ftrace: bench/gen-ftrace.c bench/rng.h
	$(CC) $(ARGUS_CFLAGS) $(CFLAGS) -o $@ bench/gen-ftrace.c

# ftrace text to a Perfetto trace of the same events (tests, fuzz seeds, bench)
bench/gen-perfetto: bench/gen-perfetto.c build/libargus.a $(HEADERS)
	$(CC) $(ARGUS_CFLAGS) $(CFLAGS) -o $@ bench/gen-perfetto.c build/libargus.a -lz -lzstd

bench/gen-ctf: bench/gen-ctf.c
	$(CC) $(ARGUS_CFLAGS) $(CFLAGS) -o $@ bench/gen-ctf.c

# Each analysis record read into its struct and written again
# (tests/findings.bats).
build/tests/findings-roundtrip: tests/tools/findings-roundtrip.c build/libargus.a
	@mkdir -p $(@D)
	$(CC) $(ARGUS_CFLAGS) $(CFLAGS) -o $@ $< build/libargus.a $(LDLIBS)

bench/first-touch: bench/first-touch.c
	$(CC) $(ARGUS_CFLAGS) $(CFLAGS) -o $@ bench/first-touch.c

# The ftrace lines of a perf.data, for make bench's text decoder (BENCH_PERFDATA).
bench/perfdata-text: bench/perfdata-text.c build/libargus.a
	$(CC) $(ARGUS_CFLAGS) $(CFLAGS) -o $@ bench/perfdata-text.c build/libargus.a $(LDLIBS)

# Installs what the build and the tests need (apt-get as root), or says
# what to install.
deps:
	@scripts/deps.sh

test: deps
	@$(MAKE) --no-print-directory all
	@scripts/run-tests.sh

# Sanitizer build of every program and fuzzer, the sweep of the real
# recordings on it (scripts/sweep.sh), the whole test suite on it,
# then each fuzzer for FUZZ_SECONDS, starting from its seed corpus, what
# earlier runs found (build-san/corpus, first filled from tests/fuzz/grown)
# and the reproducers of bugs fixed (tests/fuzz/crashes).
check: deps
	@scripts/deps.sh check
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory CC=clang CFLAGS="$(SAN_FLAGS)" \
	    BUILD=build-san san-programs
	ARGUS_BIN=$(CURDIR)/build-san/bin scripts/sweep.sh
	ARGUS_BIN=$(CURDIR)/build-san/bin scripts/run-tests.sh
	@crashes=$$(test -d tests/fuzz/crashes && echo tests/fuzz/crashes); \
	for f in $(FUZZERS); do \
	    corpus=$$(tests/fuzz/corpus-dir $$f) || exit 1; \
	    echo "fuzzing $$f for $(FUZZ_SECONDS) s"; \
	    build-san/$$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	        -artifact_prefix=build-san/ $$corpus tests/fuzz/corpus/$$f \
	        $$crashes 2>build-san/$$f.log || { tail -40 build-san/$$f.log; exit 1; }; \
	    grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' \
	        build-san/$$f.log; \
	done

# Every real recording, whole and cut short, through argus graph, diagnose
# and export on the sanitizer build, and no crash (scripts/sweep.sh,
# docs/reliability.md); make check runs it too.
sweep: deps
	@scripts/deps.sh check
	@$(MAKE) --no-print-directory CC=clang CFLAGS="$(SAN_FLAGS)" \
	    BUILD=build-san $(FILTERS:%=build-san/bin/argus-%) build-san/bin/argus
	ARGUS_BIN=$(CURDIR)/build-san/bin scripts/sweep.sh

# The fuzz seeds made from the real recordings (real-* in
# tests/fuzz/corpus/fuzz-graph and fuzz-link), made again from
# fixtures/real with bin/ (tests/fuzz/README.md).
real-seeds: all
	tests/fuzz/corpus/make-real-seeds.sh

# The sanitizer tree: objects under build-san/, programs under build-san/bin.
san-programs: $(FILTERS:%=build-san/bin/argus-%) build-san/bin/argus $(FUZZERS:%=build-san/%)

build-san/lib/%.o: lib/%.c $(headers_unless_d)
	@mkdir -p $(@D)
	$(CC) $(ARGUS_CFLAGS) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

build-san/filters/%.o: filters/%.c $(headers_unless_d)
	@mkdir -p $(@D)
	$(CC) $(ARGUS_CFLAGS) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

build-san/bin/argus-%: build-san/filters/%.o $(SAN_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

build-san/bin/argus: scripts/argus
	@mkdir -p $(@D)
	cp $< $@
	chmod +x $@

# The fuzzers link library objects of their own, built with libFuzzer's
# coverage instrumentation (without it libFuzzer sees only the harness).
FUZZ_OBJ := $(LIB_SRC:lib/%.c=build-san/fuzz-lib/%.o) build-san/gen/export-page.o

build-san/fuzz-lib/%.o: lib/%.c $(headers_unless_d)
	@mkdir -p $(@D)
	$(CC) $(ARGUS_CFLAGS) $(CFLAGS) $(DEPFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

build-san/fuzz-%: tests/fuzz/fuzz-%.c $(wildcard tests/fuzz/*.h) $(FUZZ_OBJ)
	$(CC) $(ARGUS_CFLAGS) $(CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJ) $(LDLIBS)

# fuzz-record drives argus-record's parsers, compiled in with the harness.
RECORD_PARSERS := filters/record/parse.c filters/record/symbols.c
build-san/fuzz-record: tests/fuzz/fuzz-record.c $(RECORD_PARSERS) filters/record/record.h $(FUZZ_OBJ)
	$(CC) $(ARGUS_CFLAGS) $(CFLAGS) -fsanitize=fuzzer -o $@ $< $(RECORD_PARSERS) $(FUZZ_OBJ) $(LDLIBS)

bench: all
	bench/run.sh
	bench/threads.sh

# What argus-record's uprobes cost a busy GTK 3 app (root, Xvfb, python3-gi;
# exit 77 without them): docs/performance.md, "Probes". Not part of make bench.
bench-probes: all
	bench/probe-cost.sh

# What argus-watch costs: its CPU and memory idle and during a build, and
# a syscall-heavy dd's slowdown under it, argus-record and perf record
# (root): docs/performance.md, "What argus watch costs".
bench-watch: all
	bench/watch-cost.sh

# The scoreboard on the real corpus and the hand-written diagnoses
# (docs/accuracy.md); not part of make test's verdict.
accuracy: all
	@scripts/accuracy.sh

# Records every scenario of tests/live/scenarios afresh (root, tracefs and
# the scenarios' programs: apt-get lines in tests/live/README.md) and
# scores them, without touching fixtures/real (tests/live/corpus.sh does).
live: deps
	@scripts/deps.sh live
	@$(MAKE) --no-print-directory all
	@tests/live/live.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo.sh

# Man pages, one per program, made by help2man from the program's own
# --help and --version (scripts/mkman): the one source they share.
MAN_PAGES := $(PROGRAMS:bin/%=build/man/%.1)
man: $(MAN_PAGES)

build/man/%.1: bin/% scripts/mkman
	@mkdir -p $(@D)
	DOCDIR=$(PREFIX)/share/doc/argus scripts/mkman $< $@

build/argus.pc: scripts/argus.pc.in include/argus/stream/cli.h
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(PREFIX)|' \
	    -e "s|@VERSION@|$$(sed -n 's/^#define ARGUS_VERSION "\(.*\)"/\1/p' include/argus/stream/cli.h)|" $< > $@

build/argus-watch.service: scripts/argus-watch.service.in
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' $< > $@

COMPLETIONS := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
INSTALL_HEADERS := $(wildcard include/argus/*/*.h)

# The programs, their man pages and completion, the docs, the library
# with its headers and pkg-config file (docs/library.md), and argus-watch's
# systemd unit (not enabled) with its settings (kept when they exist).
install: all man build/argus.pc build/argus-watch.service
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/doc/argus/stages \
	    $(DESTDIR)$(PREFIX)/share/doc/argus/inputs $(DESTDIR)$(PREFIX)/share/doc/argus/examples \
	    $(DESTDIR)$(PREFIX)/share/doc/argus/images \
	    $(DESTDIR)$(PREFIX)/share/man/man1 $(COMPLETIONS) \
	    $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	    $(addprefix $(DESTDIR)$(PREFIX)/,$(sort $(dir $(INSTALL_HEADERS))))
	install -m 755 $(PROGRAMS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 README.md docs/*.md $(DESTDIR)$(PREFIX)/share/doc/argus/
	install -m 644 docs/stages/*.md $(DESTDIR)$(PREFIX)/share/doc/argus/stages/
	install -m 644 docs/inputs/*.md $(DESTDIR)$(PREFIX)/share/doc/argus/inputs/
	install -m 644 docs/examples/* $(DESTDIR)$(PREFIX)/share/doc/argus/examples/
	install -m 644 $(MAN_PAGES) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 scripts/argus-completion.bash $(COMPLETIONS)/argus
	for p in $(FILTERS); do ln -sf argus $(COMPLETIONS)/argus-$$p; done
	install -m 644 build/libargus.a $(DESTDIR)$(PREFIX)/lib/
	for h in $(INSTALL_HEADERS); do install -m 644 $$h $(DESTDIR)$(PREFIX)/$$h; done
	install -m 644 build/argus.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	install -m 644 docs/images/* $(DESTDIR)$(PREFIX)/share/doc/argus/images/
	install -d $(DESTDIR)$(PREFIX)/lib/systemd/system $(DESTDIR)$(SYSCONFDIR)/default
	install -m 644 build/argus-watch.service $(DESTDIR)$(PREFIX)/lib/systemd/system/
	[ -e $(DESTDIR)$(SYSCONFDIR)/default/argus-watch ] || \
	    install -m 644 scripts/argus-watch.default $(DESTDIR)$(SYSCONFDIR)/default/argus-watch

uninstall:
	rm -f $(PROGRAMS:bin/%=$(DESTDIR)$(PREFIX)/bin/%)
	rm -f $(MAN_PAGES:build/man/%=$(DESTDIR)$(PREFIX)/share/man/man1/%)
	rm -f $(COMPLETIONS)/argus $(FILTERS:%=$(COMPLETIONS)/argus-%)
	rm -f $(DESTDIR)$(PREFIX)/lib/libargus.a $(DESTDIR)$(PREFIX)/lib/pkgconfig/argus.pc
	rm -rf $(DESTDIR)$(PREFIX)/include/argus
	rm -f $(DESTDIR)$(PREFIX)/lib/systemd/system/argus-watch.service
	! cmp -s scripts/argus-watch.default $(DESTDIR)$(SYSCONFDIR)/default/argus-watch || \
	    rm -f $(DESTDIR)$(SYSCONFDIR)/default/argus-watch
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/argus

clean:
	rm -rf bin build build-san bench/gen bench/gen-kdebug bench/gen-ftrace bench/gen-perfetto bench/gen-ctf \
	    bench/first-touch bench/perfdata-text bench/out

-include $(shell find build build-san -name '*.d' 2>/dev/null)
