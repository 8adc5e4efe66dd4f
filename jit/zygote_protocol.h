/* The request the JIT (jit/zygote.c) sends accelos-clang-zygote (jit/clang_zygote.cpp). */
#ifndef AOS_ZYGOTE_PROTOCOL_H
#define AOS_ZYGOTE_PROTOCOL_H

#include <stdint.h>

#define AOS_ZYGOTE_FD 3                 /* the zygote's end of the socket pair */
#define AOS_ZYGOTE_MAGIC 0x41435a31u    /* "ACZ1" */
#define AOS_ZYGOTE_MAX_ARGS 256
#define AOS_ZYGOTE_MAX_ARGS_BYTES 32768 /* the arguments' strings, NULs included */

struct aos_zygote_request {
	uint32_t magic;
	uint32_t argc;          /* NUL-terminated strings that follow, argv[0] the clang executable */
	uint32_t cpu_seconds;   /* RLIMIT_CPU of the compile (0 = none) */
	uint32_t reserved;
	uint64_t address_space; /* RLIMIT_AS of the compile (0 = none) */
};

#endif
