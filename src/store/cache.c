/* cache.c — a chained hash table of rows with an LRU list, and a small table of the
 * latest notification per key hash that decides whether an in-flight result may be
 * cached. */
#include "store/cache.h"

#include <stdlib.h>
#include <string.h>

/* The transactions of this instance's last commits. A notification of one of them
 * that arrives after a later commit of the same key by this instance (a hot key
 * commits again before the previous notification is delivered) is older news: it
 * must not drop, or keep out, the newer copy. Only this instance's own transactions
 * are treated so: a change made by anyone else is always applied. */
#define OWN_XIDS 128
#define ENTRY_OVERHEAD 16 /* what malloc adds per allocation, roughly */

struct entry {
    struct entry *chain;
    struct entry *prev, *next; /* LRU: head is the most recently used */
    uint64_t hash;
    struct cache_val v;
    size_t keylen;
    uint8_t key[];
};

/* The last notification about a key hash, and when it arrived; and the latest seq of
 * the records about other keys that it overwrote in its slot (what is lost). */
struct recent {
    uint64_t hash;
    uint64_t seq;
    int64_t version;
    uint32_t xid;
    bool deleted;
    uint64_t lost;
};

struct cache {
    size_t max_bytes, bytes, entries;
    struct entry **buckets;
    size_t nbuckets; /* a power of two */
    struct entry *head, *tail;
    bool enabled;
    uint64_t seq;       /* notifications applied so far */
    uint64_t flush_seq; /* seq of the last full flush */
    struct recent *recent;
    uint32_t own_xids[OWN_XIDS];
    unsigned own_pos, own_count;
    struct cache_stats st;
};

static bool own_xid(const struct cache *c, uint32_t xid)
{
    for (unsigned i = 0; i < c->own_count; i++)
        if (c->own_xids[i] == xid) return true;
    return false;
}

struct cache_blob *cache_blob_alloc(size_t len)
{
    struct cache_blob *b = malloc(sizeof(*b) + len);
    if (!b) return NULL;
    b->refs = 1;
    b->checked = false;
    b->members_ok = 0;
    b->len = len;
    return b;
}

struct cache_blob *cache_blob_new(const void *bits, size_t len)
{
    struct cache_blob *b = cache_blob_alloc(len);
    if (b && len) memcpy(b->data, bits, len);
    return b;
}

void cache_blob_unref(struct cache_blob *b)
{
    if (b && --b->refs == 0) free(b);
}

static uint64_t key_hash(const void *key, size_t len) { return bytes_hash(key, len); }

static size_t entry_cost(const struct entry *e)
{
    return sizeof(*e) + e->keylen + ENTRY_OVERHEAD + (e->v.blob ? sizeof(*e->v.blob) + e->v.blob->len + ENTRY_OVERHEAD : 0);
}

static struct entry **find(struct cache *c, const void *key, size_t len, uint64_t h)
{
    struct entry **p = &c->buckets[h & (c->nbuckets - 1)];
    while (*p && ((*p)->hash != h || (*p)->keylen != len || memcmp((*p)->key, key, len) != 0)) p = &(*p)->chain;
    return p;
}

static void lru_unlink(struct cache *c, struct entry *e)
{
    if (e->prev) e->prev->next = e->next; else c->head = e->next;
    if (e->next) e->next->prev = e->prev; else c->tail = e->prev;
    e->prev = e->next = NULL;
}

static void lru_push(struct cache *c, struct entry *e)
{
    e->prev = NULL;
    e->next = c->head;
    if (c->head) c->head->prev = e; else c->tail = e;
    c->head = e;
}

/* Unlinks *p from its chain and the LRU list and frees it. */
static void remove_at(struct cache *c, struct entry **p)
{
    struct entry *e = *p;
    *p = e->chain;
    lru_unlink(c, e);
    c->bytes -= entry_cost(e);
    c->entries--;
    cache_blob_unref(e->v.blob);
    free(e);
}

static void remove_key(struct cache *c, const void *key, size_t len, uint64_t h)
{
    struct entry **p;
    if (!c->nbuckets) return;
    p = find(c, key, len, h);
    if (*p) remove_at(c, p);
}

static void flush_all(struct cache *c)
{
    while (c->head) remove_key(c, c->head->key, c->head->keylen, c->head->hash);
    c->flush_seq = ++c->seq;
    c->st.flushes++;
}

static void grow(struct cache *c)
{
    size_t n = c->nbuckets ? c->nbuckets * 2 : 1024;
    struct entry **b = calloc(n, sizeof(*b));
    if (!b) return; /* longer chains, still correct */
    for (size_t i = 0; i < c->nbuckets; i++) {
        struct entry *e = c->buckets[i];
        while (e) {
            struct entry *next = e->chain;
            e->chain = b[e->hash & (n - 1)];
            b[e->hash & (n - 1)] = e;
            e = next;
        }
    }
    free(c->buckets);
    c->buckets = b;
    c->nbuckets = n;
}

struct cache *cache_new(size_t max_bytes)
{
    struct cache *c = calloc(1, sizeof(*c));
    if (!c) return NULL;
    c->max_bytes = max_bytes;
    c->recent = calloc(CACHE_RECENT_SLOTS, sizeof(*c->recent));
    if (!c->recent) {
        free(c);
        return NULL;
    }
    grow(c);
    if (!c->buckets) {
        cache_free(c);
        return NULL;
    }
    return c;
}

void cache_free(struct cache *c)
{
    if (!c) return;
    while (c->head) remove_key(c, c->head->key, c->head->keylen, c->head->hash);
    free(c->buckets);
    free(c->recent);
    free(c);
}

void cache_set_enabled(struct cache *c, bool on)
{
    flush_all(c);
    c->enabled = on && c->max_bytes > 0;
}

bool cache_enabled(const struct cache *c) { return c->enabled; }

void cache_count_hit(struct cache *c) { c->st.hits++; }

#define PREFETCH_BLOCK 256 /* keys whose buckets are asked for at once */

void cache_prefetch(const struct cache *c, size_t n, cache_key_fn *key, const void *arg)
{
    uint64_t h[PREFETCH_BLOCK];
    const struct entry *e;
    size_t len;

    if (!c->enabled) return;
    for (size_t at = 0; at < n; at += PREFETCH_BLOCK) {
        size_t m = n - at < PREFETCH_BLOCK ? n - at : PREFETCH_BLOCK;
        for (size_t i = 0; i < m; i++) { /* the buckets, and the recent slots */
            const void *k = key(arg, at + i, &len);
            h[i] = key_hash(k, len);
            __builtin_prefetch(&c->buckets[h[i] & (c->nbuckets - 1)]);
            __builtin_prefetch(&c->recent[h[i] & (CACHE_RECENT_SLOTS - 1)]);
        }
        for (size_t i = 0; i < m; i++) /* the first entry of each bucket, key included */
            if ((e = c->buckets[h[i] & (c->nbuckets - 1)]) != NULL) {
                __builtin_prefetch(e);
                __builtin_prefetch(e->key);
            }
        for (size_t i = 0; i < m; i++) /* its bits */
            if ((e = c->buckets[h[i] & (c->nbuckets - 1)]) != NULL && e->v.blob) __builtin_prefetch(e->v.blob);
    }
}

bool cache_get(struct cache *c, const void *key, size_t len, struct cache_val *out)
{
    struct entry *e;
    if (!c->enabled) return false;
    e = *find(c, key, len, key_hash(key, len));
    if (!e) {
        c->st.misses++;
        return false;
    }
    c->st.hits++;
    lru_unlink(c, e);
    lru_push(c, e);
    *out = e->v;
    if (out->blob) out->blob->refs++;
    return true;
}

struct cache_blob *cache_blob_at(struct cache *c, const void *key, size_t len, int64_t version)
{
    if (!c->enabled) return NULL;
    struct entry *e = *find(c, key, len, key_hash(key, len));
    if (!e || !e->v.found || e->v.version != version || !e->v.blob) return NULL;
    e->v.blob->refs++;
    return e->v.blob;
}

uint64_t cache_mark(const struct cache *c) { return c->seq; }

/* Does the last notification about this hash, if it came after mark, agree with v? */
static bool still_current(const struct cache *c, uint64_t h, const struct cache_val *v, uint64_t mark)
{
    const struct recent *r = &c->recent[h & (CACHE_RECENT_SLOTS - 1)];
    if (c->flush_seq > mark) return false;
    if (r->seq <= mark) return true;
    /* the slot tells of another key: nothing was heard of this one since mark unless a
     * record of it was overwritten since (a fan-out's own notes of its keys share the
     * slots, and skipped a few percent of its results until the slot kept this) */
    if (r->hash != h) return r->lost <= mark;
    if (r->deleted) return !v->found;
    /* an own earlier commit announced after v was read or written: older news */
    if (v->found && r->version < v->version && own_xid(c, r->xid)) return true;
    return v->found && r->version == v->version && r->xid == v->xid;
}

/* One huge bitmap must not empty the cache: an entry over a quarter of it is not kept. */
static bool too_big(const struct cache *c, const struct entry *e) { return entry_cost(e) > c->max_bytes / 4; }

/* Evicts least recently used entries until the cache fits its bound, keeping e. */
static void evict_but(struct cache *c, const struct entry *e)
{
    while (c->bytes > c->max_bytes && c->tail && c->tail != e) {
        remove_key(c, c->tail->key, c->tail->keylen, c->tail->hash);
        c->st.evictions++;
    }
}

void cache_put(struct cache *c, const void *key, size_t len, const struct cache_val *v, uint64_t mark)
{
    uint64_t h = key_hash(key, len);
    struct entry *e;

    if (!c->enabled) return;
    struct entry **ep = find(c, key, len, h);
    if (*ep) {
        /* what this instance holds may be newer than this result: a commit
         * acknowledged after the statement was sent. Keep it; on a contradiction at
         * the same version keep neither. */
        const struct cache_val *old = &(*ep)->v;
        if (old->found && (!v->found || old->version > v->version)) return;
        if (old->found && old->version == v->version && old->xid != v->xid) { /* a contradiction */
            remove_at(c, ep);
            return;
        }
    }
    if (!still_current(c, h, v, mark)) {
        if (*ep) remove_at(c, ep);
        c->st.stale_skips++;
        return;
    }
    if (*ep) {
        /* the entry takes the new value where it is (a fan-out rewrites a million
         * entries: no free, malloc and relinking of each) */
        e = *ep;
        c->bytes -= entry_cost(e);
        if (v->blob) v->blob->refs++;
        cache_blob_unref(e->v.blob);
        e->v = *v;
        c->bytes += entry_cost(e);
        if (too_big(c, e)) {
            remove_at(c, ep);
            return;
        }
        lru_unlink(c, e);
        lru_push(c, e);
        c->st.puts++;
        evict_but(c, e);
        return;
    }
    if (!(e = malloc(sizeof(*e) + len))) return;
    memset(e, 0, sizeof(*e));
    e->hash = h;
    e->v = *v;
    if (e->v.blob) e->v.blob->refs++;
    e->keylen = len;
    memcpy(e->key, key, len);
    if (too_big(c, e)) {
        cache_blob_unref(e->v.blob);
        free(e);
        return;
    }
    if (c->entries >= c->nbuckets) grow(c);
    e->chain = c->buckets[h & (c->nbuckets - 1)];
    c->buckets[h & (c->nbuckets - 1)] = e;
    lru_push(c, e);
    c->entries++;
    c->bytes += entry_cost(e);
    c->st.puts++;
    evict_but(c, e);
}

void cache_drop(struct cache *c, const void *key, size_t len) { remove_key(c, key, len, key_hash(key, len)); }

/* Puts rec in slot r; a record of another key that it overwrites leaves its seq in
 * r->lost (still_current). */
static void recent_stamp(struct recent *r, struct recent rec)
{
    rec.lost = r->lost;
    if (r->seq && r->hash != rec.hash && r->seq > rec.lost) rec.lost = r->seq;
    *r = rec;
}

/* Our own commit, known before its notification: results of statements sent
 * earlier that disagree with it must not be cached. */
void cache_note_write(struct cache *c, const void *key, size_t len, int64_t version, uint32_t xid)
{
    uint64_t h = key_hash(key, len);
    struct recent *r = &c->recent[h & (CACHE_RECENT_SLOTS - 1)];
    if (c->own_xids[(c->own_pos + OWN_XIDS - 1) % OWN_XIDS] != xid || !c->own_count) { /* one per transaction */
        c->own_xids[c->own_pos] = xid;
        c->own_pos = (c->own_pos + 1) % OWN_XIDS;
        if (c->own_count < OWN_XIDS) c->own_count++;
    }
    if (r->seq && r->hash == h && (r->deleted || r->version > version)) return; /* a later change is known */
    recent_stamp(r, (struct recent){h, ++c->seq, version, xid, false, 0});
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

static bool parse_u63(const char **pp, const char *end, int64_t *out)
{
    const char *p = *pp;
    uint64_t v = 0;
    if (p == end || *p < '0' || *p > '9') return false;
    while (p < end && *p >= '0' && *p <= '9') {
        if (v > (uint64_t)INT64_MAX / 10) return false;
        v = v * 10 + (uint64_t)(*p++ - '0');
    }
    if (v > (uint64_t)INT64_MAX) return false;
    *out = (int64_t)v;
    *pp = p;
    return true;
}

/* One item "<hex>:<version>:<xid>" or "<hex>:d" in [p, end). */
static bool apply_item(struct cache *c, const char *p, const char *end, uint8_t *key)
{
    const char *colon = memchr(p, ':', (size_t)(end - p));
    size_t len;
    struct recent *r;
    struct entry **ep;
    int64_t version = 0, xid = 0;
    bool deleted;
    uint64_t h;

    if (!colon || (colon - p) % 2 != 0 || (size_t)(colon - p) / 2 > 4096) return false;
    len = (size_t)(colon - p) / 2;
    for (size_t i = 0; i < len; i++) {
        int hi = hexval(p[2 * i]), lo = hexval(p[2 * i + 1]);
        if (hi < 0 || lo < 0) return false;
        key[i] = (uint8_t)(hi << 4 | lo);
    }
    p = colon + 1;
    deleted = (end - p == 1 && *p == 'd');
    if (!deleted) {
        if (!parse_u63(&p, end, &version) || p == end || *p++ != ':' || !parse_u63(&p, end, &xid) ||
            p != end || xid > UINT32_MAX)
            return false;
    }
    h = key_hash(key, len);
    r = &c->recent[h & (CACHE_RECENT_SLOTS - 1)];
    recent_stamp(r, (struct recent){h, ++c->seq, version, (uint32_t)xid, deleted, 0});
    c->st.invalidations++;
    ep = find(c, key, len, h);
    if (*ep && !deleted && (*ep)->v.found && (*ep)->v.version > version && own_xid(c, (uint32_t)xid))
        return true; /* this instance's own earlier commit: the copy is its later one */
    if (*ep && (deleted || !(*ep)->v.found || (*ep)->v.version != version || (*ep)->v.xid != (uint32_t)xid))
        remove_at(c, ep);
    return true;
}

bool cache_invalidate(struct cache *c, const char *payload)
{
    uint8_t key[4096];
    const char *p = payload;

    if (strcmp(payload, "*") == 0) {
        flush_all(c);
        return true;
    }
    while (*p) {
        const char *end = strchr(p, ',');
        if (!end) end = p + strlen(p);
        if (!apply_item(c, p, end, key)) {
            flush_all(c);
            return false;
        }
        p = *end ? end + 1 : end;
    }
    return true;
}

void cache_get_stats(const struct cache *c, struct cache_stats *out)
{
    *out = c->st;
    out->entries = c->entries;
    out->bytes = c->bytes;
    out->max_bytes = c->max_bytes;
}
