/*
 * --arg SPEC parsing for the differential tester and the benchmarks.
 *
 *   buf:TYPE:COUNT[:FILL]   global buffer of COUNT elements of TYPE
 *                           (char..double, vectors like float4, uint16)
 *                           FILL: rand (default), unit ([0,1) floats),
 *                           zero, iota, modN (integers in [0,N))
 *   local:BYTES             local buffer argument
 *   TYPE:V[,V...]           scalar or vector by value (int:5, float4:1,2,3,4)
 *   raw:T=V,T=V,...         bytes of a struct by value, fields packed in order
 *   image2d:W:H             read-only RGBA float image, filled with unit floats
 *   wimage2d:W:H            write-only RGBA float image, compared after the run
 *   sampler:ADDR:FILTER:NORM  e.g. sampler:clamp:nearest:unnorm
 */
#ifndef AOS_ARGSPEC_H
#define AOS_ARGSPEC_H

#include <stddef.h>
#include <stdint.h>

enum aos_arg_kind {
	AOS_ARG_BUFFER,
	AOS_ARG_LOCAL,
	AOS_ARG_VALUE,
	AOS_ARG_IMAGE_IN,
	AOS_ARG_IMAGE_OUT,
	AOS_ARG_SAMPLER,
};

enum aos_fill { AOS_FILL_RAND, AOS_FILL_UNIT, AOS_FILL_ZERO, AOS_FILL_IOTA, AOS_FILL_MOD };

struct aos_argspec {
	enum aos_arg_kind kind;
	/* buffers */
	unsigned elem_size;   /* bytes of one scalar component */
	unsigned lanes;       /* vector width (3 stored as 4) */
	int is_float;
	int is_signed;
	size_t count;         /* elements */
	size_t bytes;         /* buffer / local / value size */
	enum aos_fill fill;
	uint64_t fill_mod;
	/* by-value arguments */
	uint8_t value[256];
	/* images */
	size_t width, height;
	/* samplers */
	unsigned addressing, filter, normalized;
};

/* Parses one SPEC. Returns 0 or -EINVAL with a message in err (len bytes). */
int aos_argspec_parse(const char *spec, struct aos_argspec *out, char *err, size_t len);

/* Fills `buf` (a->bytes) deterministically from seed and argument index. */
void aos_argspec_fill(const struct aos_argspec *a, unsigned index, uint64_t seed, void *buf);

#endif
