/* Trace records for launches that run natively (see trace_native.c). */
#ifndef ACCELOSD_TRACE_NATIVE_H
#define ACCELOSD_TRACE_NATIVE_H

#include <stddef.h>
#include <stdint.h>

#include "native.h"

struct aos_session;

/* When tracing is on, writes a record for this native launch once ev ends (ev is not consumed).
 * global/local as enqueued (local may be NULL: the driver chose the groups). */
void aos_trace_native_launch(const struct aos_session *s, cl_kernel kernel, cl_event ev, uint32_t work_dim,
                             const size_t *global, const size_t *local);

#endif
