/* argus-cache-key: the XXH3 key under which `argus graph --cache` keeps a
 * stage's output (docs/front-command.md). */
#include "argus/stream/cli.h"
#include "argus/stream/input.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

static const char usage[] =
    "Usage: argus-cache-key [--input FILE]... [TEXT...]\n"
    "Print the XXH3-64 key of files' contents followed by texts.\n"
    "\n"
    "argus graph --cache keys each stage's output by the key of its input,\n"
    "the stage's program and its command line, so that changing one\n"
    "stage's flags or program recomputes that stage and those after it,\n"
    "and nothing before; it also checks a cache entry against the key of\n"
    "its content.\n"
    "\n"
    "  -i, --input FILE  hash the content of FILE ('-': stdin) first; may\n"
    "                    be given several times, the files hashed in order;\n"
    "                    a directory (a CTF trace): each file under it, in\n"
    "                    name order, its path and content\n"
    "  -h, --help        show this help\n"
    "      --version     show the version\n";

/* Hashes the content of the file PATH into STATE, then its length (so
 * that files "ab","c" differ from "a","bc"). */
static void hash_file(XXH3_state_t *state, const char *path)
{
    argus_input in;
    uint64_t len = 0;
    argus_input_open_raw(&in, path, 1u << 22); /* the file's own bytes, compressed or not */
    do {
        in.lo = in.hi; /* everything read so far is hashed */
        argus_input_fill(&in);
        XXH3_64bits_update(state, in.buf + in.lo, in.hi - in.lo);
        len += in.hi - in.lo;
    } while (!in.eof);
    argus_input_close(&in);
    uint8_t le[8];
    for (int b = 0; b < 8; b++)
        le[b] = (uint8_t)(len >> (8 * b));
    XXH3_64bits_update(state, le, sizeof le);
}

/* A, SEP and B as one string; the caller frees it. */
static char *joined(const char *a, const char *sep, const char *b)
{
    size_t la = strlen(a), ls = strlen(sep), lb = strlen(b);
    char *s = argus_xmalloc(la + ls + lb + 1, "a path");
    memcpy(s, a, la);
    memcpy(s + la, sep, ls);
    memcpy(s + la + ls, b, lb + 1);
    return s;
}

/* A directory (a CTF trace): each file under it, in name order, its path
 * below DIR hashed before its content. */
static void hash_dir(XXH3_state_t *state, const char *dir, const char *rel)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    if (n < 0)
        argus_die(ARGUS_EX_NOINPUT, "%s: %s", dir, strerror(errno));
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0) {
            char *path = joined(dir, "/", name), *sub = joined(rel, *rel ? "/" : "", name);
            struct stat st;
            if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
                hash_dir(state, path, sub);
            } else {
                XXH3_64bits_update(state, sub, strlen(sub) + 1);
                hash_file(state, path);
            }
            free(path);
            free(sub);
        }
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    static const struct option opts[] = {
        {"input", required_argument, 0, 'i'},
        ARGUS_OPTION_HELP,
        ARGUS_OPTION_VERSION,
        {0, 0, 0, 0},
    };
    const char **inputs = argus_xcalloc((size_t)argc, sizeof *inputs, "inputs");
    int ninputs = 0;
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "i:h", opts, NULL)) != -1) {
        switch (c) {
        case 'i': inputs[ninputs++] = optarg; break;
        default: argus_common_option(c, usage, &common, argv);
        }
    }
    XXH3_state_t *state = XXH3_createState();
    if (!state) /* xxHash's own allocation */
        argus_die(ARGUS_EX_IOERR, "out of memory (hash state)");
    XXH3_64bits_reset(state);
    for (int i = 0; i < ninputs; i++) {
        struct stat st;
        if (strcmp(inputs[i], "-") != 0 && stat(inputs[i], &st) == 0 && S_ISDIR(st.st_mode))
            hash_dir(state, inputs[i], "");
        else
            hash_file(state, inputs[i]);
    }
    for (int i = optind; i < argc; i++) /* NUL-separated, so "a b","c" != "a","b c" */
        XXH3_64bits_update(state, argv[i], strlen(argv[i]) + 1);
    printf("%016llx\n", (unsigned long long)XXH3_64bits_digest(state));
    XXH3_freeState(state);
    free(inputs);
    argus_close_stdout();
    return 0;
}
