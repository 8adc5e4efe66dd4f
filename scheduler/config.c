/*
 * accelosd scheduler configuration: `key = value` lines, `#` comments.
 *
 * The parser reports every bad line, not just the first, so that an operator
 * fixes a file in one go; the daemon refuses to start on any error rather
 * than run with a half-understood policy. Values are checked against ranges
 * that make sense (a 0 ms slice or a zero weight would stall or divide by
 * zero later), and each key may be given once so that a typo'd override is
 * not silently lost.
 */
#include "accelos/sched_config.h"

#include "accelos/jit.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_FILE_BYTES (1u << 20)
#define WEIGHT_PREFIX "weight."
#define WEIGHT_MAX 1000u

void aos_sched_config_init(struct aos_sched_config *cfg)
{
	*cfg = (struct aos_sched_config){
		.policy = AOS_SCHED_POLICY_FAIR,
		.slice_ms = AOS_SCHED_SLICE_MS_DEFAULT,
		.max_inflight_per_client = 64,
		.vgroup_timeout_ms = 10000,
		.anticipate_us = 1000,
		.anticipate_lead_us = 500,
		.hold_charge_pct = AOS_SCHED_HOLD_CHARGE_PCT_DEFAULT,
		.response_floor_us = 60,
		.lone_slice_ms = AOS_SCHED_LONE_SLICE_MS_DEFAULT,
		.solo_native_us = AOS_SCHED_SOLO_NATIVE_US_DEFAULT,
		.rejoin_credit_us = AOS_SCHED_REJOIN_CREDIT_US_DEFAULT,
		.cpu_loop_align = AOS_JIT_HOST_LOOP_ALIGN_DEFAULT,
		.cut_quantum_us = AOS_SCHED_CUT_QUANTUM_US_DEFAULT,
	};
}

uint64_t aos_sched_config_lone_ns(const struct aos_sched_config *cfg)
{
	return aos_sched_lone_slice((uint64_t)cfg->slice_ms * 1000000ull, (uint64_t)cfg->lone_slice_ms * 1000000ull);
}

void aos_sched_config_release(struct aos_sched_config *cfg)
{
	if (!cfg)
		return;
	free(cfg->weights);
	cfg->weights = NULL;
	cfg->n_weights = 0;
}

static void add_error(struct aos_sched_config_errors *errs, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_error(struct aos_sched_config_errors *errs, unsigned line, const char *fmt, ...)
{
	if (!errs)
		return;
	if (errs->count < AOS_SCHED_CONFIG_MAX_ERRORS) {
		struct aos_sched_config_error *e = &errs->e[errs->count];
		va_list ap;
		e->line = line;
		va_start(ap, fmt);
		vsnprintf(e->reason, sizeof(e->reason), fmt, ap);
		va_end(ap);
	}
	errs->count++;
}

/* A view of part of the text; never NUL-terminated. */
struct span {
	const char *p;
	size_t n;
};

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static struct span trim(struct span s)
{
	while (s.n && is_space(s.p[0]))
		s.p++, s.n--;
	while (s.n && is_space(s.p[s.n - 1]))
		s.n--;
	return s;
}

static int span_is(struct span s, const char *word)
{
	return s.n == strlen(word) && memcmp(s.p, word, s.n) == 0;
}

static int all_digits(struct span s)
{
	if (!s.n)
		return 0;
	for (size_t i = 0; i < s.n; i++)
		if (s.p[i] < '0' || s.p[i] > '9')
			return 0;
	return 1;
}

/* Decimal without sign; -ERANGE above UINT32_MAX, -EINVAL if not a number. */
static int parse_u32(struct span s, uint32_t *out)
{
	uint64_t v = 0;
	if (!all_digits(s))
		return -EINVAL;
	for (size_t i = 0; i < s.n; i++) {
		v = v * 10 + (uint64_t)(s.p[i] - '0');
		if (v > UINT32_MAX)
			return -ERANGE;
	}
	*out = (uint32_t)v;
	return 0;
}

/* Messages quote at most this many bytes of what the user wrote. */
#define Q 40
#define QUOTE(s) (int)((s).n > Q ? Q : (s).n), (s).p, ((s).n > Q ? "..." : "")

struct numeric_key {
	const char *name;
	size_t offset; /* of the uint32_t field in struct aos_sched_config */
	uint32_t min, max;
	const char *zero_means; /* NULL: 0 is not special */
	uint32_t pow2_from;     /* nonzero: besides 0, only powers of two from this one to max */
};

static const struct numeric_key numeric_keys[] = {
	{ "slice_ms", offsetof(struct aos_sched_config, slice_ms), 1, 60000, NULL, 0 },
	{ "max_inflight_per_client", offsetof(struct aos_sched_config, max_inflight_per_client), 0, 1000000,
	  "unlimited", 0 },
	{ "vgroup_timeout_ms", offsetof(struct aos_sched_config, vgroup_timeout_ms), 0, 3600000, "no timeout", 0 },
	{ "anticipate_us", offsetof(struct aos_sched_config, anticipate_us), 0, 1000000, "off", 0 },
	{ "anticipate_lead_us", offsetof(struct aos_sched_config, anticipate_lead_us), 0, 1000000, NULL, 0 },
	{ "hold_charge_pct", offsetof(struct aos_sched_config, hold_charge_pct), 1, 100, NULL, 0 },
	{ "response_floor_us", offsetof(struct aos_sched_config, response_floor_us), 0, 1000000, "off", 0 },
	{ "lone_slice_ms", offsetof(struct aos_sched_config, lone_slice_ms), 0, 60000, "off", 0 },
	{ "solo_native_us", offsetof(struct aos_sched_config, solo_native_us), 0, 1000000, "off", 0 },
	{ "rejoin_credit_us", offsetof(struct aos_sched_config, rejoin_credit_us), 0, 1000000, "none", 0 },
	{ "cpu_loop_align", offsetof(struct aos_sched_config, cpu_loop_align), 0, AOS_JIT_HOST_LOOP_ALIGN_MAX,
	  "LLVM's own", AOS_JIT_HOST_LOOP_ALIGN_MIN },
	{ "cut_quantum_us", offsetof(struct aos_sched_config, cut_quantum_us), 0, 1000000, "off", 0 },
};
#define NNUMERIC (sizeof(numeric_keys) / sizeof(numeric_keys[0]))

static const char *const wave_shape_names[] = {
	[AOS_WAVE_SHAPE_AUTO] = "auto",
	[AOS_WAVE_SHAPE_LOOP] = "loop",
	[AOS_WAVE_SHAPE_DIRECT] = "direct",
};
#define NSHAPES (sizeof(wave_shape_names) / sizeof(wave_shape_names[0]))

/* Lines where the scalar keys were set: 0 = policy, 1 = wave_shape, 2.. = numeric_keys. */
#define SEEN_NUMERIC 2
struct seen {
	unsigned line[SEEN_NUMERIC + NNUMERIC];
};

static int check_once(struct seen *seen, size_t slot, unsigned line, struct span key,
		      struct aos_sched_config_errors *errs)
{
	if (seen->line[slot]) {
		add_error(errs, line, "duplicate key '%.*s%s' (first set on line %u)", QUOTE(key), seen->line[slot]);
		return -EINVAL;
	}
	seen->line[slot] = line;
	return 0;
}

static int set_weight(struct aos_sched_config *tmp, size_t *cap, unsigned line, struct span key, struct span client,
		      struct span value, struct aos_sched_config_errors *errs)
{
	struct aos_sched_config_weight w = { .line = line };
	uint32_t uid;

	if (!client.n) {
		add_error(errs, line, "missing uid or client name after 'weight.'");
		return -EINVAL;
	}
	if (all_digits(client)) {
		/* A uid: stored in canonical decimal so "007" and "7" are the same client. */
		if (parse_u32(client, &uid)) {
			add_error(errs, line, "uid '%.*s%s' is out of range", QUOTE(client));
			return -EINVAL;
		}
		snprintf(w.client, sizeof(w.client), "%u", uid);
	} else {
		if (client.n >= sizeof(w.client)) {
			add_error(errs, line, "client name '%.*s%s' is longer than %zu bytes", QUOTE(client),
				  sizeof(w.client) - 1);
			return -EINVAL;
		}
		memcpy(w.client, client.p, client.n);
	}
	int rc = parse_u32(value, &w.weight);
	if (rc || w.weight < 1 || w.weight > WEIGHT_MAX) {
		add_error(errs, line, "'%.*s%s' must be an integer from 1 to %u, got '%.*s%s'", QUOTE(key), WEIGHT_MAX,
			  QUOTE(value));
		return -EINVAL;
	}
	for (size_t i = 0; i < tmp->n_weights; i++) {
		if (strcmp(tmp->weights[i].client, w.client) == 0) {
			add_error(errs, line, "duplicate key '%.*s%s' (first set on line %u)", QUOTE(key),
				  tmp->weights[i].line);
			return -EINVAL;
		}
	}
	if (tmp->n_weights == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		struct aos_sched_config_weight *nw = realloc(tmp->weights, ncap * sizeof(*nw));
		if (!nw)
			return -ENOMEM;
		tmp->weights = nw;
		*cap = ncap;
	}
	tmp->weights[tmp->n_weights++] = w;
	return 0;
}

/* One non-empty, comment-stripped, trimmed line. -EINVAL (error recorded) or -ENOMEM. */
static int parse_line(struct aos_sched_config *tmp, size_t *wcap, struct seen *seen, unsigned line,
		      struct span s, struct aos_sched_config_errors *errs)
{
	const char *eq = memchr(s.p, '=', s.n);
	if (!eq) {
		add_error(errs, line, "expected 'key = value', got '%.*s%s'", QUOTE(s));
		return -EINVAL;
	}
	struct span key = trim((struct span){ s.p, (size_t)(eq - s.p) });
	struct span value = trim((struct span){ eq + 1, s.n - (size_t)(eq - s.p) - 1 });
	if (!key.n) {
		add_error(errs, line, "missing key before '='");
		return -EINVAL;
	}
	for (size_t i = 0; i < key.n; i++) {
		if (is_space(key.p[i])) {
			add_error(errs, line, "key '%.*s%s' contains whitespace", QUOTE(key));
			return -EINVAL;
		}
	}
	if (!value.n) {
		add_error(errs, line, "missing value for '%.*s%s'", QUOTE(key));
		return -EINVAL;
	}

	if (span_is(key, "policy")) {
		char name[16];
		const struct aos_sched_policy *pol = NULL;
		if (value.n < sizeof(name)) {
			memcpy(name, value.p, value.n);
			name[value.n] = '\0';
			pol = aos_sched_policy_by_name(name);
		}
		if (!pol) {
			add_error(errs, line, "unknown policy '%.*s%s' (expected one of: %s)", QUOTE(value),
				  aos_sched_policy_names());
			return -EINVAL;
		}
		if (check_once(seen, 0, line, key, errs))
			return -EINVAL;
		tmp->policy = pol->id;
		return 0;
	}

	if (span_is(key, "wave_shape")) {
		size_t shape = 0;
		while (shape < NSHAPES && !span_is(value, wave_shape_names[shape]))
			shape++;
		if (shape == NSHAPES) {
			add_error(errs, line, "unknown wave_shape '%.*s%s' (expected one of: auto loop direct)",
				  QUOTE(value));
			return -EINVAL;
		}
		if (check_once(seen, 1, line, key, errs))
			return -EINVAL;
		tmp->wave_shape = (enum aos_wave_shape)shape;
		return 0;
	}

	for (size_t k = 0; k < NNUMERIC; k++) {
		const struct numeric_key *nk = &numeric_keys[k];
		uint32_t v;
		if (!span_is(key, nk->name))
			continue;
		int rc = parse_u32(value, &v);
		if (nk->pow2_from && !rc && v != 0 && (v < nk->pow2_from || v > nk->max || (v & (v - 1u)))) {
			add_error(errs, line, "'%s' must be 0 (%s) or a power of two from %u to %u, got '%.*s%s'",
				  nk->name, nk->zero_means, nk->pow2_from, nk->max, QUOTE(value));
			return -EINVAL;
		}
		if (rc || v < nk->min || v > nk->max) {
			add_error(errs, line, "'%s' must be an integer from %u to %u%s%s%s, got '%.*s%s'", nk->name,
				  nk->min, nk->max, nk->zero_means ? " (0 = " : "",
				  nk->zero_means ? nk->zero_means : "", nk->zero_means ? ")" : "", QUOTE(value));
			return -EINVAL;
		}
		if (check_once(seen, SEEN_NUMERIC + k, line, key, errs))
			return -EINVAL;
		memcpy((char *)tmp + nk->offset, &v, sizeof(v));
		return 0;
	}

	size_t plen = strlen(WEIGHT_PREFIX);
	if (key.n >= plen && memcmp(key.p, WEIGHT_PREFIX, plen) == 0)
		return set_weight(tmp, wcap, line, key, (struct span){ key.p + plen, key.n - plen }, value, errs);

	add_error(errs, line, "unknown key '%.*s%s'", QUOTE(key));
	return -EINVAL;
}

int aos_sched_config_parse(struct aos_sched_config *cfg, const char *text, size_t len,
			   struct aos_sched_config_errors *errs)
{
	if (!cfg || (len && !text))
		return -EINVAL;
	if (errs)
		errs->count = 0;

	/* Work on a copy so a failed parse leaves cfg as it was. */
	struct aos_sched_config tmp = *cfg;
	size_t wcap = cfg->n_weights;
	tmp.weights = NULL;
	if (cfg->n_weights) {
		tmp.weights = malloc(cfg->n_weights * sizeof(*tmp.weights));
		if (!tmp.weights)
			return -ENOMEM;
		memcpy(tmp.weights, cfg->weights, cfg->n_weights * sizeof(*tmp.weights));
	}

	struct seen seen = { { 0 } };
	int bad = 0, rc = 0;
	unsigned line = 0;
	size_t pos = 0;
	while (pos < len && rc != -ENOMEM) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;
		struct span s = { text + pos, end - pos };
		pos = end + 1;
		line++;

		if (memchr(s.p, '\0', s.n)) {
			add_error(errs, line, "NUL byte in line");
			bad = 1;
			continue;
		}
		const char *hash = memchr(s.p, '#', s.n);
		if (hash)
			s.n = (size_t)(hash - s.p);
		s = trim(s);
		if (!s.n)
			continue;
		rc = parse_line(&tmp, &wcap, &seen, line, s, errs);
		if (rc == -EINVAL)
			bad = 1;
	}

	if (rc == -ENOMEM || bad) {
		free(tmp.weights);
		return rc == -ENOMEM ? -ENOMEM : -EINVAL;
	}
	free(cfg->weights);
	*cfg = tmp;
	return 0;
}

int aos_sched_config_load(struct aos_sched_config *cfg, const char *path, struct aos_sched_config_errors *errs)
{
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	int rc;

	if (!cfg || !path)
		return -EINVAL;
	if (errs)
		errs->count = 0;
	FILE *f = fopen(path, "re");
	if (!f) {
		rc = -errno;
		add_error(errs, 0, "cannot open '%s': %s", path, strerror(-rc));
		return rc;
	}
	if (fstat(fileno(f), &st) != 0) {
		rc = -errno;
		add_error(errs, 0, "cannot stat '%s': %s", path, strerror(-rc));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = -EINVAL;
		add_error(errs, 0, "'%s' is not a regular file", path);
		goto out;
	}
	if (st.st_size > (off_t)MAX_FILE_BYTES) {
		rc = -EFBIG;
		add_error(errs, 0, "'%s' is larger than %u bytes", path, MAX_FILE_BYTES);
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		rc = -ENOMEM;
		goto out;
	}
	got = fread(buf, 1, (size_t)st.st_size, f);
	if (ferror(f)) {
		rc = -EIO;
		add_error(errs, 0, "cannot read '%s'", path);
		goto out;
	}
	rc = aos_sched_config_parse(cfg, buf, got, errs);
out:
	free(buf);
	fclose(f);
	return rc;
}

uint32_t aos_sched_config_weight(const struct aos_sched_config *cfg, uint32_t uid, const char *name)
{
	char uid_str[16];
	if (!cfg)
		return 1;
	snprintf(uid_str, sizeof(uid_str), "%u", uid);
	for (size_t i = 0; i < cfg->n_weights; i++)
		if (strcmp(cfg->weights[i].client, uid_str) == 0)
			return cfg->weights[i].weight;
	for (size_t i = 0; name && *name && i < cfg->n_weights; i++)
		if (strcmp(cfg->weights[i].client, name) == 0)
			return cfg->weights[i].weight;
	return 1;
}
