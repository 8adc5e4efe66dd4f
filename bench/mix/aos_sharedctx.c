/* The --shared-context baseline: all tenants of a mix are threads of this
 * process with their own command queue on ONE context, as an application
 * that multiplexes work itself would do. The OpenCL runtime then orders
 * kernels from different queues however it likes (PoCL: first come,
 * first served), which is the unfairness accelOS sets out to remove. */
#include "aos_clenv.h"
#include "aos_mixrun.h"
#include "aos_tenant.h"
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tenant_thread {
	pthread_t tid;
	struct aos_gate *gate;
	struct aos_bench_run run;
	struct aos_tenant_params params;
	struct aos_tenant_slot *slot;
	int index;
	int prepared;
	int started;
};

static void *tenant_thread_main(void *arg)
{
	struct tenant_thread *t = arg;
	uint64_t go = aos_gate_arrive(t->gate);
	if (t->prepared && go)
		aos_tenant_timed(&t->run, &t->params, go, t->gate, t->index, t->slot);
	return NULL;
}

int aos_mixrun_shared(const struct aos_mixopts *o, const struct aos_mix *m, struct aos_tenant_slot *slots,
		      uint64_t *go_ns)
{
	struct aos_clenv env;
	struct tenant_thread *th = calloc(m->ntenants, sizeof(*th));
	cl_command_queue q[AOS_MIX_MAX_TENANTS] = { 0 };
	char err[512];
	int fd, started = 0, rc = 0;
	struct aos_gate *g = NULL;

	*go_ns = 0;
	if (!th)
		return -ENOMEM;
	rc = aos_clenv_open(&env, o->platform, err, sizeof(err));
	if (rc) {
		for (int t = 0; t < m->ntenants; t++) {
			snprintf(slots[t].msg, sizeof(slots[t].msg), "%.150s", err);
			slots[t].state = AOS_SLOT_ERROR;
		}
		free(th);
		return 0;
	}
	g = aos_gate_new(&fd);
	if (!g) {
		rc = -errno;
		goto out;
	}
	/* Setup is serial: only the timed part runs concurrently. */
	for (int t = 0; t < m->ntenants; t++) {
		th[t].gate = g;
		th[t].slot = aos_gate_slot(g, t);
		th[t].index = t;
		th[t].params = (struct aos_tenant_params){ .spec = m->specs[t], .size = o->size, .loop = o->loop,
							   .seconds = o->seconds };
		q[t] = aos_clenv_queue_new(&env);
		th[t].prepared = q[t] && aos_tenant_prepare(&th[t].run, &th[t].params, env.context, env.device,
							    q[t], th[t].slot) == 0;
		th[t].slot->state = th[t].prepared ? AOS_SLOT_READY : AOS_SLOT_ERROR;
	}
	for (int t = 0; t < m->ntenants; t++)
		if (pthread_create(&th[t].tid, NULL, tenant_thread_main, &th[t]) == 0) {
			th[t].started = 1;
			started++;
		} else {
			th[t].slot->state = AOS_SLOT_ERROR;
		}
	aos_gate_wait_ready(g, started, NULL, NULL);
	*go_ns = aos_gate_open(g);
	for (int t = 0; t < m->ntenants; t++)
		if (th[t].started)
			pthread_join(th[t].tid, NULL);
	for (int t = 0; t < m->ntenants; t++)
		slots[t] = *aos_gate_slot(g, t);
out:
	for (int t = 0; t < m->ntenants; t++) {
		if (th[t].prepared || th[t].run.desc)
			aos_bench_run_fini(&th[t].run);
		if (q[t])
			clReleaseCommandQueue(q[t]);
	}
	if (g) {
		aos_gate_destroy(g);
		close(fd);
	}
	aos_clenv_close(&env);
	free(th);
	return rc;
}
