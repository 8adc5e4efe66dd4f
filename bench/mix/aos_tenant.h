#ifndef AOS_TENANT_H
#define AOS_TENANT_H
/* One tenant's life: build, upload, run once untimed and verify (this also
 * triggers any lazy kernel compilation), wait at the gate, then the timed
 * execution(s). Used by exec'd tenant processes and by the shared-context
 * runner's threads alike. */
#include "aos_barrier.h"
#include "aos_bench.h"

struct aos_tenant_params {
	const char *spec;
	enum aos_size size;
	int loop;       /* 0: one execution; 1: repeat for `seconds` */
	double seconds;
	int crash;      /* test hook: abort() right after the gate opens */
};

/* Returns 0 with r ready to execute, or -errno with slot->msg set. */
int aos_tenant_prepare(struct aos_bench_run *r, const struct aos_tenant_params *p, cl_context ctx,
		       cl_device_id dev, cl_command_queue q, struct aos_tenant_slot *slot);
/* Runs the timed part after the gate g opened at go_ns; fills slot, the
 * tenant's own. In loop mode it then goes on executing, uncounted, until
 * every tenant of g has finished counting (aos_gate_finish). */
void aos_tenant_timed(struct aos_bench_run *r, const struct aos_tenant_params *p, uint64_t go_ns,
		      struct aos_gate *g, int tenant, struct aos_tenant_slot *slot);
/* Entry point of an exec'd tenant process ("accelos-mix --as-tenant"). */
int aos_tenant_main(int argc, char **argv);
#endif
