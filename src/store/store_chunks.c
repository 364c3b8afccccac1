/* store_chunks.c — the store's side of chunked rows (store_chunks.h). */
#include "store/store_chunks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/codec.h"
#include "core/log.h"
#include "store/pgbin.h"

/* Keys whose head row this instance last saw chunked (by 64-bit hash), in open
 * addressing (0 = empty, 1 = removed). Bounded: when full it starts again empty, and a
 * write that then meets a chunked head aborts (SQL_CAS_ROWS) and teaches it again. */
#define CHUNKY_SLOTS 65536u
#define CHUNKY_MAX (CHUNKY_SLOTS / 2)
#define DIRS_MAX 4096 /* keys whose chunk directory is kept */

struct store_chunks {
    struct chunk_dirs *dirs; /* chunks of the big keys last loaded or written */
    uint64_t *chunky;
    size_t nchunky;          /* slots in use (removed ones included) */
};

struct store_chunks *store_chunks_new(void)
{
    struct store_chunks *sc = calloc(1, sizeof(*sc));
    if (!sc || !(sc->dirs = chunk_dirs_new(DIRS_MAX)) || !(sc->chunky = calloc(CHUNKY_SLOTS, sizeof(*sc->chunky)))) {
        store_chunks_free(sc);
        return NULL;
    }
    return sc;
}

void store_chunks_free(struct store_chunks *sc)
{
    if (!sc) return;
    chunk_dirs_free(sc->dirs);
    free(sc->chunky);
    free(sc);
}

void cas_chunks_free(struct cas_chunks *ch)
{
    chunks_cut_free(&ch->cut);
    free(ch->rows);
    ch->rows = NULL;
    free(ch->flips);
    ch->flips = NULL;
    if (ch->fbm) roaring_bitmap_free(ch->fbm);
    ch->fbm = NULL;
}

/* ---- keys seen chunked ------------------------------------------------------------ */

static uint64_t chunky_hash(const uint8_t *key, size_t len)
{
    uint64_t h = bytes_hash(key, len);
    return h < 2 ? h + 2 : h; /* 0 and 1 mark empty and removed slots */
}

static uint64_t *chunky_slot(const struct store_chunks *sc, uint64_t h)
{
    size_t i = (size_t)(h & (CHUNKY_SLOTS - 1));
    for (;; i = (i + 1) & (CHUNKY_SLOTS - 1))
        if (sc->chunky[i] == h || sc->chunky[i] == 0) return &sc->chunky[i];
}

bool store_chunks_known(const struct store_chunks *sc, const uint8_t *key, size_t len)
{
    return *chunky_slot(sc, chunky_hash(key, len)) > 1;
}

void store_chunks_seen(struct store_chunks *sc, const uint8_t *key, size_t len, bool chunked)
{
    uint64_t h = chunky_hash(key, len), *slot = chunky_slot(sc, h);
    if (!chunked) {
        if (*slot == h) *slot = 1; /* removed: probes go on past it */
        return;
    }
    if (*slot == h) return;
    if (sc->nchunky >= CHUNKY_MAX) {
        memset(sc->chunky, 0, CHUNKY_SLOTS * sizeof(*sc->chunky));
        sc->nchunky = 0;
        slot = chunky_slot(sc, h);
    }
    *slot = h;
    sc->nchunky++;
}

/* ---- writes ------------------------------------------------------------------------ */

#define FLIPS_ROOM 1900 /* a head row's key and flips, bytes */
/* A value of more than 256 × flip_bytes may keep flips up to 1/256 of its length, at
 * most this many bytes (the head row then goes to TOAST, and a write costs its flips in
 * WAL: issue 13 wants at most 16 KB a single-bit write), while they are spread over at
 * least FLIPS_SPREAD chunks (else rewriting those few chunks costs less than flips
 * written out of line at every commit: a big dense key written at consecutive offsets). */
#define FLIPS_BIG_MAX 12288
#define FLIPS_SPREAD 32

/* How many of the chunks old (in lo order) hold a member of f, counting up to stop. */
static size_t chunks_touched(const roaring_bitmap_t *f, const struct chunk_part *old, size_t nold, size_t stop)
{
    const roaring_array_t *ra = &f->high_low_container;
    size_t n = 0, j = 0;
    for (int32_t i = 0; i < ra->size && n < stop && j < nold; i++) {
        uint32_t key = ra->keys[i];
        while (j < nold && old[j].hi <= key) j++;
        if (j < nold && old[j].lo <= key) {
            n++;
            j++; /* its other members count no more */
        }
    }
    return n;
}

/* The flips' bytes: their gaps encoding where it takes at most 3/4 of the others, else
 * codec_encode's. Scattered flips (a DAU key written all over: about one flip per
 * container) take about 10 bytes each in the portable serialization, a key and
 * cardinality, an offset and the value, and about 2 in gaps: the head holds four times
 * as many before the chunks must be rewritten. */
static bool encode_flips(roaring_bitmap_t *f, uint8_t **out, size_t *outlen)
{
    struct codec_gaps g;
    const roaring_array_t *ra = &f->high_low_container;
    /* a few members to a container: no run would shorten the portable bytes, whose
     * size is then known without run-optimizing them */
    bool sparse = roaring_bitmap_get_cardinality(f) < 8 * (uint64_t)ra->size;
    bool gaps = sparse && codec_gaps_plan(f, &g) && 4 * g.size <= 3 * roaring_bitmap_portable_size_in_bytes(f);
    size_t len = gaps ? g.size : codec_encode_prepare(f, NULL);
    uint8_t *buf = len ? malloc(len) : NULL;
    if (!buf || !(gaps ? codec_write_gaps(f, &g, buf) : codec_encode_into(f, NULL, buf, len))) {
        free(buf);
        return false;
    }
    *out = buf;
    *outlen = len;
    return true;
}

/* The write as flips alone: f (the value's difference from its chunk rows after this
 * write), when its encoding stays within flip_bytes, or within big_bytes while it
 * touches FLIPS_SPREAD chunks or more. 1: planned; 0: too many flips (the chunks are
 * written); -1: no memory. */
static int plan_flips(roaring_bitmap_t *f, const struct chunk_part *old, size_t nold, uint32_t xid,
                      size_t flip_bytes, size_t big_bytes, struct cas_chunks *ch)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    if (!roaring_bitmap_is_empty(f)) { /* else none: the chunks are the value again */
        if (!encode_flips(f, &buf, &len)) return -1;
        if (len > flip_bytes &&
            (len > big_bytes || chunks_touched(f, old, nold, FLIPS_SPREAD) < FLIPS_SPREAD)) {
            free(buf);
            return 0;
        }
    }
    if (!(ch->cut.parts = malloc((nold ? nold : 1) * sizeof(*ch->cut.parts)))) {
        free(buf);
        return -1;
    }
    memcpy(ch->cut.parts, old, nold * sizeof(*old));
    ch->cut.n = nold;
    ch->flips = buf;
    ch->flen = len;
    ch->flips_only = true;
    ch->chunked = true;
    ch->head_crc = chunks_head_crc(old, nold, buf, len);
    ch->dir_xid = (int64_t)xid;
    return 1;
}

/* What the value of w differs in from the chunk rows of the version it was computed
 * from: the old flips (ofbm, taken from the directory, else decoded from oflips), with
 * w's changes when it knows them; an empty bitmap for none. NULL when out of memory (or,
 * never, if this instance's own copy of the flips did not decode). A hot key's flips
 * were decoded at every write: a DAU key's 8 KB of them cost about as much as encoding
 * them again. */
static roaring_bitmap_t *value_flips(const struct store_write *w, const uint8_t *oflips, size_t oflen,
                                     roaring_bitmap_t *ofbm)
{
    roaring_bitmap_t *f = ofbm ? ofbm : oflen ? codec_decode(oflips, oflen, NULL, 0) : roaring_bitmap_create();
    if (f && w->changed) roaring_bitmap_xor_inplace(f, (const roaring_bitmap_t *)w->changed);
    return f;
}

bool store_chunks_plan(struct store_chunks *sc, const struct store_write *w, size_t max_bytes, size_t flip_bytes,
                       struct cas_chunks *ch)
{
    char why[128];
    const struct chunk_part *old = NULL;
    const uint8_t *oflips = NULL;
    size_t nold = 0, oflen = 0, i = 0, j = 0;
    uint32_t xid = 0, tlo = w->tlo, thi = w->thi;
    /* the head row stays under PostgreSQL's TOAST threshold (about 2,032 bytes with its
     * other columns) whatever its key's length */
    size_t room = w->keylen < FLIPS_ROOM ? FLIPS_ROOM - w->keylen : 0;

    if (flip_bytes > room) flip_bytes = room;
    /* A big sparse value written all over (a DAU key: 2 MB of arrays in 381 chunks)
     * spreads 1,536 bytes of flips (about 150 scattered members) over most of its chunks,
     * so nearly every chunk was rewritten every few commits: 82-100 us of PostgreSQL per
     * SETBIT at 50 clients. With 8 KB of flips the rewrites are five times rarer and a
     * commit writes the flips out of line (37-48 us), for a value whose chunks hold
     * 256 times that. */
    size_t big_bytes = flip_bytes && w->len / 256 > flip_bytes
                           ? (w->len / 256 < FLIPS_BIG_MAX ? w->len / 256 : FLIPS_BIG_MAX)
                           : flip_bytes;
    if (!w->absent) old = chunk_dirs_get(sc->dirs, w->key, w->keylen, w->version, &xid, &nold, &oflips, &oflen);
    if (old) {
        roaring_bitmap_t *f = value_flips(w, oflips, oflen, chunk_dirs_take_flips(sc->dirs, w->key, w->keylen, w->version));
        int r = !f ? -1 : w->changed && flip_bytes ? plan_flips(f, old, nold, xid, flip_bytes, big_bytes, ch) : 0;
        /* else the chunks differ from their rows where f has members: those are written */
        if (!r && !roaring_bitmap_is_empty(f)) {
            uint32_t flo = roaring_bitmap_minimum(f) >> 16, fhi = roaring_bitmap_maximum(f) >> 16;
            if (flo < tlo) tlo = flo;
            if (fhi > thi) thi = fhi;
        }
        if (r > 0 && ch->flen) {
            ch->fbm = f; /* for the directory, once committed */
            f = NULL;
        }
        if (f) roaring_bitmap_free(f);
        if (r) return r > 0;
    }
    roaring_bitmap_t *bm = w->bm ? w->bm : codec_decode(w->bits, w->len, why, sizeof(why));
    if (!bm) return false; /* the writer's own encoding: it validated it */
    bool ok = bm != w->bm   ? chunks_cut(bm, max_bytes, &ch->cut)
              : w->narrow ? chunks_cut_since(bm, max_bytes, old, nold, tlo, thi, &ch->cut)
                          : chunks_cut_optimized(bm, max_bytes, &ch->cut);
    if (bm != w->bm) roaring_bitmap_free(bm);
    if (!ok || !(ch->rows = malloc((ch->cut.n + 1) * sizeof(*ch->rows)))) return false;
    ch->chunked = true;
    ch->head_crc = chunks_head_crc(ch->cut.parts, ch->cut.n, NULL, 0);
    ch->dir_xid = old ? (int64_t)xid : -1;
    if (!old) {
        ch->whole = true;
        memcpy(ch->rows, ch->cut.parts, ch->cut.n * sizeof(*ch->rows));
        ch->nrows = ch->cut.n;
        return true;
    }
    struct chunk_part *rows = realloc(ch->rows, (ch->cut.n + nold + 1) * sizeof(*rows));
    if (!rows) return false;
    ch->rows = rows;
    const struct chunk_part *nw = ch->cut.parts;
    while (i < ch->cut.n || j < nold) {
        if (j == nold || (i < ch->cut.n && nw[i].lo < old[j].lo)) {
            rows[ch->nrows++] = nw[i++];
        } else if (i == ch->cut.n || old[j].lo < nw[i].lo) {
            rows[ch->nrows++] = (struct chunk_part){.lo = old[j].lo, .hi = old[j].hi}; /* bits NULL: delete */
            j++;
        } else {
            if (nw[i].hi != old[j].hi || nw[i].checksum != old[j].checksum || nw[i].hash != old[j].hash ||
                nw[i].cardinality != old[j].cardinality)
                rows[ch->nrows++] = nw[i];
            i++;
            j++;
        }
    }
    return true;
}

/* The directory of key at version (none when it cannot be kept), with its flips decoded
 * (*fbm, taken when kept) for the next write. */
static void dir_record(struct store_chunks *sc, const uint8_t *key, size_t len, int64_t version, uint32_t xid,
                       const struct chunk_part *parts, size_t n, const uint8_t *flips, size_t flen,
                       roaring_bitmap_t **fbm)
{
    if (!chunk_dirs_put(sc->dirs, key, len, version, xid, parts, n, flips, flen)) {
        chunk_dirs_drop(sc->dirs, key, len);
    } else if (*fbm) {
        chunk_dirs_keep_flips(sc->dirs, key, len, version, *fbm);
        *fbm = NULL;
    }
}

void store_chunks_committed(struct store_chunks *sc, const struct store_write *w, int64_t version, uint32_t xid,
                            struct cas_chunks *ch)
{
    store_chunks_seen(sc, w->key, w->keylen, ch->chunked);
    if (ch->chunked)
        dir_record(sc, w->key, w->keylen, version, xid, ch->cut.parts, ch->cut.n, ch->flips, ch->flen, &ch->fbm);
    else
        chunk_dirs_drop(sc->dirs, w->key, w->keylen);
}

void store_chunks_forget(struct store_chunks *sc, const uint8_t *key, size_t len)
{
    chunk_dirs_drop(sc->dirs, key, len);
}

/* ---- loads ------------------------------------------------------------------------- */

struct cache_blob *store_chunks_join(struct store_chunks *sc, const PGresult *res, int i, int bits_col,
                                     int meta_col, const uint8_t *key, size_t keylen, int64_t version,
                                     uint32_t xid, uint32_t head_crc, int64_t cardinality)
{
    size_t max = pgbin_array_len(res, i, bits_col), n = 0;
    if (max > CHUNK_KEYS) max = CHUNK_KEYS; /* a longer array is refused below */
    const uint8_t **bp = calloc(max + 1, sizeof(*bp)), **mp = calloc(4 * max + 1, sizeof(*mp));
    size_t *bl = calloc(max + 1, sizeof(*bl)), *ml = calloc(4 * max + 1, sizeof(*ml));
    struct chunk_part *parts = NULL;
    roaring_bitmap_t *bm = NULL, *fbm = NULL; /* fbm: the flips decoded, for the directory */
    struct cache_blob *blob = NULL;
    uint8_t *buf = NULL;
    size_t len;
    char why[200] = "out of memory";

    if (!bp || !mp || !bl || !ml) goto done;
    long nb = PQgetisnull(res, i, bits_col) ? 0
              : pgbin_array_elems((const uint8_t *)PQgetvalue(res, i, bits_col), (size_t)PQgetlength(res, i, bits_col),
                                  bp, bl, max);
    long nm = PQgetisnull(res, i, meta_col) ? 0
              : pgbin_array_elems((const uint8_t *)PQgetvalue(res, i, meta_col), (size_t)PQgetlength(res, i, meta_col),
                                  mp, ml, 4 * max);
    if (nb < 0 || nm != 4 * nb) {
        snprintf(why, sizeof(why), "its chunk rows came back malformed");
        goto done;
    }
    n = (size_t)nb;
    if (!(parts = calloc(n ? n : 1, sizeof(*parts)))) goto done;
    for (size_t j = 0; j < n; j++) {
        for (int f = 0; f < 4; f++)
            if (ml[4 * j + f] != 8) {
                snprintf(why, sizeof(why), "its chunk rows came back malformed");
                goto done;
            }
        parts[j] = (struct chunk_part){.lo = (uint32_t)pgbin_be64(mp[4 * j]), .hi = (uint32_t)pgbin_be64(mp[4 * j + 1]),
                                       .cardinality = pgbin_be64(mp[4 * j + 2]), .checksum = (uint32_t)pgbin_be64(mp[4 * j + 3]),
                                       .bits = bp[j], .len = bl[j]};
        parts[j].hash = chunk_hash(parts[j].bits, parts[j].len);
    }
    /* the head's flips (chunks.h): the members in which the value differs from its chunks */
    const uint8_t *flips = PQgetisnull(res, i, bits_col + 2) ? NULL : (const uint8_t *)PQgetvalue(res, i, bits_col + 2);
    size_t flen = flips ? (size_t)PQgetlength(res, i, bits_col + 2) : 0;
    if (chunks_head_crc(parts, n, flips, flen) != head_crc) {
        snprintf(why, sizeof(why), "its %zu chunk rows%s are not the ones its head row names (checksum)", n,
                 flips ? " and flips" : "");
        goto done;
    }
    if (!(bm = chunks_join(parts, n, why, sizeof(why)))) goto done;
    if (flips) {
        char fwhy[120];
        roaring_bitmap_t *f = codec_decode(flips, flen, fwhy, sizeof(fwhy));
        if (!f) {
            snprintf(why, sizeof(why), "its head row's flips are malformed: %s", fwhy);
            goto done;
        }
        roaring_bitmap_xor_inplace(bm, f);
        fbm = f;
    }
    if ((int64_t)roaring_bitmap_get_cardinality(bm) != cardinality) {
        snprintf(why, sizeof(why), "its chunks%s hold %llu members, its head row says %lld", flips ? " and flips" : "",
                 (unsigned long long)roaring_bitmap_get_cardinality(bm), (long long)cardinality);
        goto done;
    }
    if (!codec_encode(bm, &buf, &len)) goto done;
    if ((blob = cache_blob_new(buf, len)) != NULL) {
        blob->checked = true; /* codec_encode validated it */
        dir_record(sc, key, keylen, version, xid, parts, n, flips, flen, &fbm);
    }
done:
    if (!blob) {
        char quoted[4 * 2048 + 1];
        log_error("msg=\"chunked bitmap unreadable\" key=\"%s\" reason=\"%s\"",
                  log_quote(quoted, sizeof(quoted), (const char *)key, keylen), why);
    }
    if (bm) roaring_bitmap_free(bm);
    if (fbm) roaring_bitmap_free(fbm);
    free(buf);
    free(parts);
    free(bp);
    free(mp);
    free(bl);
    free(ml);
    return blob;
}
