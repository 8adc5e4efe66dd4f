/* SHA-256, used for content-addressed cache keys. */
#ifndef AOS_SHA256_H
#define AOS_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct aos_sha256 {
	uint32_t h[8];
	uint64_t len;
	uint8_t buf[64];
	size_t fill;
};

void aos_sha256_init(struct aos_sha256 *s);
void aos_sha256_update(struct aos_sha256 *s, const void *data, size_t n);
/* Writes the digest as 64 lowercase hex characters plus NUL. */
void aos_sha256_final_hex(struct aos_sha256 *s, char hex[65]);

#endif
