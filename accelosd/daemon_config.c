#include "daemon_config.h"

#include <errno.h>

#include "accelos/sched_config.h"
#include "policy.h"

static struct aos_sched_config loaded; /* kept for the time-slicing loop */

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
    aos_sched_config_release(&loaded);
    loaded = cfg;
    return 0;
}
