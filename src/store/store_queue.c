/* store_queue.c — the coalescing queue of loads and writes (store_queue.h). */
#include "store/store_queue.h"

void sq_init(struct squeue *q)
{
    *q = (struct squeue){0};
    q->held_tail = &q->held;
}

void sq_push(struct squeue *q, struct sq_item *it)
{
    it->next = NULL;
    if (q->tail)
        q->tail->next = it;
    else
        q->head = it;
    q->tail = it;
    q->nkeys += it->nkeys;
}

struct sq_item *sq_pop(struct squeue *q)
{
    struct sq_item *it = q->head;
    if (!it) return NULL;
    q->head = it->next;
    if (!q->head) q->tail = NULL;
    q->nkeys -= it->nkeys;
    it->next = NULL;
    return it;
}

void sq_requeue_front(struct squeue *q, struct squeue *back)
{
    if (!back->head) return;
    back->tail->next = q->head;
    if (!q->head) q->tail = back->tail;
    q->head = back->head;
    q->nkeys += back->nkeys;
    back->head = back->tail = NULL;
    back->nkeys = 0;
}

bool sq_hold(struct squeue *q, struct sq_item *it, int max_waits)
{
    if (++it->waits > max_waits) return false;
    it->next = NULL;
    *q->held_tail = it;
    q->held_tail = &it->next;
    return true;
}

void sq_release(struct squeue *q)
{
    struct squeue back;
    if (!q->held) return;
    sq_init(&back);
    for (struct sq_item *it = q->held; it; it = it->next) {
        back.nkeys += it->nkeys;
        back.tail = it;
    }
    back.head = q->held;
    q->held = NULL;
    q->held_tail = &q->held;
    sq_requeue_front(q, &back);
}

struct sq_item *sq_take_all(struct squeue *q)
{
    struct sq_item *all;
    sq_release(q);
    all = q->head;
    q->head = q->tail = NULL;
    q->nkeys = 0;
    return all;
}
