#include "aos_bench.h"
#include <string.h>

/* Each benchmark's .c defines its descriptor; the table order is the
 * alphabetical order the paper uses for pairwise mixes. */
extern const struct aos_bench_desc aos_bench_bfs, aos_bench_cutcp, aos_bench_histo,
	aos_bench_lbm, aos_bench_mri_gridding, aos_bench_mri_q, aos_bench_sad,
	aos_bench_sgemm, aos_bench_spmv, aos_bench_stencil, aos_bench_tpacf;

static const struct aos_bench_desc *const table[] = {
	&aos_bench_bfs, &aos_bench_cutcp, &aos_bench_histo, &aos_bench_lbm,
	&aos_bench_mri_gridding, &aos_bench_mri_q, &aos_bench_sad, &aos_bench_sgemm,
	&aos_bench_spmv, &aos_bench_stencil, &aos_bench_tpacf,
};

int aos_bench_count(void)
{
	return (int)(sizeof(table) / sizeof(table[0]));
}

const struct aos_bench_desc *aos_bench_at(int i)
{
	return i >= 0 && i < aos_bench_count() ? table[i] : NULL;
}

const struct aos_bench_desc *aos_bench_find(const char *name)
{
	for (int i = 0; i < aos_bench_count(); i++)
		if (strcmp(table[i]->name, name) == 0)
			return table[i];
	return NULL;
}
