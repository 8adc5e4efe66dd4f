/* accelos-jit transform: write the rewritten module, report per kernel. */
#include "cli.h"
#include "text_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int aos_cli_transform(int argc, char **argv)
{
	const char *file = NULL, *out = NULL;
	struct aos_jit_options opt = { .target = AOS_JIT_TARGET_SPIR64 };
	char *options = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			options = aos_cli_join(argc, argv, i + 1);
			break;
		} else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
			out = argv[++i];
		} else if (strcmp(argv[i], "--target") == 0 && i + 1 < argc) {
			opt.target = aos_jit_target_parse(argv[++i]);
			if (opt.target == AOS_JIT_TARGET_NONE) {
				fprintf(stderr, "accelos-jit: unknown target '%s'\n", argv[i]);
				return 2;
			}
		} else if (strcmp(argv[i], "--sm") == 0 && i + 1 < argc) {
			opt.nv_sm = (unsigned)atoi(argv[++i]);
		} else if (strcmp(argv[i], "--no-cache") == 0) {
			opt.no_cache = 1;
		} else if (!file && argv[i][0] != '-') {
			file = argv[i];
		} else {
			fprintf(stderr, "accelos-jit transform: unexpected '%s'\n", argv[i]);
			return 2;
		}
	}
	if (!file) {
		fprintf(stderr, "accelos-jit transform: no input file\n");
		return 2;
	}
	size_t len;
	char *src = aos_read_text(file, &len);
	if (!src) {
		fprintf(stderr, "accelos-jit: cannot read %s: %s\n", file, strerror(errno));
		free(options);
		return 2;
	}
	opt.build_options = options;
	struct aos_jit_result *res = NULL;
	int rc = aos_jit_compile(src, len, &opt, &res);
	if (res && res->build_log && *res->build_log)
		fputs(res->build_log, stderr);
	if (rc == 0) {
		for (size_t i = 0; i < res->num_kernels; i++) {
			const struct aos_jit_kernel *k = &res->kernels[i];
			if (k->rewritten)
				printf("%s: rewritten chunk=%u insts=%u runtime_args=%u\n", k->name,
				       k->chunk, k->inst_count, k->runtime_args);
			else
				printf("%s: not rewritten: %s\n", k->name, k->reason);
		}
		if (out && !res->binary_size) {
			fprintf(stderr, "accelos-jit: no module for this target: the program stays native, "
					"%s not written\n", out);
		} else if (out) {
			FILE *f = fopen(out, "wb");
			if (!f || fwrite(res->binary, 1, res->binary_size, f) != res->binary_size) {
				fprintf(stderr, "accelos-jit: cannot write %s\n", out);
				rc = -EIO;
			}
			if (f)
				fclose(f);
		}
	} else {
		fprintf(stderr, "accelos-jit: build failed: %s (%s)\n", aos_jit_cl_error_name(rc),
			strerror(-rc));
	}
	aos_jit_result_destroy(res);
	free(src);
	free(options);
	return rc == 0 ? 0 : 1;
}
