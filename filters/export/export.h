/* argus-export's parts (docs/stages/export.md): main.c (the command
 * line), common.c (what the three formats share: writing JSON strings,
 * naming what a segment did, the findings to draw and the input read
 * twice), perfetto.c (Chrome trace-event JSON, streamed), dot.c
 * (Graphviz) and html.c (the page). What one uses of another is here. */
#ifndef ARGUS_EXPORT_H
#define ARGUS_EXPORT_H

#include "argus/analysis/findings.h"
#include "argus/analysis/graph.h"
#include "argus/stream/stream.h"
#include "argus/stream/table.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NONE32 UINT32_MAX
#define NONE64 UINT64_MAX

typedef struct namer {
    int rank;
    char text[160];
} namer;

enum { M_HANG = 1, M_PATH = 2, M_CHAIN = 4, M_CULPRIT = 8 };
typedef struct mark {
    uint8_t bits;
    uint32_t hang;              /* of M_HANG */
    uint32_t culprit_rank;      /* best rank among culprits */
} mark;

typedef struct hang_info {
    uint64_t hang, seg, first_seg, tid, pid, begin, end, duration;
    char cls[16], indicator[64];
} hang_info;

typedef struct chain_link {
    uint64_t from, to;
} chain_link;

/* The findings to draw (take_finding, findings_from_graph): each marked
 * segment's mark, the hangs, the segments of the --around hang (or of
 * every hang), the wait chains' links; and what --around and --window
 * chose (main.c sets them). */
extern bool in_script;
extern argus_table marks;
extern hang_info *hangs;
extern size_t nhangs, cap_hangs;
extern bool have_findings;
extern uint64_t *cores;
extern size_t ncores, cap_cores;
extern long around;
extern bool windowed;
extern uint64_t window_from, window_to;
extern chain_link *links;
extern size_t nlinks, cap_links;

void begin_event(void);
void check_around(void);
void copy_finding_text(char *dst, size_t size, const char *s);
void copy_text(char *dst, size_t size, const char *src);
void describe(char *dst, size_t size, int type, const char *text, uint64_t aux);
void findings_from_graph(argus_graph *g, const argus_reader *rd);
void make_stdin_seekable(void);
void namer_add(namer *nm, int type, const char *desc);
void namer_final_wait(namer *nm, const char *desc);
uint64_t value_or(uint64_t v, uint64_t dflt);
void out(const char *s);
bool parse_secs(const char *s, size_t len, uint64_t *ns);
void put_escaped(const char *s, size_t n, bool dot);
void put_str(const char *s);
void put_us(uint64_t ns);
void rewind_input(const char *input);
void seg_name(const argus_graph *g, const argus_seg *s, char *dst, size_t size);
void take_finding(const argus_reader *rd, const argus_record *r);
bool want_hang(uint64_t h);

/* The three formats; each reads INPUT (NULL or "-": standard input,
 * seekable by then) and writes stdout. */
void export_perfetto(const char *input);
int export_dot(const char *input);
int export_html(const char *input, const char *report, const char *baseline,
                const char *baseline_name);

#endif
