#include "aos_mixrun.h"
#include "aos_isocache.h"
#include "aos_progress.h"
#include "aos_record.h"
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct children {
	pid_t pid[AOS_MIX_MAX_TENANTS];
	int status[AOS_MIX_MAX_TENANTS];
	int exited[AOS_MIX_MAX_TENANTS];
	int n;
};

/* How many tenants can still arrive at the gate: those not yet exited. */
static int children_alive(void *ctx)
{
	struct children *c = ctx;
	int alive = 0;
	for (int i = 0; i < c->n; i++) {
		if (!c->exited[i] && waitpid(c->pid[i], &c->status[i], WNOHANG) == c->pid[i])
			c->exited[i] = 1;
		alive += !c->exited[i];
	}
	return alive;
}

int aos_mixrun_procs(const struct aos_mixopts *o, const struct aos_mix *m, struct aos_tenant_slot *slots,
		     uint64_t *go_ns)
{
	struct children c = { .n = m->ntenants };
	int fd;
	struct aos_gate *g = aos_gate_new(&fd);
	*go_ns = 0;
	if (!g)
		return -errno;
	for (int t = 0; t < m->ntenants; t++) {
		char slot[16], fds[16], secs[32], crash[8];
		snprintf(slot, sizeof(slot), "%d", t);
		snprintf(fds, sizeof(fds), "%d", fd);
		snprintf(secs, sizeof(secs), "%.3f", o->loop ? o->seconds : 0.0);
		snprintf(crash, sizeof(crash), "%d", o->crash_tenant == t);
		char *argv[] = { "accelos-mix", "--as-tenant", (char *)m->specs[t], "--gate-fd", fds, "--slot", slot,
				 "--size", (char *)aos_size_name(o->size), "--platform", (char *)o->platform,
				 "--crash", crash, o->loop ? "--loop-seconds" : NULL, secs, NULL };
		c.pid[t] = fork();
		if (c.pid[t] == 0) {
			execv(o->self_exe, argv);
			_exit(127);
		}
		if (c.pid[t] < 0)
			c.exited[t] = 1; /* reported as a failed tenant below */
	}
	aos_gate_wait_ready(g, m->ntenants, children_alive, &c);
	*go_ns = aos_gate_open(g);
	/* A tenant that died never finishes counting: finish it, so the others
	 * (loop mode) stop. */
	for (int t = 0; t < m->ntenants; t++)
		if (c.exited[t] || c.pid[t] <= 0)
			aos_gate_finish(g, t);
	for (;;) {
		int alive = 0, status;
		for (int t = 0; t < m->ntenants; t++)
			alive += c.pid[t] > 0 && !c.exited[t];
		if (!alive)
			break;
		pid_t pid = waitpid(-1, &status, 0);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			break;
		for (int t = 0; t < m->ntenants; t++)
			if (c.pid[t] == pid && !c.exited[t]) {
				c.status[t] = status;
				c.exited[t] = 1;
				aos_gate_finish(g, t);
			}
	}
	for (int t = 0; t < m->ntenants; t++) {
		slots[t] = *aos_gate_slot(g, t);
		int ok = c.pid[t] > 0 && WIFEXITED(c.status[t]) && WEXITSTATUS(c.status[t]) == 0;
		if (!ok || slots[t].state != AOS_SLOT_DONE) {
			if (c.pid[t] > 0 && WIFSIGNALED(c.status[t]))
				snprintf(slots[t].msg, sizeof(slots[t].msg), "%s: killed by signal %d", m->specs[t],
					 WTERMSIG(c.status[t]));
			else if (!slots[t].msg[0])
				snprintf(slots[t].msg, sizeof(slots[t].msg), "%s: tenant process failed", m->specs[t]);
			slots[t].state = AOS_SLOT_ERROR;
		}
	}
	aos_gate_destroy(g);
	close(fd);
	return 0;
}

static int run_once(const struct aos_mixopts *o, const struct aos_mix *m, struct aos_tenant_slot *slots,
		    uint64_t *go_ns)
{
	memset(slots, 0, sizeof(*slots) * m->ntenants);
	return o->shared_ctx ? aos_mixrun_shared(o, m, slots, go_ns) : aos_mixrun_procs(o, m, slots, go_ns);
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Median turnaround of spec running alone, same configuration and mode:
 * one execution in single mode; in loop mode the mean time per execution
 * over a loop of the same length, so shared and isolated times are both
 * steady-state. 0 when it cannot run at all. */
static double measure_isolated(const struct aos_mixopts *o, const char *spec)
{
	struct aos_mixopts iso = *o;
	struct aos_mix m = { .ntenants = 1 };
	struct aos_tenant_slot slot;
	double t[64];
	int n = 0;
	iso.crash_tenant = -1;
	snprintf(m.specs[0], sizeof(m.specs[0]), "%s", spec);
	for (int i = 0; i < o->iso_reps && i < 64; i++) {
		uint64_t go;
		if (run_once(&iso, &m, &slot, &go) == 0 && slot.state == AOS_SLOT_DONE && go)
			t[n++] = (double)(slot.end_ns - go) / (iso.loop && slot.execs ? (double)slot.execs : 1.0);
		else /* failures are reported with --quiet too: it only hides the progress bars */
			fprintf(stderr, "accelos-mix: isolated run of %s failed: %s\n", spec, slot.msg);
	}
	if (!n)
		return 0;
	qsort(t, n, sizeof(double), dbl_cmp);
	return t[n / 2];
}

/* Isolated times depend on the mode, so loop-mode entries get their own key. */
static const char *iso_key(const struct aos_mixopts *o, char *buf, size_t len)
{
	if (!o->loop)
		return o->label;
	snprintf(buf, len, "%s/loop%.3gs", o->label, o->seconds);
	return buf;
}

int aos_mixrun_sweep(const struct aos_mixopts *o, const struct aos_mix *mixes, int nmixes)
{
	char keybuf[256];
	const char *key = iso_key(o, keybuf, sizeof(keybuf));
	struct aos_isocache *cache = aos_isocache_open(o->iso_cache);
	struct aos_progress prog;
	const char *size = aos_size_name(o->size);
	int failed = 0;
	if (!cache)
		return -ENOMEM;
	/* Isolated times first, for every distinct spec not yet cached. */
	long todo = 0;
	for (int i = 0; i < nmixes; i++)
		for (int t = 0; t < mixes[i].ntenants; t++)
			todo += aos_isocache_get(cache, key, size, mixes[i].specs[t]) == 0;
	aos_progress_start(&prog, "isolated", todo, o->quiet);
	for (int i = 0; i < nmixes; i++)
		for (int t = 0; t < mixes[i].ntenants; t++) {
			const char *spec = mixes[i].specs[t];
			if (aos_isocache_get(cache, key, size, spec) > 0)
				continue;
			double ns = measure_isolated(o, spec);
			if (ns > 0)
				aos_isocache_put(cache, key, size, spec, ns);
			aos_progress_step(&prog);
		}
	aos_progress_end(&prog);

	aos_progress_start(&prog, "mixes", (long)nmixes * o->repeat, o->quiet);
	for (int i = 0; i < nmixes; i++)
		for (int run = 0; run < o->repeat; run++) {
			const struct aos_mix *m = &mixes[i];
			struct aos_tenant_slot slots[AOS_MIX_MAX_TENANTS];
			uint64_t go = 0;
			int rc = run_once(o, m, slots, &go);
			int run_failed = rc != 0;
			for (int t = 0; t < m->ntenants; t++)
				run_failed |= slots[t].state != AOS_SLOT_DONE;
			for (int t = 0; t < m->ntenants; t++) {
				struct aos_record rec = { 0 };
				snprintf(rec.config, sizeof(rec.config), "%s", o->label);
				snprintf(rec.kernel, sizeof(rec.kernel), "%s", m->specs[t]);
				rec.mix = o->mix_base + i;
				rec.run = run;
				rec.tenant = t;
				rec.tenants = m->ntenants;
				rec.iso_ns = aos_isocache_get(cache, key, size, m->specs[t]);
				rec.failed = rc != 0 || slots[t].state != AOS_SLOT_DONE || rec.iso_ns <= 0;
				rec.arrival_ns = (double)go;
				rec.start_ns = rec.failed ? (double)go : (double)slots[t].start_ns;
				rec.end_ns = rec.failed ? (double)go : (double)slots[t].end_ns;
				rec.host_ns = (double)slots[t].host_ns;
				rec.prof_ns = (double)slots[t].prof_ns;
				rec.execs = slots[t].execs;
				rec.corun_execs = slots[t].corun_execs;
				rec.corun_end_ns = rec.failed ? 0 : (double)slots[t].corun_end_ns;
				aos_record_write(o->out, &rec, o->shared_ctx ? "shared-context" : "processes");
				if (rec.failed)
					fprintf(stderr, "%saccelos-mix: mix %d run %d tenant %d failed: %s\n", o->quiet ? "" : "\n", i, run, t,
						slots[t].msg[0] ? slots[t].msg : "no isolated time");
			}
			fflush(o->out);
			failed += run_failed;
			aos_progress_step(&prog);
		}
	aos_progress_end(&prog);
	aos_isocache_close(cache);
	return failed;
}
