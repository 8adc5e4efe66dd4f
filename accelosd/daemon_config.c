#include "daemon_config.h"

#include <errno.h>

#include "accelos/jit.h"
#include "accelos/log.h"
#include "accelos/sched_config.h"
#include "policy.h"

#include <pthread.h>

static struct aos_sched_config loaded; /* what the device scheduler reads */
static pthread_once_t loaded_once = PTHREAD_ONCE_INIT;

static void loaded_defaults(void)
{
    aos_sched_config_init(&loaded);
}

const struct aos_sched_config *aos_daemon_config_get(void)
{
    pthread_once(&loaded_once, loaded_defaults);
    return &loaded;
}

void aos_daemon_config_apply_codegen(void)
{
    uint32_t align = aos_daemon_config_get()->cpu_loop_align;
    int rc = aos_jit_set_host_loop_align(align);
    if (rc < 0)
        aos_log(AOS_LOG_WARN, "config", "cannot align CPU kernels' loops to %u bytes: %s; LLVM's own applies", align,
                rc == -ENOENT ? "this LLVM has no such option" : "invalid value");
    else if (align)
        aos_log(AOS_LOG_DEBUG, "config", "CPU kernels' innermost loops align to %u bytes", align);
}

uint32_t aos_daemon_config_weight(uint32_t uid, const char *name)
{
    return aos_sched_config_weight(aos_daemon_config_get(), uid, name);
}

int aos_daemon_config_load(const char *path, bool policy_given, FILE *err)
{
    struct aos_sched_config cfg;
    struct aos_sched_config_errors errs = {0};
    aos_sched_config_init(&cfg);
    int rc = aos_sched_config_load(&cfg, path, &errs);
    if (rc < 0) {
        size_t shown = errs.count < AOS_SCHED_CONFIG_MAX_ERRORS ? errs.count : AOS_SCHED_CONFIG_MAX_ERRORS;
        for (size_t i = 0; i < shown; i++) {
            if (errs.e[i].line)
                fprintf(err, "accelosd: %s:%u: %s\n", path, errs.e[i].line, errs.e[i].reason);
            else
                fprintf(err, "accelosd: %s: %s\n", path, errs.e[i].reason);
        }
        if (errs.count > shown)
            fprintf(err, "accelosd: %s: %zu more errors\n", path, errs.count - shown);
        if (errs.count == 0)
            fprintf(err, "accelosd: %s: cannot load the configuration (error %d)\n", path, rc);
        aos_sched_config_release(&cfg);
        return rc;
    }
    if (!policy_given) {
        enum aos_policy policy;
        const struct aos_sched_policy *p = aos_sched_policy_get(cfg.policy);
        if (!p || aos_policy_parse(p->name, &policy) < 0) {
            fprintf(err, "accelosd: %s: policy not supported by this daemon\n", path);
            aos_sched_config_release(&cfg);
            return -EINVAL;
        }
        aos_policy_set(policy);
    }
    pthread_once(&loaded_once, loaded_defaults);
    aos_sched_config_release(&loaded);
    loaded = cfg;
    return 0;
}
