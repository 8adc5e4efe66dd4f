#include "aos_tenant.h"
#include "aos_clenv.h"
#include "aos_clock.h"
#include "aos_mixspec.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int aos_tenant_prepare(struct aos_bench_run *r, const struct aos_tenant_params *p, cl_context ctx,
		       cl_device_id dev, cl_command_queue q, struct aos_tenant_slot *slot)
{
	const struct aos_bench_desc *d;
	int kidx, rc;
	memset(r, 0, sizeof(*r));
	if (aos_spec_resolve(p->spec, &d, &kidx, slot->msg, sizeof(slot->msg)))
		return -ENOENT;
	rc = aos_bench_run_init(r, d, p->size, ctx, dev, q);
	if (rc == 0)
		rc = aos_bench_run_setup(r);
	if (rc == 0)
		rc = aos_bench_run_execute(r);
	if (rc == 0)
		rc = aos_bench_run_verify(r);
	if (rc) {
		snprintf(slot->msg, sizeof(slot->msg), "%.40s: %.110s", p->spec, r->msg[0] ? r->msg : strerror(-rc));
		return rc;
	}
	r->only = kidx;
	return 0;
}

/* One execution; 0, or -1 with the slot marked failed. */
static int execute_one(struct aos_bench_run *r, const struct aos_tenant_params *p, struct aos_tenant_slot *slot)
{
	if (aos_bench_run_execute(r) == 0)
		return 0;
	snprintf(slot->msg, sizeof(slot->msg), "%.40s: %.110s", p->spec, r->msg);
	slot->state = AOS_SLOT_ERROR;
	return -1;
}

void aos_tenant_timed(struct aos_bench_run *r, const struct aos_tenant_params *p, uint64_t go_ns,
		      struct aos_gate *g, int tenant, struct aos_tenant_slot *slot)
{
	uint64_t deadline = go_ns + (uint64_t)(p->seconds * 1e9);
	if (p->crash)
		abort();
	slot->execs = 0;
	do {
		if (execute_one(r, p, slot)) {
			aos_gate_finish(g, tenant);
			return;
		}
		/* The device's START..QUEUED delay, moved onto the host clock,
		 * marks when the first kernel really began executing. */
		uint64_t wait = r->prof_start_ns > r->prof_queued_ns ? r->prof_start_ns - r->prof_queued_ns : 0;
		if (slot->execs == 0)
			slot->start_ns = r->host_start_ns + wait;
		slot->end_ns = r->host_end_ns;
		slot->host_ns += r->host_end_ns - r->host_start_ns;
		for (int k = 0; k < r->desc->nkernels; k++)
			slot->prof_ns += r->ktime[k].total_ns;
		slot->execs++;
	} while (p->loop && aos_clock_now_ns() < deadline);
	slot->state = AOS_SLOT_DONE;
	aos_gate_finish(g, tenant);
	/* Loop mode: keep the device as busy as before until every tenant has
	 * finished counting. An execution that ends while some still count is
	 * work done within the mix (the report's work rate), not a sample. */
	while (p->loop && aos_gate_running(g) > 0) {
		if (execute_one(r, p, slot))
			return;
		if (aos_gate_running(g) > 0) {
			slot->corun_execs++;
			slot->corun_end_ns = r->host_end_ns;
		}
	}
}

int aos_tenant_main(int argc, char **argv)
{
	struct aos_tenant_params p = { 0 };
	struct aos_clenv env;
	struct aos_bench_run r;
	const char *platform = "";
	int fd = -1, slot_no = -1, rc;
	char err[512];

	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--as-tenant") == 0) p.spec = argv[i + 1];
		else if (strcmp(argv[i], "--gate-fd") == 0) fd = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--slot") == 0) slot_no = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--size") == 0) aos_size_parse(argv[i + 1], &p.size);
		else if (strcmp(argv[i], "--platform") == 0) platform = argv[i + 1];
		else if (strcmp(argv[i], "--loop-seconds") == 0) { p.loop = 1; p.seconds = atof(argv[i + 1]); }
		else if (strcmp(argv[i], "--crash") == 0) p.crash = atoi(argv[i + 1]);
	}
	struct aos_gate *g = fd >= 0 ? aos_gate_attach(fd) : NULL;
	struct aos_tenant_slot *slot = g ? aos_gate_slot(g, slot_no) : NULL;
	if (!slot || !p.spec) {
		fprintf(stderr, "accelos-mix: --as-tenant is internal to the mix runner\n");
		return 2;
	}
	rc = aos_clenv_open(&env, platform, err, sizeof(err));
	if (rc) {
		snprintf(slot->msg, sizeof(slot->msg), "%.150s", err);
		slot->state = AOS_SLOT_ERROR;
		aos_gate_arrive(g);
		return 3;
	}
	cl_command_queue q = aos_clenv_queue_new(&env);
	rc = q ? aos_tenant_prepare(&r, &p, env.context, env.device, q, slot) : -EIO;
	slot->state = rc ? AOS_SLOT_ERROR : AOS_SLOT_READY;
	uint64_t go = aos_gate_arrive(g);
	if (rc == 0 && go)
		aos_tenant_timed(&r, &p, go, g, slot_no, slot);
	if (rc == 0)
		aos_bench_run_fini(&r);
	if (q)
		clReleaseCommandQueue(q);
	aos_clenv_close(&env);
	return slot->state == AOS_SLOT_DONE ? 0 : 1;
}
