/* Token table for driver callbacks: see callback_token.h. Tokens are never reused (a 64-bit
 * counter), so a late callback cannot claim a newer registration. */
#include "callback_token.h"

#include <pthread.h>
#include <stdlib.h>

#define TOKEN_BUCKETS 256u

struct token_entry {
    struct token_entry *next;
    uint64_t token;
    void *obj;
};

static pthread_mutex_t token_lock = PTHREAD_MUTEX_INITIALIZER;
static struct token_entry *buckets[TOKEN_BUCKETS];
static uint64_t next_token = 1;
static uint64_t outstanding;

/* Removes the entry for token and returns its object; NULL when there is none. Caller holds the lock. */
static void *take_locked(uint64_t token)
{
    for (struct token_entry **p = &buckets[token % TOKEN_BUCKETS]; *p; p = &(*p)->next) {
        struct token_entry *e = *p;
        if (e->token != token)
            continue;
        void *obj = e->obj;
        *p = e->next;
        free(e);
        outstanding--;
        return obj;
    }
    return NULL;
}

uint64_t aos_token_issue(void *obj)
{
    struct token_entry *e = malloc(sizeof(*e));
    if (!e || !obj) {
        free(e);
        return 0;
    }
    pthread_mutex_lock(&token_lock);
    e->token = next_token++;
    e->obj = obj;
    e->next = buckets[e->token % TOKEN_BUCKETS];
    buckets[e->token % TOKEN_BUCKETS] = e;
    outstanding++;
    uint64_t token = e->token;
    pthread_mutex_unlock(&token_lock);
    return token;
}

void *aos_token_claim(uint64_t token)
{
    pthread_mutex_lock(&token_lock);
    void *obj = token ? take_locked(token) : NULL;
    pthread_mutex_unlock(&token_lock);
    return obj;
}

bool aos_token_withdraw(uint64_t token)
{
    return aos_token_claim(token) != NULL;
}

uint64_t aos_token_outstanding(void)
{
    pthread_mutex_lock(&token_lock);
    uint64_t n = outstanding;
    pthread_mutex_unlock(&token_lock);
    return n;
}
