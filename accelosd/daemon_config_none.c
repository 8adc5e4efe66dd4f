/* Builds without the scheduling core (ACCELOS_WITH_JIT=OFF) have no configuration parser. */
#include "daemon_config.h"

#include <errno.h>

int aos_daemon_config_load(const char *path, bool policy_given, FILE *err)
{
    (void)policy_given;
    fprintf(err, "accelosd: %s: this build has no scheduler, so it takes no configuration file\n", path);
    return -ENOTSUP;
}

/* Without the JIT the daemon does not link LLVM: the CPU device compiles with its own settings. */
void aos_daemon_config_apply_codegen(void)
{
}
