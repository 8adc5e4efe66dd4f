#include "aos_progress.h"
#include "aos_clock.h"
#include <stdio.h>

#define BAR_WIDTH 30

void aos_progress_start(struct aos_progress *p, const char *what, long total, int quiet)
{
	p->quiet = quiet;
	p->total = total;
	p->done = 0;
	p->what = what;
	p->start_ns = aos_clock_now_ns();
}

void aos_progress_step(struct aos_progress *p)
{
	char bar[BAR_WIDTH + 1];
	p->done++;
	if (p->quiet || p->total <= 0)
		return;
	int fill = (int)(BAR_WIDTH * p->done / p->total);
	for (int i = 0; i < BAR_WIDTH; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[BAR_WIDTH] = 0;
	double elapsed = (aos_clock_now_ns() - p->start_ns) / 1e9;
	double eta = elapsed / p->done * (p->total - p->done);
	fprintf(stderr, "\r%s [%s] %ld/%ld  elapsed %.0fs  eta %dm%02ds ", p->what, bar, p->done, p->total,
		elapsed, (int)eta / 60, (int)eta % 60);
	fflush(stderr);
}

void aos_progress_end(struct aos_progress *p)
{
	if (!p->quiet && p->total > 0)
		fputc('\n', stderr);
}
