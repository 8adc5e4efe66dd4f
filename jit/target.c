/*
 * The one table that maps what a device reports to a JIT target. First
 * matching row wins; a device matching no row is built natively.
 */
#include "accelos/jit.h"

#include <string.h>

struct target_rule {
	const char *vendor_substr;  /* NULL: any vendor */
	const char *extension;      /* NULL: no extension required */
	const char *il_prefix;      /* NULL: no IL requirement */
	enum aos_jit_target target;
};

static const struct target_rule rules[] = {
	{ "NVIDIA", NULL, NULL, AOS_JIT_TARGET_NVPTX64 },
	{ NULL, "cl_khr_spir", NULL, AOS_JIT_TARGET_SPIR64 },
	{ NULL, NULL, "SPIR-V", AOS_JIT_TARGET_SPIRV },
	{ NULL, "cl_khr_il_program", NULL, AOS_JIT_TARGET_SPIRV },
};

static const char *const names[] = {
	[AOS_JIT_TARGET_NONE] = "none",
	[AOS_JIT_TARGET_SPIR64] = "spir64",
	[AOS_JIT_TARGET_NVPTX64] = "nvptx64",
	[AOS_JIT_TARGET_SPIRV] = "spirv",
};

static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; p && (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return 1;
	return 0;
}

enum aos_jit_target aos_jit_target_for_device(const struct aos_jit_device_desc *dev)
{
	if (!dev)
		return AOS_JIT_TARGET_NONE;
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		const struct target_rule *r = &rules[i];
		if (r->vendor_substr && !(dev->vendor && strstr(dev->vendor, r->vendor_substr)))
			continue;
		if (r->extension && !has_word(dev->extensions, r->extension))
			continue;
		if (r->il_prefix && !(dev->il_version && strstr(dev->il_version, r->il_prefix)))
			continue;
		return r->target;
	}
	return AOS_JIT_TARGET_NONE;
}

bool aos_jit_target_has_direct(enum aos_jit_target t)
{
	return t == AOS_JIT_TARGET_SPIR64 || t == AOS_JIT_TARGET_SPIRV || t == AOS_JIT_TARGET_NVPTX64;
}

const char *aos_jit_target_name(enum aos_jit_target t)
{
	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "none";
}

enum aos_jit_target aos_jit_target_parse(const char *name)
{
	for (unsigned t = AOS_JIT_TARGET_SPIR64; t < sizeof(names) / sizeof(names[0]); t++)
		if (name && strcmp(name, names[t]) == 0)
			return (enum aos_jit_target)t;
	if (name && strcmp(name, "nvptx64-nvidia-nvcl") == 0)
		return AOS_JIT_TARGET_NVPTX64;
	return AOS_JIT_TARGET_NONE;
}
