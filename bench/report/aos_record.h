#ifndef AOS_RECORD_H
#define AOS_RECORD_H
/* One execution record: a JSON object per line, written by accelos-mix
 * (one per tenant per run) and by the daemon's tracer (one per logical
 * launch; aos_trace_mixes.h turns those into mixes). The schema is documented in docs/bench.md; this is
 * the single place that reads and writes it. Times are CLOCK_MONOTONIC
 * nanoseconds on the host. */
#include <stddef.h>
#include <stdio.h>

#define AOS_RECORD_STR 96

struct aos_record {
	char config[AOS_RECORD_STR]; /* configuration label */
	char kernel[AOS_RECORD_STR]; /* "bench:kernel" or a kernel name */
	long mix;                    /* mix id within the configuration */
	long run;                    /* repetition of that mix, default 0 */
	long tenant;                 /* tenant index ("client" in traces) */
	long tenants;                /* tenants in the mix; 0 = count records */
	int failed;                  /* status == "failed" */
	double arrival_ns;           /* request issued (barrier release) */
	double start_ns;             /* first kernel began executing */
	double end_ns;               /* last kernel completed */
	double iso_ns;               /* isolated turnaround, same config */
	double host_ns;              /* host-clock enqueue..completion span */
	double prof_ns;              /* sum of profiled kernel START..END */
	long execs;                  /* executions in this record (loop mode) */
	long corun_execs;            /* loop mode: more executions while others still counted (work, not samples) */
	double corun_end_ns;         /* the last of those completed: the tenant kept the device busy until then */
	int trace;                   /* a daemon trace record without iso_ns: see aos_trace_mixes.h */
};

struct aos_recordset {
	struct aos_record *items;
	size_t count, cap;
};

/* Parses one line. Returns 0, or -EINVAL with err describing the problem. */
int aos_record_parse(const char *line, struct aos_record *rec, char *err, size_t errlen);
/* Appends every non-blank line of f; on a bad line returns -EINVAL with
 * err = "<name>:<line>: <problem>". */
int aos_recordset_load(struct aos_recordset *set, FILE *f, const char *name, char *err, size_t errlen);
int aos_recordset_add(struct aos_recordset *set, const struct aos_record *rec);
void aos_recordset_free(struct aos_recordset *set);
/* Writes rec as one JSON line (mode names the runner mode, may be NULL). */
void aos_record_write(FILE *f, const struct aos_record *rec, const char *mode);
#endif
