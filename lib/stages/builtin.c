/* The built-in stages by name, for argus-chain (in a file of its own, so
 * that a program that runs one stage links that stage only). */
#include "argus/stages/builtin.h"

#include <string.h>

const argus_stage_def *argus_builtin_stage(const char *name)
{
    static const argus_stage_def *const all[] = {
        &argus_cull_interrupts_stage, &argus_segment_stage,
        &argus_link_ipc_stage, &argus_link_dispatch_stage,
        &argus_link_flags_stage, &argus_link_wakeups_stage,
    };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}
