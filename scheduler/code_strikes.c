/* Which code may still run solo: overruns counted per code (include/accelos/code_strikes.h). */
#include "accelos/code_strikes.h"

#include <stddef.h>

static struct aos_code_strike *find(const struct aos_code_strikes *t, uint64_t key)
{
	if (!key)
		return NULL;
	for (uint32_t i = 0; i < AOS_CODE_STRIKES_CODES; i++)
		if (t->codes[i].key == key)
			return (struct aos_code_strike *)&t->codes[i];
	return NULL;
}

/* key's record, made in an empty slot or else over the oldest one. */
static struct aos_code_strike *find_or_add(struct aos_code_strikes *t, uint64_t key)
{
	struct aos_code_strike *r = find(t, key);
	if (r)
		return r;
	for (uint32_t i = 0; i < AOS_CODE_STRIKES_CODES; i++)
		if (!t->codes[i].key) {
			r = &t->codes[i];
			break;
		}
	if (!r) {
		r = &t->codes[t->next % AOS_CODE_STRIKES_CODES];
		t->next = (t->next + 1) % AOS_CODE_STRIKES_CODES;
	}
	*r = (struct aos_code_strike){ .key = key };
	return r;
}

bool aos_code_strikes_unpredictable(const struct aos_code_strikes *t, uint64_t key)
{
	const struct aos_code_strike *r = find(t, key);
	return r && r->strikes >= AOS_CODE_STRIKES_LIMIT;
}

bool aos_code_strikes_overran(struct aos_code_strikes *t, uint64_t key)
{
	if (!key || aos_code_strikes_unpredictable(t, key))
		return false;
	struct aos_code_strike *r = find_or_add(t, key);
	r->strikes++;
	r->on_time = 0;
	return r->strikes >= AOS_CODE_STRIKES_LIMIT;
}

void aos_code_strikes_ran_away(struct aos_code_strikes *t, uint64_t key)
{
	if (!key)
		return;
	struct aos_code_strike *r = find_or_add(t, key);
	r->strikes = AOS_CODE_STRIKES_LIMIT;
	r->on_time = 0;
}

void aos_code_strikes_on_time(struct aos_code_strikes *t, uint64_t key)
{
	struct aos_code_strike *r = find(t, key);
	if (!r || r->strikes >= AOS_CODE_STRIKES_LIMIT || ++r->on_time < AOS_CODE_STRIKES_FORGIVEN_AFTER)
		return;
	r->on_time = 0;
	if (--r->strikes == 0)
		*r = (struct aos_code_strike){ 0 };
}
