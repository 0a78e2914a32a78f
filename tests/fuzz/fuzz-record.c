/* libFuzzer target for what argus-record parses (filters/record/):
 * the lines of tracefs's trace file (trace_line_time, the
 * entries-in-buffer header), of /proc/PID/maps (parse_maps_line) and of
 * /proc/PID/task/TID/stat (parse_thread_stat), and the ELF symbol reader
 * (symbols.c: function_offset, as a uprobe's place is found, and
 * symbol_in_file, as --watch finds a variable by name or address).
 *
 * The input: text lines, then a NUL and an ELF file (a memory file
 * opened by name, as the recorder opens a mapped file). Every line goes
 * through the three line parsers; the maps lines that parse, with one
 * mapping of the ELF file at 0x400000 named /fuzz/lib.so, are the
 * mappings symbols are looked up in; the symbol names looked up are
 * g_main_context_iteration, a data symbol "counter", and the first
 * line's first word; the addresses, each mapping's start.
 *
 * Checks besides the sanitizers: a time parsed from a line is one the
 * line holds (its digits before the colon); a comm is under 64 bytes
 * with no control character; a mapping's path is NULL or absolute; a
 * symbol found by name has that name (cut at 255 bytes), one found by
 * address that address.
 */
#include "../../filters/record/record.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HARNESS "fuzz-record"
#include "check.h"

static int elf_fd = -1;
static char elf_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    elf_fd = memfd_create(HARNESS, 0);
    if (elf_fd < 0)
        abort();
    snprintf(elf_path, sizeof elf_path, "/proc/self/fd/%d", elf_fd);
    return 0;
}

static void check_line(const char *line, struct maps *maps, size_t *alloc)
{
    uint64_t ns, lost;
    if (trace_line_time(line, &ns))
        CHECK(strstr(line, " [") && strchr(line, '.') && strchr(line, ':'));
    if (trace_header_overwritten(line, &lost))
        CHECK(lost > 0 && strstr(line, "entries-in-buffer/entries-written:"));

    struct thread_info t;
    memset(&t, 0x55, sizeof t);
    if (parse_thread_stat(line, &t)) {
        size_t n = strnlen(t.comm, sizeof t.comm);
        CHECK(n < sizeof t.comm);
        CHECK(t.ppid >= 0);
        for (size_t i = 0; i < n; i++)
            CHECK((unsigned char)t.comm[i] >= 0x20 && t.comm[i] != 0x7f);
    }

    char *copy = strdup(line);
    if (!copy)
        abort();
    if (*alloc == maps->n) {
        *alloc = *alloc ? 2 * *alloc : 8;
        maps->v = realloc(maps->v, *alloc * sizeof *maps->v);
        if (!maps->v)
            abort();
    }
    if (parse_maps_line(copy, &maps->v[maps->n])) {
        const char *p = maps->v[maps->n].path;
        CHECK(!p || p[0] == '/');
        maps->n++;
    }
    free(copy);
}

static void look_up(const struct maps *maps, const char *name, uint64_t addr)
{
    struct symbol_hit hit;
    memset(&hit, 0, sizeof hit);
    if (symbol_in_file(elf_path, maps, "/fuzz/lib.so", name, addr, &hit)) {
        CHECK(strnlen(hit.name, sizeof hit.name) < sizeof hit.name);
        CHECK(strcmp(hit.file, "/fuzz/lib.so") == 0);
        if (name)
            CHECK(strncmp(hit.name, name, sizeof hit.name - 1) == 0);
        else
            CHECK(hit.addr == addr);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t text_len = nul ? (size_t)(nul - data) : size;
    const uint8_t *elf = nul ? nul + 1 : data + size;
    size_t elf_len = (size_t)(data + size - elf);

    if (ftruncate(elf_fd, 0) != 0 || lseek(elf_fd, 0, SEEK_SET) != 0 ||
        (elf_len && write(elf_fd, elf, elf_len) != (ssize_t)elf_len))
        abort();

    char *text = malloc(text_len + 1);
    if (!text)
        abort();
    memcpy(text, data, text_len);
    text[text_len] = 0;

    struct maps maps = {0};
    size_t alloc = 0;
    char first[64] = "";
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        if (line == text)
            sscanf(line, "%63s", first);
        check_line(line, &maps, &alloc);
    }
    if (alloc == maps.n) {
        maps.v = realloc(maps.v, (alloc + 1) * sizeof *maps.v);
        if (!maps.v)
            abort();
    }
    maps.v[maps.n++] = (struct mapping){0x400000, 0x500000, 0, strdup("/fuzz/lib.so")};

    const char *names[] = {"g_main_context_iteration", "counter", first};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        if (!*names[i])
            continue;
        look_up(&maps, names[i], 0);
        uint64_t offset;
        function_offset(elf_path, names[i], &offset);
    }
    for (size_t m = 0; m < maps.n && m < 8; m++)
        look_up(&maps, NULL, maps.v[m].start);

    free_maps(&maps);
    free(text);
    return 0;
}
