#ifndef AOS_ISO_POOL_H
#define AOS_ISO_POOL_H
/* Common isolated times (accelos-report --common-iso). Each run of a sweep
 * measures its own isolated times, and on a shared machine they move from run
 * to run (a kernel's 0.9 ms in one run, 3.1 ms in the next): alone that can
 * move a mix's unfairness several-fold. Comparing configurations, or runs of
 * one, against the same isolated times removes that noise from the ratio. */
#include "aos_record.h"

/* Sets every successful record's iso_ns to the median of the iso_ns values
 * its kernel's successful records carry across the whole set (each distinct
 * value counted once per configuration and mix, so a tenant with many
 * records does not outvote the others). Records without iso_ns (0) are left
 * alone. Returns the number of kernels pooled, or -ENOMEM. */
int aos_iso_pool(struct aos_recordset *set);
#endif
