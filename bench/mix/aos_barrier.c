#include "aos_barrier.h"
#include "aos_clock.h"
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

struct aos_gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int ready;
	int open;
	uint64_t open_ns;
	struct aos_tenant_slot slots[AOS_MIX_MAX_TENANTS];
};

static void gate_init(struct aos_gate *g)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	memset(g, 0, sizeof(*g));
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&g->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&g->cond, &ca);
	pthread_condattr_destroy(&ca);
}

struct aos_gate *aos_gate_new(int *fd)
{
	struct aos_gate *g;
	*fd = memfd_create("accelos-mix-gate", 0);
	if (*fd < 0)
		return NULL;
	if (ftruncate(*fd, sizeof(*g)) < 0)
		goto fail;
	g = mmap(NULL, sizeof(*g), PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (g == MAP_FAILED)
		goto fail;
	gate_init(g);
	return g;
fail:
	close(*fd);
	*fd = -1;
	return NULL;
}

struct aos_gate *aos_gate_attach(int fd)
{
	struct aos_gate *g = mmap(NULL, sizeof(*g), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return g == MAP_FAILED ? NULL : g;
}

void aos_gate_destroy(struct aos_gate *g)
{
	if (g)
		munmap(g, sizeof(*g));
}

void aos_gate_reset(struct aos_gate *g)
{
	pthread_mutex_lock(&g->lock);
	g->ready = 0;
	g->open = 0;
	g->open_ns = 0;
	memset(g->slots, 0, sizeof(g->slots));
	pthread_mutex_unlock(&g->lock);
}

struct aos_tenant_slot *aos_gate_slot(struct aos_gate *g, int tenant)
{
	return tenant >= 0 && tenant < AOS_MIX_MAX_TENANTS ? &g->slots[tenant] : NULL;
}

uint64_t aos_gate_arrive(struct aos_gate *g)
{
	uint64_t t;
	pthread_mutex_lock(&g->lock);
	g->ready++;
	pthread_cond_broadcast(&g->cond);
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	t = g->open > 0 ? g->open_ns : 0;
	pthread_mutex_unlock(&g->lock);
	return t;
}

int aos_gate_wait_ready(struct aos_gate *g, int count, int (*alive)(void *), void *ctx)
{
	pthread_mutex_lock(&g->lock);
	while (g->ready < count) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 50 * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&g->cond, &g->lock, &ts);
		if (alive) {
			pthread_mutex_unlock(&g->lock);
			int can = alive(ctx);
			pthread_mutex_lock(&g->lock);
			if (can < count)
				count = can;
		}
	}
	int ready = g->ready;
	pthread_mutex_unlock(&g->lock);
	return ready;
}

uint64_t aos_gate_open(struct aos_gate *g)
{
	pthread_mutex_lock(&g->lock);
	g->open_ns = aos_clock_now_ns();
	g->open = 1;
	for (int t = 0; t < AOS_MIX_MAX_TENANTS; t++)
		g->slots[t].counting = g->slots[t].state == AOS_SLOT_READY;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
	return g->open_ns;
}

void aos_gate_finish(struct aos_gate *g, int tenant)
{
	struct aos_tenant_slot *slot = aos_gate_slot(g, tenant);
	if (!slot)
		return;
	pthread_mutex_lock(&g->lock);
	slot->counting = 0;
	pthread_mutex_unlock(&g->lock);
}

int aos_gate_running(struct aos_gate *g)
{
	int n = 0;
	pthread_mutex_lock(&g->lock);
	for (int t = 0; t < AOS_MIX_MAX_TENANTS; t++)
		n += g->slots[t].counting;
	pthread_mutex_unlock(&g->lock);
	return n;
}
