/* Tokens for driver callbacks that may never come, or come late.
 *
 * PoCL calls no callback on an event that failed; other drivers call it, at any time. So a
 * callback's user data is a token, not a pointer. Each token holds one reference to its object,
 * and exactly one of two things ends it: the callback claims it (and takes that reference over),
 * or the object's owner withdraws it once it no longer waits (and drops that reference). A
 * callback that comes after the withdrawal finds nothing: no leak, no dangling pointer. */
#ifndef ACCELOSD_CALLBACK_TOKEN_H
#define ACCELOSD_CALLBACK_TOKEN_H

#include <stdbool.h>
#include <stdint.h>

/* A token for obj, whose reference the caller has taken for it; 0 when out of memory. */
uint64_t aos_token_issue(void *obj);
/* The object, with the token's reference now the caller's; NULL when already withdrawn. */
void *aos_token_claim(uint64_t token);
/* True when the token was still out: its reference is then the caller's to drop. False for 0. */
bool aos_token_withdraw(uint64_t token);
/* Tokens issued and not yet claimed or withdrawn. */
uint64_t aos_token_outstanding(void);

/* A token travels as a callback's user data (64-bit pointers: no token is lost to truncation). */
static inline void *aos_token_as_data(uint64_t token) { return (void *)(uintptr_t)token; }
static inline uint64_t aos_token_of_data(void *data) { return (uint64_t)(uintptr_t)data; }

#endif
