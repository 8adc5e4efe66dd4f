/* The scheduling policy switch (see policy.h). */
#include "policy.h"

#include <errno.h>
#include <string.h>

static enum aos_policy current = AOS_POLICY_DEFAULT;

int aos_policy_parse(const char *name, enum aos_policy *out)
{
    if (name && !strcmp(name, "fifo"))
        *out = AOS_POLICY_FIFO;
    else if (name && !strcmp(name, "fair"))
        *out = AOS_POLICY_FAIR;
    else
        return -EINVAL;
    return 0;
}

const char *aos_policy_name(enum aos_policy policy)
{
    return policy == AOS_POLICY_FAIR ? "fair" : "fifo";
}

void aos_policy_set(enum aos_policy policy)
{
    current = policy;
}

enum aos_policy aos_policy_get(void)
{
    return current;
}
