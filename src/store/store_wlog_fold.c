/* store_wlog_fold.c — the fold of the write-behind log: every pending image written into
 * bitmapd.bitmaps and the log rows this holder knows deleted, in one statement
 * (docs/design.md, "Write-behind log"). */
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/log.h"
#include "store/pgbin.h"
#include "store/store_wlog_internal.h"

/* ---- fold ----------------------------------------------------------------------- */

/* Writes every pending image (an upsert that never goes back in version) and deletes
 * the log rows this holder knows, in one transaction. A key whose row the holder knows
 * to be absent ($9 = 1: its first image was written after a probe found no row, and no
 * fold has written it since) is inserted plainly: the speculative insertion of ON
 * CONFLICT probes the index once more and writes one more WAL record per row, and
 * most keys of a fold of new keys are such keys. Should one exist after all (a fold
 * whose answer was lost had written it), the unique violation fails the fold, and the
 * next one upserts every key (fold_done). bitmapd.folding (for this transaction only)
 * tells the change trigger that the versions written were announced by the appends
 * already: the fold sends no notification of its own. */
static const char SQL_FOLD[] =
    "WITH f AS MATERIALIZED (SELECT set_config('bitmapd.folding', 'on', true) AS flag),"
    " v AS (SELECT * FROM unnest($1::bytea[], $2::int8[], $3::bytea[], $4::int8[], $5::int8[], $6::int8[],"
    "                            $8::int8[], $9::int4[])"
    "                     AS t(key, ver, bits, card, crc, nbytes, exp, fresh)"
    "        WHERE (SELECT flag FROM f) = 'on'),"
    " ins AS (INSERT INTO bitmapd.bitmaps (key, version, bits, cardinality, checksum, nbytes, expire_ms)"
    "         SELECT key, ver, bits, card, crc, nbytes, exp FROM v WHERE fresh = 1 ORDER BY key"
    "         RETURNING 1),"
    " up AS (INSERT INTO bitmapd.bitmaps AS b (key, version, bits, cardinality, checksum, nbytes, expire_ms)"
    "        SELECT key, ver, bits, card, crc, nbytes, exp FROM v WHERE fresh = 0 ORDER BY key"
    "        ON CONFLICT (key) DO UPDATE"
    "              SET version = excluded.version, bits = excluded.bits, cardinality = excluded.cardinality,"
    "                  checksum = excluded.checksum, nbytes = excluded.nbytes, updated_at = now(),"
    "                  expire_ms = excluded.expire_ms"
    "            WHERE b.version < excluded.version AND octet_length(b.bits) > 0"
    "        RETURNING 1),"
    " gone AS (DELETE FROM bitmapd.wlog WHERE seq = ANY($7::int8[]) RETURNING 1)"
    " SELECT txid_current() % 4294967296, (SELECT count(*) FROM up) + (SELECT count(*) FROM ins),"
    "        (SELECT count(*) FROM gone)";

static void fold_done(const struct db_result *r, void *arg)
{
    struct wlog *wl = arg;
    wl->fold_job = NULL;
    if (r->status == DB_OK && PQntuples(r->res) == 1) {
        uint32_t xid = (uint32_t)db_value_int8(r->res, 0, 0);
        for (size_t i = 0; i < wl->nfold; i++) {
            struct pend *p = wl->fold[i].p;
            if (!p || p->v.version != wl->fold[i].version) continue; /* written again meanwhile */
            struct cache_val v = p->v;
            v.xid = xid;
            /* the same version, now written by the fold's transaction: the append's
             * entry would read as a contradiction of it */
            cache_drop(wl->cache, p->key, p->keylen);
            cache_note_write(wl->cache, p->key, p->keylen, v.version, xid);
            cache_put(wl->cache, p->key, p->keylen, &v, wl->fold_mark);
            wl_unlink_pend(wl, p);
        }
        /* the deleted rows leave the list; rows committed meanwhile stay */
        size_t k = 0;
        for (size_t i = 0; i < wl->nseqs; i++) {
            bool gone = false;
            for (size_t j = 0; j < wl->nfold_seqs && !gone; j++) gone = wl->seqs[i] == wl->fold_seqs[j];
            if (!gone) wl->seqs[k++] = wl->seqs[i];
        }
        wl->nseqs = k;
        wl->stats.folds++;
        wl->stats.fold_keys += wl->nfold;
        wl->fold_failures = 0;
        for (struct barrier *b = wl->barriers; b; b = b->next)
            if (b->target <= wl->fold_covers) b->ok = true;
    } else {
        log_warn("msg=\"write-behind fold failed; retrying\" reason=\"%s\"", r->message ? r->message : "?");
        wl->fold_failures++;
        if (r->sqlstate && strncmp(r->sqlstate, "BMW", 3) == 0 && wl->state >= WL_HOLDING) {
            log_warn("msg=\"write-behind log: the lease was lost\"");
            wl->state = WL_OFF;
            wl_drop_all(wl);
        }
    }
    /* The keys still pending (written again meanwhile, or the fold failed) may have a
     * row now: written by this fold, or by a failed one whose answer was lost; a fold
     * that failed on a row it did not expect upserts them the next time. */
    for (size_t i = 0; i < wl->nfold; i++)
        if (wl->fold[i].p) {
            wl->fold[i].p->fold_pos = 0;
            wl->fold[i].p->row_absent = false;
        }
    free(wl->fold);
    free(wl->fold_seqs);
    wl->fold = NULL;
    wl->fold_seqs = NULL;
    wl->nfold = wl->nfold_seqs = 0;
    /* the next fold: at once when letting go or half full, else a fold_ms later (big
     * folds cost the database far less per row than many small ones) */
    if (wl->state >= WL_HOLDING && (wl->n || wl->nseqs))
        wl_arm(wl, r->status != DB_OK ? 200
                : wl->state == WL_YIELDING || wl->n >= (size_t)wl->cfg->wlog_max_keys / 2 ? 0
                                                                                        : wl->cfg->wlog_fold_ms);
    if (!wl->n && !wl->nseqs) wl_yield_step(wl); /* letting go: lets go unless an append is in flight */
    event_active(wl->barrier_ev, 0, 0);
    store_wlog_resume(wl->st);
}

void wl_fold_start(struct wlog *wl)
{
    struct pgarr keys, vers, bits, cards, crcs, lens, exps, seqs, fresh;
    size_t n = wl->n, j = 0;
    bool any_null_len = false, any_null_exp = false;

    if (wl->fold_job || wl->state < WL_HOLDING || (!wl->n && !wl->nseqs)) return;
    event_del(wl->timer);
    if (!(wl->fold = calloc(n ? n : 1, sizeof(*wl->fold))) ||
        !(wl->fold_seqs = malloc((wl->nseqs ? wl->nseqs : 1) * sizeof(*wl->fold_seqs)))) {
        free(wl->fold);
        wl->fold = NULL;
        wl_arm(wl, 200);
        return;
    }
    for (size_t i = 0; i < wl->cap; i++)
        for (struct pend *p = wl->tab[i]; p; p = p->next) {
            any_null_len |= p->v.nbytes < 0;
            any_null_exp |= p->v.expire_ms <= 0;
        }
    pa_begin(&keys, OID_BYTEA, n, false);
    pa_begin(&vers, OID_INT8, n, false);
    pa_begin(&bits, OID_BYTEA, n, false);
    pa_begin(&cards, OID_INT8, n, false);
    pa_begin(&crcs, OID_INT8, n, false);
    pa_begin(&lens, OID_INT8, n, any_null_len);
    pa_begin(&exps, OID_INT8, n, any_null_exp);
    pa_begin(&seqs, OID_INT8, wl->nseqs, false);
    pa_begin(&fresh, OID_INT4, n, false);
    for (size_t i = 0; i < wl->cap; i++)
        for (struct pend *p = wl->tab[i]; p; p = p->next) {
            wl->fold[j] = (struct folded){p, p->v.version};
            p->fold_pos = ++j;
            pa_elem(&keys, p->key, p->keylen);
            pa_int8(&vers, p->v.version);
            pa_elem(&bits, p->v.blob ? p->v.blob->data : (const uint8_t *)"", p->v.blob ? p->v.blob->len : 0);
            pa_int8(&cards, p->v.cardinality);
            pa_int8(&crcs, (int64_t)p->v.checksum);
            pa_int8_or_null(&lens, p->v.nbytes);
            pa_int8_or_null(&exps, p->v.expire_ms > 0 ? p->v.expire_ms : -1);
            pa_int4(&fresh, p->row_absent);
        }
    for (size_t i = 0; i < wl->nseqs; i++) {
        pa_int8(&seqs, wl->seqs[i]);
        wl->fold_seqs[i] = wl->seqs[i];
    }
    wl->nfold = n;
    wl->nfold_seqs = wl->nseqs;
    /* the appends that had all finished when it was built */
    wl->fold_covers = wl->next_serial;
    for (size_t i = 0; i < wl->ninflight; i++)
        if (wl->inflight[i] - 1 < wl->fold_covers) wl->fold_covers = wl->inflight[i] - 1;
    wl->fold_mark = cache_mark(wl->cache);
    if (!(keys.oom || vers.oom || bits.oom || cards.oom || crcs.oom || lens.oom || exps.oom || seqs.oom ||
          fresh.oom)) {
        struct db_param p[9] = {pa_param(&keys), pa_param(&vers), pa_param(&bits),
                                pa_param(&cards), pa_param(&crcs), pa_param(&lens),
                                pa_param(&seqs), pa_param(&exps), pa_param(&fresh)};
        wl->fold_job = db_query(wl->db, SQL_FOLD, 9, p, fold_done, wl);
    }
    free(keys.buf);
    free(vers.buf);
    free(bits.buf);
    free(cards.buf);
    free(crcs.buf);
    free(lens.buf);
    free(exps.buf);
    free(seqs.buf);
    free(fresh.buf);
    if (!wl->fold_job) {
        for (size_t i = 0; i < wl->nfold; i++) wl->fold[i].p->fold_pos = 0;
        free(wl->fold);
        free(wl->fold_seqs);
        wl->fold = NULL;
        wl->fold_seqs = NULL;
        wl->nfold = wl->nfold_seqs = 0;
        wl_arm(wl, 200);
    }
}
