/* chunks.c — cutting a big bitmap into chunk rows and joining them back (chunks.h). */
#include "store/chunks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/codec.h"

uint64_t chunk_hash(const uint8_t *bits, size_t len)
{
    const uint64_t m = 0x9E3779B97F4A7C15ULL;
    uint64_t h = 0x243F6A8885A308D3ULL ^ (len * m), w;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        memcpy(&w, bits + i, 8);
        h = (h ^ (w * m)) * 0xBF58476D1CE4E5B9ULL;
        h ^= h >> 29;
    }
    w = 0;
    memcpy(&w, bits + i, len - i);
    h = (h ^ (w * m)) * 0x94D049BB133111EBULL;
    return h ^ (h >> 31);
}

uint32_t chunks_head_crc(const struct chunk_part *parts, size_t n, const uint8_t *flips, size_t flen)
{
    uint32_t crc = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t v[3] = {parts[i].lo, parts[i].hi, parts[i].checksum};
        uint8_t t[12];
        for (int j = 0; j < 3; j++)
            for (int b = 0; b < 4; b++) t[4 * j + b] = (uint8_t)(v[j] >> (8 * b));
        crc = codec_crc32c_extend(crc, t, sizeof(t));
    }
    return flen ? codec_crc32c_extend(crc, flips, flen) : crc;
}

/* Serialized payload bytes of container i of ra (portable format). */
static size_t payload_size(const roaring_array_t *ra, int32_t i, bool *run)
{
    const void *c = ra->containers[i];
    uint8_t type = ra->typecodes[i];
    if (type == SHARED_CONTAINER_TYPE_CODE) {
        type = ((const shared_container_t *)c)->typecode;
        c = ((const shared_container_t *)c)->container;
    }
    *run = type == RUN_CONTAINER_TYPE_CODE;
    if (type == BITSET_CONTAINER_TYPE_CODE) return 8192;
    if (type == ARRAY_CONTAINER_TYPE_CODE) return 2 * (size_t)((const array_container_t *)c)->cardinality;
    return 2 + 4 * (size_t)((const run_container_t *)c)->n_runs;
}

/* The portable serialization's header for n containers, with or without runs. */
static size_t header_size(size_t n, bool runs)
{
    if (!runs) return 8 + 8 * n;
    return 4 + (n + 7) / 8 + 4 * n + (n >= 4 ? 4 * n : 0);
}

struct cutter {
    const roaring_array_t *ra;
    size_t max_bytes;
    size_t *psum;   /* psum[i]: payload bytes of containers 0 .. i-1 */
    int32_t *rsum;  /* rsum[i]: run containers among 0 .. i-1 */
    struct chunk_part *parts;
    size_t n;
};

/* First container index in [a, b) whose key is >= key. */
static int32_t first_at_least(const roaring_array_t *ra, int32_t a, int32_t b, uint32_t key)
{
    while (a < b) {
        int32_t m = a + (b - a) / 2;
        if (ra->keys[m] < key) a = m + 1; else b = m;
    }
    return a;
}

/* Keys [lo, hi) holding containers [a, b): one chunk if it fits, else both halves. */
static void cut_range(struct cutter *ct, uint32_t lo, uint32_t hi, int32_t a, int32_t b)
{
    if (a >= b) return;
    size_t n = (size_t)(b - a);
    size_t size = header_size(n, ct->rsum[b] > ct->rsum[a]) + ct->psum[b] - ct->psum[a];
    if (size <= ct->max_bytes || n == 1 || hi - lo == 1) {
        ct->parts[ct->n++] = (struct chunk_part){.lo = lo, .hi = hi, .len = size,
                                                 .cardinality = a, .checksum = (uint32_t)b};
        return; /* cardinality and checksum hold a and b until the bytes are written */
    }
    uint32_t mid = lo + (hi - lo) / 2;
    int32_t m = first_at_least(ct->ra, a, b, mid);
    cut_range(ct, lo, mid, a, m);
    cut_range(ct, mid, hi, m, b);
}

/* Containers [a, b) of bm as a bitmap of their own, borrowed (never freed). */
static roaring_bitmap_t part_view(const roaring_bitmap_t *bm, int32_t a, int32_t b)
{
    const roaring_array_t *ra = &bm->high_low_container;
    roaring_bitmap_t view = *bm;
    view.high_low_container.size = b - a;
    view.high_low_container.allocation_size = b - a;
    view.high_low_container.containers = ra->containers + a;
    view.high_low_container.keys = ra->keys + a;
    view.high_low_container.typecodes = ra->typecodes + a;
    return view;
}

bool chunks_cut(roaring_bitmap_t *bm, size_t max_bytes, struct chunk_cut *out)
{
    roaring_bitmap_run_optimize(bm);
    return chunks_cut_optimized(bm, max_bytes, out);
}

bool chunks_cut_optimized(const roaring_bitmap_t *bm, size_t max_bytes, struct chunk_cut *out)
{
    return chunks_cut_since(bm, max_bytes, NULL, 0, 1, 0, out);
}

/* The part of old with exactly the range [lo, hi) and card members, or NULL (old in lo
 * order). */
static const struct chunk_part *same_part(const struct chunk_part *old, size_t nold, uint32_t lo, uint32_t hi,
                                          int64_t card)
{
    size_t a = 0, b = nold;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (old[m].lo < lo) a = m + 1; else b = m;
    }
    return a < nold && old[a].lo == lo && old[a].hi == hi && old[a].cardinality == card ? &old[a] : NULL;
}

enum chunk_enc { ENC_PORTABLE, ENC_DENSE, ENC_GAPS };

/* A cut writes gaps chunks only when the chunks it serializes hold at most this many
 * members in all. Planning, writing and checking gaps costs 6-12 ns a member (a chunk of
 * 6,500 members: 80 µs, against about 1 µs for raw bits), so a write that rewrites the
 * chunks of a big value all over — a scattered hot key of a million members folding
 * its flips, a first cut — keeps the cheap encodings, and no cut spends more than
 * about 2 ms on gaps. */
#define GAPS_MAX_MEMBERS 262144

/* bitmapd's rule for a whole value, per chunk: the smaller of the portable
 * serialization (plen bytes) and raw bits, portable on a tie. */
static size_t part_size(const roaring_bitmap_t *view, size_t plen, enum chunk_enc *enc)
{
    size_t dlen = codec_dense_size(view);
    *enc = dlen < plen ? ENC_DENSE : ENC_PORTABLE;
    return dlen < plen ? dlen : plen;
}

/* ... and gaps, when smaller still (the old size is best). Planned (a pass over the
 * members) only where they can win: at a density between 1/4 and 3/4 of the span a gap
 * costs at least the raw bits it replaces. */
static size_t part_size_gaps(const roaring_bitmap_t *view, size_t best, enum chunk_enc *enc, struct codec_gaps *g)
{
    uint64_t card = roaring_bitmap_get_cardinality(view);
    uint64_t span = card ? (uint64_t)roaring_bitmap_maximum(view) - roaring_bitmap_minimum(view) + 1 : 0;
    if (card && (4 * card < span || 4 * card > 3 * span) && codec_gaps_plan(view, g) && g->size < best) {
        *enc = ENC_GAPS;
        best = g->size;
    }
    return best;
}

bool chunks_cut_since(const roaring_bitmap_t *bm, size_t max_bytes, const struct chunk_part *old, size_t nold,
                      uint32_t tlo, uint32_t thi, struct chunk_cut *out)
{
    const roaring_array_t *ra = &bm->high_low_container;
    struct cutter ct = {.ra = ra, .max_bytes = max_bytes};
    size_t total = 0;
    uint64_t nser = 0; /* members of the chunks serialized */
    bool ok = false, *reused = NULL;
    enum chunk_enc *enc = NULL;
    struct codec_gaps *gaps = NULL;

    *out = (struct chunk_cut){0};
    int32_t nc = ra->size;
    ct.psum = malloc(((size_t)nc + 1) * sizeof(*ct.psum));
    ct.rsum = malloc(((size_t)nc + 1) * sizeof(*ct.rsum));
    ct.parts = malloc(((size_t)nc + 1) * sizeof(*ct.parts)); /* a chunk holds at least one container */
    if (!ct.psum || !ct.rsum || !ct.parts) goto done;
    ct.psum[0] = 0;
    ct.rsum[0] = 0;
    for (int32_t i = 0; i < nc; i++) {
        bool run;
        ct.psum[i + 1] = ct.psum[i] + payload_size(ra, i, &run);
        ct.rsum[i + 1] = ct.rsum[i] + run;
    }
    cut_range(&ct, 0, CHUNK_KEYS, 0, nc);
    if (!(reused = calloc(ct.n + 1, sizeof(*reused))) || !(enc = calloc(ct.n + 1, sizeof(*enc))) ||
        !(gaps = calloc(ct.n + 1, sizeof(*gaps))))
        goto done;
    for (size_t j = 0; j < ct.n; j++) {
        struct chunk_part *cp = &ct.parts[j];
        const struct chunk_part *was;
        roaring_bitmap_t view = part_view(bm, (int32_t)cp->cardinality, (int32_t)cp->checksum);
        /* untouched since old was cut: the same members, so the bytes old has (whatever
         * encoding they are in; never rewritten for their encoding alone) */
        if (tlo <= thi && (cp->hi <= tlo || cp->lo > thi) &&
            (was = same_part(old, nold, cp->lo, cp->hi, (int64_t)roaring_bitmap_get_cardinality(&view)))) {
            cp->len = was->len;
            reused[j] = true;
            cp->bits = NULL;
            cp->cardinality = was->cardinality;
            cp->checksum = was->checksum;
            cp->hash = was->hash;
            continue;
        }
        cp->len = part_size(&view, cp->len, &enc[j]);
        nser += roaring_bitmap_get_cardinality(&view);
    }
    for (size_t j = 0; j < ct.n; j++) {
        if (reused[j]) continue;
        struct chunk_part *cp = &ct.parts[j];
        if (nser <= GAPS_MAX_MEMBERS) {
            roaring_bitmap_t view = part_view(bm, (int32_t)cp->cardinality, (int32_t)cp->checksum);
            cp->len = part_size_gaps(&view, cp->len, &enc[j], &gaps[j]);
        }
        total += cp->len; /* only what is serialized needs room */
    }
    if (!(out->buf = malloc(total ? total : 1))) goto done;
    uint8_t *p = out->buf;
    for (size_t j = 0; j < ct.n; j++) {
        if (reused[j]) continue;
        struct chunk_part *cp = &ct.parts[j];
        roaring_bitmap_t view = part_view(bm, (int32_t)cp->cardinality, (int32_t)cp->checksum);
        if (enc[j] == ENC_DENSE   ? !codec_write_dense(&view, p, cp->len)
            : enc[j] == ENC_GAPS  ? !codec_write_gaps(&view, &gaps[j], p)
                                  : roaring_bitmap_portable_serialize(&view, (char *)p) != cp->len)
            goto done; /* our size arithmetic and the encoders disagree */
        cp->bits = p;
        cp->cardinality = (int64_t)roaring_bitmap_get_cardinality(&view);
        cp->checksum = codec_crc32c(p, cp->len);
        cp->hash = chunk_hash(p, cp->len);
        p += cp->len;
    }
    out->parts = ct.parts;
    out->n = ct.n;
    ct.parts = NULL;
    ok = true;
done:
    free(reused);
    free(enc);
    free(gaps);
    free(ct.psum);
    free(ct.rsum);
    free(ct.parts);
    if (!ok) {
        free(out->buf);
        *out = (struct chunk_cut){0};
    }
    return ok;
}

void chunks_cut_free(struct chunk_cut *c)
{
    free(c->parts);
    free(c->buf);
    *c = (struct chunk_cut){0};
}

roaring_bitmap_t *chunks_join(const struct chunk_part *parts, size_t n, char *err, size_t errlen)
{
    roaring_bitmap_t *all = roaring_bitmap_create();
    uint32_t prev_hi = 0;
    char why[160];

    if (!all) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        const struct chunk_part *cp = &parts[i];
        roaring_bitmap_t *bm = NULL;
        if (cp->lo >= cp->hi || cp->hi > CHUNK_KEYS || cp->lo < prev_hi) {
            snprintf(err, errlen, "chunk %u..%u overlaps or is out of order", cp->lo, cp->hi);
            goto fail;
        }
        prev_hi = cp->hi;
        if (cp->len > CODEC_MAX_BYTES || codec_crc32c(cp->bits, cp->len) != cp->checksum) {
            snprintf(err, errlen, "chunk %u..%u: checksum mismatch", cp->lo, cp->hi);
            goto fail;
        }
        if (!(bm = codec_decode(cp->bits, cp->len, why, sizeof(why)))) {
            snprintf(err, errlen, "chunk %u..%u: %s", cp->lo, cp->hi, why);
            goto fail;
        }
        uint64_t card = roaring_bitmap_get_cardinality(bm);
        if (card == 0 || (int64_t)card != cp->cardinality ||
            roaring_bitmap_minimum(bm) >> 16 < cp->lo || (uint64_t)(roaring_bitmap_maximum(bm) >> 16) >= cp->hi) {
            snprintf(err, errlen, "chunk %u..%u: its members (%llu) do not match its range and cardinality",
                     cp->lo, cp->hi, (unsigned long long)card);
            roaring_bitmap_free(bm);
            goto fail;
        }
        roaring_bitmap_or_inplace(all, bm);
        roaring_bitmap_free(bm);
    }
    return all;
fail:
    roaring_bitmap_free(all);
    return NULL;
}

/* ---- directories ---------------------------------------------------------------- */

#define DIR_BUCKETS 1024

struct chunk_dir {
    struct chunk_dir *next;
    int64_t version;
    uint32_t xid;
    size_t n;
    struct chunk_part *parts;
    uint8_t *flips; /* the head's flips (NULL: none) */
    size_t flen;
    roaring_bitmap_t *fbm; /* the same flips decoded, once known (NULL: not kept) */
    size_t keylen;
    uint8_t key[];
};

struct chunk_dirs {
    struct chunk_dir *bucket[DIR_BUCKETS];
    size_t count, max;
};

static size_t dir_hash(const uint8_t *key, size_t len) { return (size_t)(bytes_hash(key, len) % DIR_BUCKETS); }

struct chunk_dirs *chunk_dirs_new(size_t max)
{
    struct chunk_dirs *d = calloc(1, sizeof(*d));
    if (d) d->max = max;
    return d;
}

static void dir_free(struct chunk_dir *e)
{
    free(e->parts);
    free(e->flips);
    if (e->fbm) roaring_bitmap_free(e->fbm);
    free(e);
}

static void dirs_clear(struct chunk_dirs *d)
{
    for (size_t b = 0; b < DIR_BUCKETS; b++)
        while (d->bucket[b]) {
            struct chunk_dir *e = d->bucket[b];
            d->bucket[b] = e->next;
            dir_free(e);
        }
    d->count = 0;
}

void chunk_dirs_free(struct chunk_dirs *d)
{
    if (!d) return;
    dirs_clear(d);
    free(d);
}

static struct chunk_dir **dir_slot(struct chunk_dirs *d, const uint8_t *key, size_t len)
{
    struct chunk_dir **pp = &d->bucket[dir_hash(key, len)];
    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->keylen == len && memcmp((*pp)->key, key, len) == 0) break;
    return pp;
}

void chunk_dirs_drop(struct chunk_dirs *d, const uint8_t *key, size_t len)
{
    struct chunk_dir **pp = dir_slot(d, key, len), *e = *pp;
    if (!e) return;
    *pp = e->next;
    dir_free(e);
    d->count--;
}

bool chunk_dirs_put(struct chunk_dirs *d, const uint8_t *key, size_t len, int64_t version, uint32_t xid,
                    const struct chunk_part *parts, size_t n, const uint8_t *flips, size_t flen)
{
    chunk_dirs_drop(d, key, len);
    if (d->count >= d->max) dirs_clear(d);
    if (d->max == 0) return true;
    struct chunk_dir *e = calloc(1, sizeof(*e) + len);
    if (!e || !(e->parts = malloc((n ? n : 1) * sizeof(*parts))) || (flen && !(e->flips = malloc(flen)))) {
        if (e) free(e->parts);
        free(e);
        return false;
    }
    if (flen) memcpy(e->flips, flips, flen);
    e->flen = flen;
    e->version = version;
    e->xid = xid;
    e->n = n;
    for (size_t i = 0; i < n; i++) {
        e->parts[i] = parts[i];
        e->parts[i].bits = NULL; /* len stays: chunks_cut_since compares it */
    }
    e->keylen = len;
    memcpy(e->key, key, len);
    struct chunk_dir **head = &d->bucket[dir_hash(key, len)];
    e->next = *head;
    *head = e;
    d->count++;
    return true;
}

const struct chunk_part *chunk_dirs_get(const struct chunk_dirs *d, const uint8_t *key, size_t len,
                                        int64_t version, uint32_t *xid, size_t *n, const uint8_t **flips,
                                        size_t *flen)
{
    struct chunk_dir *e = *dir_slot((struct chunk_dirs *)d, key, len);
    if (!e || e->version != version) return NULL;
    *xid = e->xid;
    *n = e->n;
    *flips = e->flips;
    *flen = e->flen;
    return e->parts;
}

void chunk_dirs_keep_flips(struct chunk_dirs *d, const uint8_t *key, size_t len, int64_t version, roaring_bitmap_t *fbm)
{
    struct chunk_dir *e = *dir_slot(d, key, len);
    if (!e || e->version != version || !e->flen) {
        roaring_bitmap_free(fbm);
        return;
    }
    if (e->fbm) roaring_bitmap_free(e->fbm);
    e->fbm = fbm;
}

roaring_bitmap_t *chunk_dirs_take_flips(struct chunk_dirs *d, const uint8_t *key, size_t len, int64_t version)
{
    struct chunk_dir *e = *dir_slot(d, key, len);
    if (!e || e->version != version) return NULL;
    roaring_bitmap_t *f = e->fbm;
    e->fbm = NULL;
    return f;
}
