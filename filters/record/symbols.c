/* argus-record: symbols of a running process, from the ELF symbol tables
 * of the files it maps (/proc/PID/maps and map_files). */
#include "record.h"

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

bool read_maps(pid_t pid, struct maps *m)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    char *line = NULL;
    size_t cap = 0, alloc = 0;
    m->v = NULL;
    m->n = 0;
    while (getline(&line, &cap, f) > 0) {
        if (m->n == alloc) {
            alloc = alloc ? alloc * 2 : 64;
            m->v = argus_xrealloc(m->v, alloc * sizeof *m->v, "a process's memory map");
        }
        if (parse_maps_line(line, &m->v[m->n]))
            m->n++;
    }
    free(line);
    fclose(f);
    return true;
}

void free_maps(struct maps *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->v[i].path);
    free(m->v);
    m->v = NULL;
    m->n = 0;
}

/* A mapped ELF64 file, read through /proc/PID/map_files (the very file
 * mapped, also when deleted or in another mount namespace). */
struct elf_file {
    const uint8_t *data;
    size_t size;
    const Elf64_Ehdr *eh;
};

static bool elf_open(const char *path, struct elf_file *ef)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (size_t)sb.st_size < sizeof(Elf64_Ehdr)) {
        close(fd);
        return false;
    }
    void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return false;
    ef->data = p;
    ef->size = (size_t)sb.st_size;
    ef->eh = p;
    const unsigned char *id = ef->eh->e_ident;
    if (memcmp(id, ELFMAG, SELFMAG) != 0 || id[EI_CLASS] != ELFCLASS64 ||
        id[EI_DATA] != ELFDATA2LSB || ef->eh->e_shentsize != sizeof(Elf64_Shdr) ||
        ef->eh->e_phentsize != sizeof(Elf64_Phdr) ||
        ef->eh->e_shoff % 8 || ef->eh->e_phoff % 8 || /* the tables' alignment */
        ef->eh->e_shoff > ef->size ||
        (uint64_t)ef->eh->e_shnum * sizeof(Elf64_Shdr) > ef->size - ef->eh->e_shoff ||
        ef->eh->e_phoff > ef->size ||
        (uint64_t)ef->eh->e_phnum * sizeof(Elf64_Phdr) > ef->size - ef->eh->e_phoff) {
        munmap(p, ef->size);
        return false;
    }
    return true;
}

static void elf_close(struct elf_file *ef) { munmap((void *)ef->data, ef->size); }

/* The load bias of the file whose mappings are MAPS[i] with PATH: the
 * start of a mapping minus the page-aligned vaddr of the PT_LOAD segment
 * mapped there (0 for a non-PIE executable). */
static bool elf_bias(const struct elf_file *ef, const struct maps *maps, const char *path,
                     uint64_t *bias)
{
    if (ef->eh->e_type == ET_EXEC) {
        *bias = 0;
        return true;
    }
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(ef->data + ef->eh->e_phoff);
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    for (size_t m = 0; m < maps->n; m++) {
        if (!maps->v[m].path || strcmp(maps->v[m].path, path) != 0)
            continue;
        for (size_t i = 0; i < ef->eh->e_phnum; i++) {
            if (ph[i].p_type != PT_LOAD)
                continue;
            if ((ph[i].p_offset & ~(page - 1)) == maps->v[m].offset) {
                *bias = maps->v[m].start - (ph[i].p_vaddr & ~(page - 1));
                return true;
            }
        }
    }
    return false;
}

/* Looks for NAME (or, NAME NULL, a symbol starting at runtime address
 * ADDR) in table TYPE (SHT_SYMTAB or SHT_DYNSYM) of EF: a function when
 * CODE, else data. */
static bool elf_search(const struct elf_file *ef, unsigned type, bool code, const char *name,
                       uint64_t addr, uint64_t bias, struct symbol_hit *hit)
{
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(ef->data + ef->eh->e_shoff);
    for (size_t i = 0; i < ef->eh->e_shnum; i++) {
        if (sh[i].sh_type != type || sh[i].sh_entsize != sizeof(Elf64_Sym) ||
            sh[i].sh_link >= ef->eh->e_shnum)
            continue;
        const Elf64_Shdr *strs = &sh[sh[i].sh_link];
        if (sh[i].sh_offset % 8 || /* Elf64_Sym's alignment */
            sh[i].sh_offset > ef->size || sh[i].sh_size > ef->size - sh[i].sh_offset ||
            strs->sh_offset > ef->size || strs->sh_size > ef->size - strs->sh_offset)
            continue;
        const Elf64_Sym *sym = (const Elf64_Sym *)(ef->data + sh[i].sh_offset);
        size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
        const char *str = (const char *)(ef->data + strs->sh_offset);
        size_t str_size = strs->sh_size;
        for (size_t k = 1; k < n; k++) {
            unsigned t = ELF64_ST_TYPE(sym[k].st_info);
            bool data = t == STT_OBJECT || t == STT_NOTYPE || t == STT_TLS || t == STT_COMMON;
            if (sym[k].st_shndx == SHN_UNDEF || sym[k].st_name >= str_size ||
                (code ? t != STT_FUNC : !data))
                continue;
            const char *s = str + sym[k].st_name;
            size_t max = str_size - sym[k].st_name;
            if (strnlen(s, max) == max)
                continue;
            if (name ? strcmp(s, name) != 0
                     : (t == STT_TLS || !*s || sym[k].st_value + bias != addr))
                continue;
            hit->addr = sym[k].st_value + bias;
            hit->size = sym[k].st_size;
            hit->tls = t == STT_TLS;
            snprintf(hit->name, sizeof hit->name, "%s", s);
            return true;
        }
    }
    return false;
}

/* Finds NAME (or the symbol at ADDR when NAME is NULL) in the files
 * mapped by PID: for each file in map order, .symtab then .dynsym. */
bool find_symbol(pid_t pid, const struct maps *maps, const char *name, uint64_t addr,
                        struct symbol_hit *hit)
{
    for (size_t m = 0; m < maps->n; m++) {
        const char *path = maps->v[m].path;
        if (!path)
            continue;
        bool seen = false; /* each file once */
        for (size_t k = 0; k < m && !seen; k++)
            seen = maps->v[k].path && strcmp(maps->v[k].path, path) == 0;
        if (seen)
            continue;
        char file[96];
        snprintf(file, sizeof file, "/proc/%d/map_files/%llx-%llx", (int)pid,
                 (unsigned long long)maps->v[m].start, (unsigned long long)maps->v[m].end);
        if (symbol_in_file(file, maps, path, name, addr, hit))
            return true;
    }
    return false;
}

bool symbol_in_file(const char *file, const struct maps *maps, const char *path,
                    const char *name, uint64_t addr, struct symbol_hit *hit)
{
    struct elf_file ef;
    if (!elf_open(file, &ef))
        return false;
    uint64_t bias;
    bool found = false;
    if (elf_bias(&ef, maps, path, &bias))
        found = elf_search(&ef, SHT_SYMTAB, false, name, addr, bias, hit) ||
                elf_search(&ef, SHT_DYNSYM, false, name, addr, bias, hit);
    elf_close(&ef);
    if (found)
        snprintf(hit->file, sizeof hit->file, "%s", path);
    return found;
}

/* A uprobe's place: the file offset of the instruction, from the PT_LOAD
 * segment holding the function's address. */
bool function_offset(const char *path, const char *name, uint64_t *offset)
{
    struct elf_file ef;
    if (!elf_open(path, &ef))
        return false;
    struct symbol_hit hit;
    bool found = elf_search(&ef, SHT_DYNSYM, true, name, 0, 0, &hit) ||
                 elf_search(&ef, SHT_SYMTAB, true, name, 0, 0, &hit);
    if (found) {
        found = false;
        const Elf64_Phdr *ph = (const Elf64_Phdr *)(ef.data + ef.eh->e_phoff);
        for (size_t i = 0; i < ef.eh->e_phnum && !found; i++) {
            if (ph[i].p_type != PT_LOAD || hit.addr < ph[i].p_vaddr ||
                hit.addr - ph[i].p_vaddr >= ph[i].p_filesz)
                continue;
            *offset = hit.addr - ph[i].p_vaddr + ph[i].p_offset;
            found = true;
        }
    }
    elf_close(&ef);
    return found;
}
