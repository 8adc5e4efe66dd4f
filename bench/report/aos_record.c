#include "aos_record.h"
#include "aos_json.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int get_string(const struct aos_json *obj, const char *key, char *dst, int required,
		      char *err, size_t errlen)
{
	const struct aos_json *v = aos_json_get(obj, key);
	if (!v) {
		if (required)
			snprintf(err, errlen, "missing \"%s\"", key);
		return required ? -EINVAL : 0;
	}
	if (v->type != AOS_JSON_STRING || strlen(v->string) >= AOS_RECORD_STR) {
		snprintf(err, errlen, "\"%s\" must be a string shorter than %d bytes", key, AOS_RECORD_STR);
		return -EINVAL;
	}
	strcpy(dst, v->string);
	return 0;
}

static int get_number(const struct aos_json *obj, const char *key, double *dst, int required,
		      char *err, size_t errlen)
{
	const struct aos_json *v = aos_json_get(obj, key);
	if (!v) {
		if (required)
			snprintf(err, errlen, "missing \"%s\"", key);
		return required ? -EINVAL : 0;
	}
	if (v->type != AOS_JSON_NUMBER || v->number < 0) {
		snprintf(err, errlen, "\"%s\" must be a non-negative number", key);
		return -EINVAL;
	}
	*dst = v->number;
	return 0;
}

static int get_long(const struct aos_json *obj, const char *key, long *dst, int required,
		    char *err, size_t errlen)
{
	double d = (double)*dst;
	int rc = get_number(obj, key, &d, required, err, errlen);
	if (rc)
		return rc;
	if (d != floor(d) || d > 1e15) {
		snprintf(err, errlen, "\"%s\" must be a non-negative integer", key);
		return -EINVAL;
	}
	*dst = (long)d;
	return 0;
}

int aos_record_parse(const char *line, struct aos_record *rec, char *err, size_t errlen)
{
	struct aos_json *obj;
	char status[AOS_RECORD_STR] = "ok";
	int rc = aos_json_parse(line, &obj, err, errlen);
	if (rc)
		return rc;
	memset(rec, 0, sizeof(*rec));
	rec->execs = 1;
	if (obj->type != AOS_JSON_OBJECT) {
		snprintf(err, errlen, "record must be a JSON object");
		rc = -EINVAL;
		goto out;
	}
	/* Daemon traces say "client" where the mix runner says "tenant". */
	const char *who = aos_json_get(obj, "client") ? "client" : "tenant";
	char type[AOS_RECORD_STR] = "exec";
	if ((rc = get_string(obj, "type", type, 0, err, errlen)))
		goto out;
	/* The daemon's trace knows neither its mix nor isolated times: aos_trace_mixes() derives both,
	 * unless a trace record already carries them. */
	rec->trace = strcmp(type, "trace") == 0 && !aos_json_get(obj, "iso_ns");
	if ((rc = get_string(obj, "config", rec->config, 1, err, errlen)) ||
	    (rc = get_string(obj, "kernel", rec->kernel, 1, err, errlen)) ||
	    (rc = get_string(obj, "status", status, 0, err, errlen)) ||
	    (rc = get_long(obj, "mix", &rec->mix, !rec->trace, err, errlen)) ||
	    (rc = get_long(obj, "run", &rec->run, 0, err, errlen)) ||
	    (rc = get_long(obj, who, &rec->tenant, 1, err, errlen)) ||
	    (rc = get_long(obj, "tenants", &rec->tenants, 0, err, errlen)) ||
	    (rc = get_long(obj, "execs", &rec->execs, 0, err, errlen)) ||
	    (rc = get_long(obj, "corun_execs", &rec->corun_execs, 0, err, errlen)) ||
	    (rc = get_number(obj, "corun_end_ns", &rec->corun_end_ns, 0, err, errlen)) ||
	    (rc = get_number(obj, "start_ns", &rec->start_ns, 1, err, errlen)) ||
	    (rc = get_number(obj, "end_ns", &rec->end_ns, 1, err, errlen)) ||
	    (rc = get_number(obj, "iso_ns", &rec->iso_ns, 0, err, errlen)) ||
	    (rc = get_number(obj, "host_ns", &rec->host_ns, 0, err, errlen)) ||
	    (rc = get_number(obj, "prof_ns", &rec->prof_ns, 0, err, errlen)))
		goto out;
	rec->arrival_ns = rec->start_ns;
	if ((rc = get_number(obj, "arrival_ns", &rec->arrival_ns, 0, err, errlen)))
		goto out;
	if (strcmp(status, "ok") == 0) {
		rec->failed = 0;
	} else if (strcmp(status, "failed") == 0) {
		rec->failed = 1;
	} else {
		snprintf(err, errlen, "\"status\" must be \"ok\" or \"failed\"");
		rc = -EINVAL;
		goto out;
	}
	if (!rec->failed) {
		if (rec->end_ns < rec->start_ns || rec->start_ns < rec->arrival_ns) {
			snprintf(err, errlen, "times must satisfy arrival_ns <= start_ns <= end_ns");
			rc = -EINVAL;
		} else if (rec->corun_end_ns != 0 && rec->corun_end_ns < rec->end_ns) {
			snprintf(err, errlen, "\"corun_end_ns\" must be 0 or >= end_ns");
			rc = -EINVAL;
		} else if (!rec->trace && !(rec->iso_ns > 0)) {
			snprintf(err, errlen, "\"iso_ns\" must be > 0 for a successful record");
			rc = -EINVAL;
		}
	}
out:
	aos_json_free(obj);
	return rc;
}

int aos_recordset_add(struct aos_recordset *set, const struct aos_record *rec)
{
	if (set->count == set->cap) {
		size_t ncap = set->cap ? 2 * set->cap : 64;
		struct aos_record *n = realloc(set->items, ncap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		set->items = n;
		set->cap = ncap;
	}
	set->items[set->count++] = *rec;
	return 0;
}

int aos_recordset_load(struct aos_recordset *set, FILE *f, const char *name, char *err, size_t errlen)
{
	char *line = NULL, why[256];
	size_t cap = 0;
	ssize_t len;
	long lineno = 0;
	int rc = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		struct aos_record rec;
		lineno++;
		if (strspn(line, " \t\r\n") == (size_t)len)
			continue;
		if ((size_t)len != strlen(line)) {
			snprintf(err, errlen, "%s:%ld: NUL byte in line", name, lineno);
			rc = -EINVAL;
			break;
		}
		if (aos_record_parse(line, &rec, why, sizeof(why))) {
			snprintf(err, errlen, "%s:%ld: %s", name, lineno, why);
			rc = -EINVAL;
			break;
		}
		if ((rc = aos_recordset_add(set, &rec))) {
			snprintf(err, errlen, "%s:%ld: out of memory", name, lineno);
			break;
		}
	}
	free(line);
	return rc;
}

void aos_recordset_free(struct aos_recordset *set)
{
	free(set->items);
	memset(set, 0, sizeof(*set));
}

void aos_record_write(FILE *f, const struct aos_record *r, const char *mode)
{
	fputs("{\"type\":\"exec\",\"config\":", f);
	aos_json_put_string(f, r->config);
	if (mode) {
		fputs(",\"mode\":", f);
		aos_json_put_string(f, mode);
	}
	fprintf(f, ",\"mix\":%ld,\"run\":%ld,\"tenant\":%ld,\"tenants\":%ld,\"kernel\":", r->mix, r->run,
		r->tenant, r->tenants);
	aos_json_put_string(f, r->kernel);
	fprintf(f, ",\"status\":\"%s\",\"arrival_ns\":%.0f,\"start_ns\":%.0f,\"end_ns\":%.0f,"
		   "\"iso_ns\":%.0f,\"host_ns\":%.0f,\"prof_ns\":%.0f,\"execs\":%ld",
		r->failed ? "failed" : "ok", r->arrival_ns, r->start_ns, r->end_ns, r->iso_ns, r->host_ns,
		r->prof_ns, r->execs);
	if (r->corun_execs)
		fprintf(f, ",\"corun_execs\":%ld,\"corun_end_ns\":%.0f", r->corun_execs, r->corun_end_ns);
	fputs("}\n", f);
}
