#ifndef AOS_PROGRESS_H
#define AOS_PROGRESS_H
/* A one-line progress bar with an ETA on stderr; silent when quiet. */
#include <stdint.h>

struct aos_progress {
	int quiet;
	long total, done;
	uint64_t start_ns;
	const char *what;
};

void aos_progress_start(struct aos_progress *p, const char *what, long total, int quiet);
void aos_progress_step(struct aos_progress *p);
void aos_progress_end(struct aos_progress *p);
#endif
