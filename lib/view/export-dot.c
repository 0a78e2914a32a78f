/* argus-export --output-format dot: Graphviz of the hangs' causal
 * paths, wait chains and culprits. */
#include "argus/view/export.h"

#include "argus/stream/cli.h"
#include "argus/stream/text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void dot_str(export_state *X, const char *s)
{
    argus_export_put_escaped(X, s, strlen(s), true);
}

static void put_dur(uint64_t ns)
{
    if (ns >= 1000000000)
        printf("%.2f s", (double)ns / 1e9);
    else if (ns >= 1000000)
        printf("%.1f ms", (double)ns / 1e6);
    else
        printf("%.1f us", (double)ns / 1e3);
}

int argus_export_dot(export_state *X, const char *input)
{
    argus_reader *rd = argus_reader_open(input);
    argus_graph g;
    argus_graph_load(&g, rd, &(argus_graph_options){.keep_key_events = true});
    argus_export_findings_from_graph(X, &g, rd);
    argus_reader_close(rd);
    argus_export_check_around(X);
    uint8_t *in = argus_xcalloc(g.nsegs ? g.nsegs : 1, 1, "segments drawn");
    if (!X->have_findings) {
        if (g.nsegs > 200) {
            argus_warn("no findings in the stream (argus-find-spinning writes them) and %u "
                       "segments: too many to draw; export --format perfetto shows them all",
                       g.nsegs);
            free(in);
            argus_graph_free(&g);
            return 1;
        }
        memset(in, 1, g.nsegs);
    } else {
        for (size_t i = 0; i < X->ncores; i++) {
            uint32_t si = argus_graph_find_seg(&g, X->cores[i]);
            if (si != ARGUS_NONE)
                in[si] = 1;
        }
    }
    argus_export_out("digraph argus {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n"
        "  edge [fontname=\"Helvetica\", fontsize=9];\n");
    /* one cluster per process, in order of first appearance */
    uint8_t *done = argus_xcalloc(g.nthreads ? g.nthreads : 1, 1, "threads drawn");
    for (uint32_t t0 = 0; t0 < g.nthreads; t0++) {
        if (done[t0])
            continue;
        uint64_t pid = g.threads[t0].pid;
        bool any = false;
        for (uint32_t t = t0; t < g.nthreads; t++) {
            if (g.threads[t].pid != pid)
                continue;
            done[t] = 1;
            for (uint32_t k = g.seg_first[t]; k < g.seg_first[t + 1]; k++) {
                uint32_t si = g.thread_segs[k];
                if (!in[si])
                    continue;
                if (!any) {
                    const char *proc =
                        g.threads[t0].proc ? argus_graph_str(&g, g.threads[t0].proc) : "";
                    printf("  subgraph cluster_%llu {\n    label=\"", (unsigned long long)pid);
                    dot_str(X, *proc ? proc : "pid");
                    printf(" (%llu)\";\n", (unsigned long long)pid);
                    any = true;
                }
                const argus_seg *s = &g.segs[si];
                const argus_gthread *th = &g.threads[t];
                char name[200];
                argus_export_seg_name(&g, s, name, sizeof name, false);
                export_mark *m = argus_table_get(&X->marks, s->seg);
                printf("    s%llu [label=\"", (unsigned long long)s->seg);
                dot_str(X, th->name ? argus_graph_str(&g, th->name) : th->main ? "main" : "thread");
                printf(" [%llu]\\nseg %llu: ", (unsigned long long)th->tid,
                       (unsigned long long)s->seg);
                dot_str(X, name);
                argus_export_out("\\n");
                put_dur(argus_seg_until(&g, s) - s->begin);
                if (m && (m->bits & M_HANG))
                    printf("\\nHANG %u", (unsigned)m->hang);
                if (m && (m->bits & M_CULPRIT))
                    printf("\\nCULPRIT (rank %u)", (unsigned)m->culprit_rank);
                argus_export_out("\"");
                if (m && (m->bits & M_HANG))
                    argus_export_out(", style=filled, fillcolor=\"#f4a6a6\"");
                else if (m && (m->bits & M_CULPRIT))
                    argus_export_out(", style=filled, fillcolor=\"#ffd27f\"");
                if (m && (m->bits & M_PATH))
                    argus_export_out(", penwidth=2");
                argus_export_out("];\n");
            }
        }
        if (any)
            argus_export_out("  }\n");
    }
    for (uint32_t e = 0; e < g.nedges; e++) {
        const argus_gedge *ed = &g.edges[e];
        if (ed->from_seg == ARGUS_NONE || ed->to_seg == ARGUS_NONE || ed->from_seg == ed->to_seg ||
            !in[ed->from_seg] || !in[ed->to_seg])
            continue;
        printf("  s%llu -> s%llu [label=\"", (unsigned long long)g.segs[ed->from_seg].seg,
               (unsigned long long)g.segs[ed->to_seg].seg);
        dot_str(X, ed->kind ? argus_graph_str(&g, ed->kind) : "edge");
        printf("\"%s];\n", ed->weak ? ", style=dashed" : "");
    }
    for (size_t i = 0; i < X->nlinks; i++) {
        uint32_t a = argus_graph_find_seg(&g, X->links[i].from);
        uint32_t b = argus_graph_find_seg(&g, X->links[i].to);
        if (a == ARGUS_NONE || b == ARGUS_NONE || !in[a] || !in[b])
            continue;
        printf("  s%llu -> s%llu [label=\"waits on\"", (unsigned long long)X->links[i].from,
               (unsigned long long)X->links[i].to);
        argus_export_out(", style=dotted, color=\"#c03030\", constraint=false];\n");
    }
    argus_export_out("}\n");
    free(done);
    free(in);
    argus_graph_free(&g);
    return 0;
}
