/* store_queue.h — the coalescing queue the store's loads and writes both go through
 * (store_load.c, store_cas.c). Requests wait in arrival order; a statement builder
 * takes from the head as many as fit into one statement (its own rules: keys, bytes,
 * one kind per statement); statements in flight are listed, so that store_free can
 * release them if the loop ends first; and requests the write-behind log holds back
 * wait for a pause, then go back to the front in the order they had. A request is in
 * at most one queue at a time, linked by its struct sq_item. Not for use outside
 * src/store/. */
#ifndef BITMAPD_STORE_QUEUE_H
#define BITMAPD_STORE_QUEUE_H

#include <stddef.h>

#include "core/common.h"

struct sq_item {
    struct sq_item *next;
    size_t nkeys; /* what the request adds to a statement, in keys */
    int waits;    /* times the write-behind log held it back */
};

/* A statement in flight, listed in its queue's `sent`. */
struct sent_node {
    struct sent_node *next, **pprev;
};
/* The batch (of type `type`, with a member `sent`) a sent node belongs to. */
#define SENT_BATCH(node, type) ((type *)(void *)((char *)(node) - offsetof(type, sent)))

struct squeue {
    struct sq_item *head, *tail; /* waiting for a statement, oldest first */
    size_t nkeys;                /* keys of the requests waiting */
    struct sq_item *held, **held_tail; /* held back by the write-behind log, in order */
    struct sent_node *sent;      /* statements in flight */
    int in_flight;               /* statements sent and not answered (their builder counts) */
};

/* The item of a request of type `type` whose struct sq_item member is `member`. */
#define SQ_OWNER(item, type, member) ((type *)(void *)((char *)(item) - offsetof(type, member)))

void sq_init(struct squeue *q);
/* Appends it (it->nkeys set) at the tail. */
void sq_push(struct squeue *q, struct sq_item *it);
/* The oldest waiting request, or NULL; sq_pop removes it. */
static inline struct sq_item *sq_head(const struct squeue *q) { return q->head; }
struct sq_item *sq_pop(struct squeue *q);
/* Puts the requests of `back` (a queue of their own, in order) in front of q's. */
void sq_requeue_front(struct squeue *q, struct squeue *back);
/* Holds it back until sq_release(); false (it not held) once it was held back more
 * than max_waits times: its caller fails it. */
bool sq_hold(struct squeue *q, struct sq_item *it, int max_waits) WUR;
/* The requests held back go to the front of the queue, in the order they were held. */
void sq_release(struct squeue *q);
/* Every request of q, waiting or held back, as one list linked by next (oldest
 * waiting first); q is left empty. For the store's end. */
struct sq_item *sq_take_all(struct squeue *q);

/* Lists a statement in flight (or another job the store must be able to release);
 * sent_unlink takes it out when its answer arrives. */
static inline void sent_link(struct sent_node **head, struct sent_node *n)
{
    n->next = *head;
    n->pprev = head;
    if (*head) (*head)->pprev = &n->next;
    *head = n;
}

static inline void sent_unlink(struct sent_node *n)
{
    *n->pprev = n->next;
    if (n->next) n->next->pprev = n->pprev;
}

#endif
