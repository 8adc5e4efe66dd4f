/* Posted user-event failures: see status_mailbox.h. */
#include "status_mailbox.h"

#include <stdlib.h>

struct aos_status_post {
    struct aos_status_post *next;
    cl_event ev;
    cl_int status;
    struct aos_event_park *park;
};

void aos_status_mailbox_init(struct aos_status_mailbox *m)
{
    pthread_mutex_init(&m->lock, NULL);
    m->head = m->tail = NULL;
    m->closed = false;
}

void aos_status_apply(cl_event ev, cl_int status, struct aos_event_park *park)
{
    NATIVE(ev, clSetUserEventStatus)(ev, status);
    if (park)
        aos_event_release_or_park(park, ev);
    else
        NATIVE(ev, clReleaseEvent)(ev);
}

bool aos_status_mailbox_post(struct aos_status_mailbox *m, cl_event ev, cl_int status, struct aos_event_park *park)
{
    struct aos_status_post *p = malloc(sizeof(*p));
    if (!p)
        return false;
    *p = (struct aos_status_post){.ev = ev, .status = status, .park = park};
    pthread_mutex_lock(&m->lock);
    bool open = !m->closed;
    if (open) {
        if (m->tail)
            m->tail->next = p;
        else
            m->head = p;
        m->tail = p;
    }
    pthread_mutex_unlock(&m->lock);
    if (!open)
        free(p);
    return open;
}

static void apply_taken(struct aos_status_post *p)
{
    while (p) {
        struct aos_status_post *next = p->next;
        aos_status_apply(p->ev, p->status, p->park);
        free(p);
        p = next;
    }
}

static void take_and_apply(struct aos_status_mailbox *m, bool close)
{
    pthread_mutex_lock(&m->lock);
    struct aos_status_post *taken = m->head;
    m->head = m->tail = NULL;
    if (close)
        m->closed = true;
    pthread_mutex_unlock(&m->lock);
    apply_taken(taken);
}

void aos_status_mailbox_apply(struct aos_status_mailbox *m)
{
    take_and_apply(m, false);
}

void aos_status_mailbox_close(struct aos_status_mailbox *m)
{
    take_and_apply(m, true);
}
