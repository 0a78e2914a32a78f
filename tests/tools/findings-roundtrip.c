/* findings-roundtrip [STREAM]: each analysis record of STREAM read into
 * its struct and written again through lib/analysis/findings.c, every
 * other record copied as it is, so that the output is the input byte for
 * byte when a kind's reader and writer agree (tests/findings.bats).
 * A record its reader refuses: the reader's message, exit 65. With -k,
 * prints only the kinds it read, one per line. */
#include "argus/analysis/findings.h"
#include "argus/stream/cli.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    bool kinds = argc > 1 && strcmp(argv[1], "-k") == 0;
    const char *input = argc > 1 + kinds ? argv[1 + kinds] : NULL;
    argus_reader *rd = argus_reader_open(input);
    argus_writer *w = argus_writer_stdout();
    if (!kinds)
        argus_write_record(w, argus_reader_header(rd));
    const argus_record *r;
    while ((r = argus_read(rd))) {
        argus_finding_kind k = argus_finding_kind_of(r->type_name, r->type_len);
        argus_findings_mem mem = {0};
        union {
            argus_hang_finding hang;
            argus_path_finding path;
            argus_chain_finding chain;
            argus_cpath_finding cpath;
            argus_match_finding match;
            argus_no_match_finding no_match;
            argus_culprit_finding culprit;
            argus_branch_finding branch;
        } f;
        bool ok = true;
        switch (k) {
#define KIND(K, read, write, field)                                            \
        case K:                                                                \
            if ((ok = read(r, &mem, &f.field)) && !kinds)                      \
                write(w, &f.field);                                            \
            break;
        KIND(ARGUS_F_HANG, argus_read_hang, argus_write_hang, hang)
        KIND(ARGUS_F_PATH, argus_read_path, argus_write_path, path)
        KIND(ARGUS_F_WAIT_CHAIN, argus_read_chain, argus_write_chain, chain)
        KIND(ARGUS_F_CRITICAL_PATH, argus_read_cpath, argus_write_cpath, cpath)
        KIND(ARGUS_F_MATCH, argus_read_match, argus_write_match, match)
        KIND(ARGUS_F_NO_MATCH, argus_read_no_match, argus_write_no_match, no_match)
        KIND(ARGUS_F_CULPRIT, argus_read_culprit, argus_write_culprit, culprit)
        KIND(ARGUS_F_BRANCH, argus_read_branch, argus_write_branch, branch)
#undef KIND
        default:
            k = ARGUS_F_NONE;
            if (!kinds)
                argus_write_record(w, r);
        }
        if (!ok)
            argus_record_fail(rd, r, "%s record: %s", argus_finding_kind_name(k), mem.error);
        if (kinds && k != ARGUS_F_NONE)
            printf("%s\n", argus_finding_kind_name(k));
        argus_findings_mem_free(&mem);
    }
    argus_writer_close(w);
    argus_reader_close(rd);
    return 0;
}
