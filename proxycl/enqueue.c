#include "enqueue.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "accelos/wire_event.h"
#include "conn.h"
#include "event.h"
#include "notify.h"

cl_int aos_enq_prepare(struct aos_enq *e, cl_command_queue queue, cl_uint num_wait, const cl_event *wait,
                       cl_command_type command_type, bool want_event)
{
    memset(e, 0, sizeof(*e));
    if (!aos_object_valid(queue, AOS_OBJ_QUEUE))
        return CL_INVALID_COMMAND_QUEUE;
    if ((num_wait == 0) != (wait == NULL) || num_wait > AOS_MAX_WAIT_LIST)
        return CL_INVALID_EVENT_WAIT_LIST;
    for (cl_uint i = 0; i < num_wait; i++) {
        if (!aos_object_valid(wait[i], AOS_OBJ_EVENT))
            return CL_INVALID_EVENT_WAIT_LIST;
        if (wait[i]->context != queue->context)
            return CL_INVALID_CONTEXT;
    }
    e->queue = queue;
    e->num_wait = num_wait;
    e->wait = wait;
    e->command_type = command_type;
    if (want_event) {
        e->event = aos_event_new(queue->context, queue, command_type);
        if (!e->event)
            return CL_OUT_OF_HOST_MEMORY;
    }
    return CL_SUCCESS;
}

uint32_t aos_enq_wait_bytes(const struct aos_enq *e) { return e->num_wait * (uint32_t)sizeof(uint64_t); }

void aos_enq_encode(struct aos_enq *e, struct aos_enqueue_hdr *hdr, void *wait_out, bool blocking)
{
    e->encoded = true;
    atomic_fetch_add_explicit(&e->queue->commands_sent, 1, memory_order_relaxed);
    hdr->queue = e->queue->obj.id;
    hdr->event = e->event ? e->event->obj.id : 0;
    hdr->num_wait = e->num_wait;
    hdr->blocking = blocking;
    uint64_t *ids = wait_out;
    for (cl_uint i = 0; i < e->num_wait; i++)
        ids[i] = e->wait[i]->obj.id;
}

void aos_enq_complete(struct aos_enq *e, cl_int err, cl_event *app_event)
{
    if (!e->event)
        return;
    if (err == CL_SUCCESS && app_event)
        *app_event = e->event;
    else if (e->encoded)
        aos_object_release(e->event, AOS_OBJ_EVENT, CL_INVALID_EVENT);
    else
        aos_object_discard(e->event); /* the daemon never heard of it: nothing to mirror */
    e->event = NULL;
}

/* ---- Host steps ------------------------------------------------------------------------------ */

struct armed_step {
    struct armed_step *next;
    struct aos_host_step *step;
    uint64_t token;
};

static pthread_mutex_t armed_lock = PTHREAD_MUTEX_INITIALIZER;
static struct armed_step *armed;
static uint64_t next_token = 1;
/* Set once the connection has failed every armed step: nobody would ever run a later one. */
static bool steps_failed;

uint64_t aos_host_step_arm(struct aos_host_step *step, cl_command_queue queue, cl_event event)
{
    struct armed_step *a = malloc(sizeof(*a));
    if (!a)
        return 0;
    step->queue = queue;
    step->event_id = event->obj.id;
    pthread_mutex_lock(&armed_lock);
    if (steps_failed) {
        pthread_mutex_unlock(&armed_lock);
        free(a);
        return 0;
    }
    pthread_mutex_lock(&queue->host_lock);
    queue->host_pending++;
    pthread_mutex_unlock(&queue->host_lock);
    aos_object_hold(queue);
    a->step = step;
    a->token = next_token++;
    a->next = armed;
    armed = a;
    pthread_mutex_unlock(&armed_lock);
    return a->token;
}

void aos_host_steps_after_fork(void)
{
    /* The parent's steps belong to the parent's connection. */
    armed = NULL;
    steps_failed = false;
    pthread_mutex_init(&armed_lock, NULL);
}

static struct aos_host_step *take(uint64_t token)
{
    pthread_mutex_lock(&armed_lock);
    struct aos_host_step *step = NULL;
    for (struct armed_step **p = &armed; *p; p = &(*p)->next)
        if ((*p)->token == token) {
            struct armed_step *a = *p;
            *p = a->next;
            step = a->step;
            free(a);
            break;
        }
    pthread_mutex_unlock(&armed_lock);
    return step;
}

cl_int aos_host_step_report(uint64_t event_id, cl_int status)
{
    struct aos_req_event_status r = {.event = event_id, .status = status < 0 ? status : CL_COMPLETE};
    return aos_send(AOS_OP_COMPLETE_HOST_STEP, &r, sizeof(r));
}

static void finish_step(struct aos_host_step *step, cl_int status, bool tell_daemon)
{
    cl_command_queue q = step->queue;
    uint64_t event_id = step->event_id;
    step->run(step, status); /* may free step */
    if (tell_daemon)
        aos_host_step_report(event_id, status);
    pthread_mutex_lock(&q->host_lock);
    q->host_pending--;
    pthread_cond_broadcast(&q->host_cond);
    pthread_mutex_unlock(&q->host_lock);
    aos_object_unhold(q);
}

void aos_host_step_note(const struct aos_note_host_step *n)
{
    struct aos_host_step *step = take(n->token);
    if (step)
        finish_step(step, n->status, true);
}

void aos_host_step_cancel(uint64_t token, cl_int status)
{
    struct aos_host_step *step = take(token);
    if (step)
        finish_step(step, status, false);
}

void aos_host_steps_fail_all(cl_int status)
{
    for (;;) {
        pthread_mutex_lock(&armed_lock);
        steps_failed = true;
        struct armed_step *a = armed;
        if (a)
            armed = a->next;
        pthread_mutex_unlock(&armed_lock);
        if (!a)
            return;
        finish_step(a->step, status, false);
        free(a);
    }
}

void aos_host_steps_wait(cl_command_queue queue)
{
    pthread_mutex_lock(&queue->host_lock);
    while (queue->host_pending > 0)
        pthread_cond_wait(&queue->host_cond, &queue->host_lock);
    pthread_mutex_unlock(&queue->host_lock);
}
