/*
 * clBuildProgram options -> clang arguments. Options are split like a shell
 * word list (quotes, backslash) and checked against an allow-list, because
 * they come from the application and reach a compiler: anything that could
 * write files or load code (-o, -Xclang, -fplugin, ...) is refused the way a
 * native driver refuses unknown options (CL_INVALID_BUILD_OPTIONS).
 */
#include "jit_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const allowed_prefixes[] = {
	"-D", "-U", "-I", "-cl-", "-W", "-w", "-g", "-O", "-ffp-contract=",
};

static int option_allowed(const char *opt)
{
	for (size_t i = 0; i < sizeof(allowed_prefixes) / sizeof(allowed_prefixes[0]); i++)
		if (strncmp(opt, allowed_prefixes[i], strlen(allowed_prefixes[i])) == 0)
			return 1;
	return 0;
}

/* Options taking a separate value word (-D X, -I dir). */
static int takes_value(const char *opt)
{
	return strcmp(opt, "-D") == 0 || strcmp(opt, "-U") == 0 || strcmp(opt, "-I") == 0;
}

static char *next_word(const char **pp)
{
	const char *p = *pp;
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (!*p)
		return NULL;
	char *w = malloc(strlen(p) + 1), *o = w;
	if (!w)
		return NULL;
	char quote = 0;
	for (; *p; p++) {
		if (quote) {
			if (*p == quote)
				quote = 0;
			else if (*p == '\\' && p[1] && quote == '"')
				*o++ = *++p;
			else
				*o++ = *p;
		} else if (*p == '"' || *p == '\'') {
			quote = *p;
		} else if (*p == '\\' && p[1]) {
			*o++ = *++p;
		} else if (*p == ' ' || *p == '\t' || *p == '\n') {
			break;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	*pp = p;
	return w;
}

void aos_build_options_free(char **argv)
{
	for (char **a = argv; a && *a; a++)
		free(*a);
	free(argv);
}

int aos_build_options_parse(const char *options, char ***argv_out, int *argc_out, char **log)
{
	size_t cap = 8, n = 0;
	char **argv = calloc(cap, sizeof(*argv));
	const char *p = options ? options : "";
	char *w;
	int expect_value = 0;
	*log = NULL;
	if (!argv)
		return -ENOMEM;
	while ((w = next_word(&p))) {
		if (!expect_value && !option_allowed(w)) {
			if (asprintf(log, "error: invalid build option '%s'\n", w) < 0)
				*log = NULL;
			free(w);
			aos_build_options_free(argv);
			return -EINVAL;
		}
		expect_value = !expect_value && takes_value(w);
		if (n + 2 > cap) {
			char **g = realloc(argv, 2 * cap * sizeof(*argv));
			if (!g) {
				free(w);
				aos_build_options_free(argv);
				return -ENOMEM;
			}
			argv = g;
			cap *= 2;
		}
		argv[n++] = w;
		argv[n] = NULL;
	}
	if (expect_value) {
		*log = strdup("error: build option is missing its value\n");
		aos_build_options_free(argv);
		return -EINVAL;
	}
	*argv_out = argv;
	*argc_out = (int)n;
	return 0;
}
