/* The exports, argus-export's formats (docs/stages/export.md):
 * export-common.c (what the three share: writing JSON strings, naming
 * what a segment did, the findings to draw and the input read twice),
 * export-perfetto.c (Chrome trace-event JSON, streamed), export-dot.c
 * (Graphviz) and export-html.c (the page). filters/export.c is the
 * command line. Only these include this header: what one of them uses
 * of another is here. */
#ifndef ARGUS_VIEW_EXPORT_H
#define ARGUS_VIEW_EXPORT_H

#include "argus/analysis/findings.h"
#include "argus/analysis/graph.h"
#include "argus/stream/stream.h"
#include "argus/stream/table.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NONE32 UINT32_MAX
#define NONE64 UINT64_MAX

typedef struct export_namer {
    int rank;
    char text[160];
} export_namer;

enum { M_HANG = 1, M_PATH = 2, M_CHAIN = 4, M_CULPRIT = 8 };
typedef struct export_mark {
    uint8_t bits;
    uint32_t hang;              /* of M_HANG */
    uint32_t culprit_rank;      /* best rank among culprits */
} export_mark;

typedef struct export_hang_info {
    uint64_t hang, seg, first_seg, tid, pid, begin, end, duration;
    char cls[16], indicator[64];
} export_hang_info;

typedef struct export_chain_link {
    uint64_t from, to;
} export_chain_link;

/* What one export holds, whatever its format: what the command line
 * chose (filters/export.c sets it), the findings to draw
 * (argus_export_take_finding, argus_export_findings_from_graph), and the
 * output's state. Each format's own state is a struct of its file that
 * points here. */
typedef struct export_state {
    long around;                /* --around N: hang N only; -1: every hang */
    /* --window: times as the report prints them, in ns: on the trace's own
     * clock (ts + the header's origin), or ts where there is no origin */
    bool windowed;
    uint64_t window_from, window_to;
    argus_table marks;          /* seg -> export_mark */
    export_hang_info *hangs;
    size_t nhangs, cap_hangs;
    bool have_findings;
    uint64_t *cores;            /* the segments of the --around hang (or of every hang) */
    size_t ncores, cap_cores;
    export_chain_link *links;          /* the wait chains' links, for dot */
    size_t nlinks, cap_links;
    /* where a finding read back from a loaded graph came from (the graph
     * keeps its record number, not its offset) */
    const char *extra_input;
    uint64_t extra_number;
    bool in_script;             /* writing strings into the page's script */
    bool first_event;           /* no trace event written yet */
} export_state;

void argus_export_begin_event(export_state *X);
void argus_export_check_around(export_state *X);
void argus_export_copy_finding_text(char *dst, size_t size, const char *s);
void argus_export_copy_text(char *dst, size_t size, const char *src);
void argus_export_describe(char *dst, size_t size, int type, const char *text, uint64_t aux, bool plain);
void argus_export_findings_from_graph(export_state *X, argus_graph *g, const argus_reader *rd);
void argus_export_make_stdin_seekable(void);
void argus_export_namer_add(export_namer *nm, int type, const char *desc);
void argus_export_namer_final_wait(export_namer *nm, const char *desc);
uint64_t argus_export_value_or(uint64_t v, uint64_t dflt);
void argus_export_out(const char *s);
bool argus_export_parse_secs(const char *s, size_t len, uint64_t *ns);
void argus_export_put_escaped(export_state *X, const char *s, size_t n, bool dot);
void argus_export_put_str(export_state *X, const char *s);
void argus_export_put_us(uint64_t ns);
void argus_export_rewind_input(const char *input);
void argus_export_seg_name(const argus_graph *g, const argus_seg *s, char *dst, size_t size, bool plain);
void argus_export_take_finding(export_state *X, const argus_reader *rd, const argus_record *r);
bool argus_export_want_hang(export_state *X, uint64_t h);

/* The three formats, for X; each reads INPUT (NULL or "-": standard
 * input, seekable by then) and writes stdout. */
void argus_export_perfetto(export_state *x, const char *input);
int argus_export_dot(export_state *X, const char *input);
int argus_export_html(export_state *x, const char *input, const char *report, const char *baseline,
                const char *baseline_name);

#endif
