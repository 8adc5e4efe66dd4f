#ifndef AOS_BARRIER_H
#define AOS_BARRIER_H
/* The start gate of a mix: every tenant finishes its setup, arrives, and
 * waits; the runner opens the gate once all have arrived, so the timed
 * executions start together. It lives in a memfd (process-shared mutex and
 * condvar) so exec'd tenant processes can attach by fd number; the same
 * gate works for threads. Unlike pthread_barrier it lets the runner open
 * the gate when a tenant dies before arriving, so the others still run.
 * Also holds each tenant's result slot. */
#include <stdint.h>

#define AOS_MIX_MAX_TENANTS 64

enum aos_slot_state { AOS_SLOT_EMPTY = 0, AOS_SLOT_READY = 1, AOS_SLOT_DONE = 2, AOS_SLOT_ERROR = 3 };

struct aos_tenant_slot {
	int state;
	uint64_t start_ns, end_ns;   /* first kernel start, last completion */
	uint64_t host_ns, prof_ns;   /* summed over executions */
	long execs;
	long corun_execs;            /* loop mode: uncounted executions while others still counted */
	uint64_t corun_end_ns;       /* the last of those completed */
	int counting;                /* READY at the gate's opening and not finished yet: under the gate's lock */
	char msg[160];
};

struct aos_gate;

/* Creates a gate in a fresh memfd; *fd stays open (without CLOEXEC) so a
 * child can inherit it. NULL on failure with errno set. */
struct aos_gate *aos_gate_new(int *fd);
struct aos_gate *aos_gate_attach(int fd); /* in a tenant process */
void aos_gate_destroy(struct aos_gate *g);
void aos_gate_reset(struct aos_gate *g);
struct aos_tenant_slot *aos_gate_slot(struct aos_gate *g, int tenant);
/* Tenant side: announce readiness (or failure) and wait for the gate to
 * open. Returns the opening time, or 0 if the runner aborted the mix. */
uint64_t aos_gate_arrive(struct aos_gate *g);
/* Runner side: wait until `count` tenants have arrived; `alive` is polled
 * every 50 ms and returns how many tenants can still arrive, so a dead
 * tenant lowers the count instead of hanging the mix. */
int aos_gate_wait_ready(struct aos_gate *g, int count, int (*alive)(void *), void *ctx);
/* Opens the gate; every slot then READY counts as running until it finishes
 * (a slot that was not READY never counts, so finishing it changes nothing). */
uint64_t aos_gate_open(struct aos_gate *g);
/* Loop mode keeps every tenant executing until all have finished their
 * counted executions, so none of those runs partly alone (a tenant whose
 * one execution outlasts the window would otherwise end it with the device
 * to itself). A tenant, or the runner for one that died, calls finish once
 * its counted executions are over (again is harmless); running() says how
 * many have not. */
void aos_gate_finish(struct aos_gate *g, int tenant);
int aos_gate_running(struct aos_gate *g);
#endif
