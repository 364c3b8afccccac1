/* store_buckets.c — keys of a family in bucket rows (bucket.h, migrations/0015).
 *
 * The public store_load, store_peek, store_peek_or_guess and store_cas are here. For
 * a family that bitmapd.bucket_state says is on, a member key (checkin:42) is read
 * from its bucket's row (checkin:~2), which is loaded, cached, checked and announced
 * like any row (the cache and the change notifications name the bucket), and handed
 * out as a row of its own: the member's version, bits, cardinality, length and
 * deadline from its directory entry. A write of members becomes one write of their
 * bucket: its latest row is loaded (from the cache when it holds it), each member's
 * version is checked against it (a group whose member moved is a conflict before any
 * statement), the members are put in, and the bucket is written at the version it
 * was loaded at. Groups that write one bucket commit together or not at all. Within
 * this instance the writes of one bucket take turns, so that they never conflict with
 * each other; another instance's write in between is a conflict, and the writer
 * loads and tries again as for any key. Keys of families that are off, and all other
 * keys, pass through untouched. While a family moves (bitmapd --buckets, migration
 * 0016), a member is read from its bucket and its own row together and written to
 * its new home, the old one left saying "no key" in the same commit
 * (members_from_rows, bwork_based; docs/design.md, "Moving keys between layouts"). */
#include <stdio.h>

#include "store/store_internal.h"

/* ---- where each family's keys are ------------------------------------------------ */

/* The states of migration 0015 and what an instance does in each (docs/design.md,
 * "Moving keys between layouts"): off, every key in its own row; on, members in
 * buckets; moving_in and moving_out (bitmapd --buckets), a member in either home,
 * read from both and written to the new one. */
enum { BSTATE_OFF, BSTATE_IN, BSTATE_ON, BSTATE_OUT };

static const char SQL_BUCKET_STATE[] =
    "SELECT family::int8, CASE state WHEN 'moving_in' THEN 1 WHEN 'on' THEN 2 WHEN 'moving_out' THEN 3 ELSE 0 END::int8,"
    "       gen::int8"
    "  FROM bitmapd.bucket_state";

/* One cell of a state read: text (PQexec) or binary (the pool). */
static int64_t cell(const PGresult *res, int i, int col)
{
    return PQfformat(res, col) ? db_value_int8(res, i, col) : strtoll(PQgetvalue(res, i, col), NULL, 10);
}

static const char *const state_names[] = {"off", "moving_in", "on", "moving_out"};

/* Takes a state read's rows. The database's guard (migration 0016) refuses a write of
 * a family's rows from a session whose bitmapd.bucket_epoch is not the sum of the
 * generations, so the epoch this instance acts on goes to each of its sessions (and
 * into application_name, where bitmapd --buckets waits for every instance to show it). */
static void take_state(struct store *st, const PGresult *res)
{
    uint8_t state[BUCKET_FAMILIES] = {0};
    int64_t epoch = 0;
    for (int i = 0; i < PQntuples(res); i++) {
        int64_t f = cell(res, i, 0), s = cell(res, i, 1);
        if (f > BUCKET_NONE && f < BUCKET_FAMILIES && s >= BSTATE_OFF && s <= BSTATE_OUT) state[f] = (uint8_t)s;
        epoch += cell(res, i, 2);
    }
    if (st->bucket_known && epoch < st->bucket_epoch) return; /* an older read answered late */
    bool changed = !st->bucket_known || epoch != st->bucket_epoch;
    for (int f = 1; f < BUCKET_FAMILIES; f++) {
        if (st->bucket_known && state[f] != st->bucket_state[f])
            log_info("msg=\"bucket state of a family changed\" family=%s from=%s to=%s epoch=%lld",
                     bucket_family_name(f), state_names[st->bucket_state[f]], state_names[state[f]],
                     (long long)epoch);
        st->bucket_state[f] = state[f];
    }
    st->bucket_any = false;
    for (int f = 1; f < BUCKET_FAMILIES; f++) st->bucket_any |= state[f] != BSTATE_OFF;
    st->bucket_epoch = epoch;
    st->bucket_known = true;
    if (changed) {
        char sql[200];
        snprintf(sql, sizeof(sql),
                 "SELECT set_config('bitmapd.bucket_epoch', '%lld', false),"
                 " set_config('application_name', 'bitmapd e=%lld', false)",
                 (long long)epoch, (long long)epoch);
        db_set_session(st->db, sql);
    }
}

/* A schema before migration 0015 has no families: all off. */
static bool no_state_table(const char *sqlstate) { return sqlstate && strcmp(sqlstate, "42P01") == 0; }

#define STATE_RETRY_MS 1000

static void retry_arm(struct store *st)
{
    struct timeval tv = {STATE_RETRY_MS / 1000, (STATE_RETRY_MS % 1000) * 1000};
    if (st->bucket_retry_ev && !event_pending(st->bucket_retry_ev, EV_TIMEOUT, NULL))
        event_add(st->bucket_retry_ev, &tv);
}

/* The state is read again every second (a notification of bitmapd --buckets makes it
 * sooner; there is no listener without a cache): until it is known, and then to
 * follow a move of keys, which waits for every instance to act on its new state. */
static void retry_cb(evutil_socket_t fd, short what, void *arg)
{
    struct store *st = arg;
    (void)fd;
    (void)what;
    if (!st->bucket_checks) store_buckets_reread(st);
    retry_arm(st);
}

bool store_buckets_setup(struct store *st)
{
    /* read before the first request is served: a member key must never be read from
     * (or written to) the wrong place. A database away now leaves the state unknown
     * until the listener's first connection reads it (store_buckets_reread). */
    const char *kw[] = {"dbname", "connect_timeout", "options", NULL},
               *val[] = {st->cfg->pg_dsn, "5", "-c statement_timeout=5000", NULL};
    PGconn *pg = PQconnectdbParams(kw, val, 1);
    if (PQstatus(pg) == CONNECTION_OK) {
        PGresult *r = PQexec(pg, SQL_BUCKET_STATE);
        if (PQresultStatus(r) == PGRES_TUPLES_OK)
            take_state(st, r);
        else if (no_state_table(PQresultErrorField(r, PG_DIAG_SQLSTATE)))
            st->bucket_known = true;
        else
            log_warn("msg=\"cannot read bitmapd.bucket_state yet\" error=\"%s\"", PQresultErrorMessage(r));
        PQclear(r);
    }
    PQfinish(pg);
    if (!(st->bucket_retry_ev = evtimer_new(db_event_base(st->db), retry_cb, st))) return false;
    retry_arm(st);
    return true;
}

struct state_read {
    struct sent_node sent; /* in st->bucket_checks while out */
    struct store *st;
};

static void state_read_done(const struct db_result *r, void *arg)
{
    struct state_read *sr = arg;
    if (r->status == DB_OK && r->res)
        take_state(sr->st, r->res);
    else if (r->status == DB_ERROR && no_state_table(r->sqlstate))
        sr->st->bucket_known = true;
    sent_unlink(&sr->sent);
    free(sr);
}

void store_buckets_reread(struct store *st)
{
    struct state_read *sr = malloc(sizeof(*sr));
    if (!sr) return;
    *sr = (struct state_read){.st = st};
    sent_link(&st->bucket_checks, &sr->sent);
    if (!db_query(st->db, SQL_BUCKET_STATE, 0, NULL, state_read_done, sr)) {
        sent_unlink(&sr->sent);
        free(sr);
    }
}

/* Where key lives: 0 in a row of its own; *ref filled and W_BUCKET when it is a member
 * of a family that is on, W_IN or W_OUT when its family is moving (in its bucket or in
 * its own row); -1 when it is a member of a family whose state is not known yet. */
enum { W_ROW, W_BUCKET, W_IN, W_OUT };

static int where(const struct store *st, const uint8_t *key, size_t len, struct bucket_ref *ref)
{
    if (st->bucket_known && !st->bucket_any) return W_ROW; /* every family off: nothing to look up */
    if (!bucket_of(key, len, ref)) return W_ROW;
    if (!st->bucket_known) return -1;
    switch (st->bucket_state[ref->family]) {
    case BSTATE_ON:
        return W_BUCKET;
    case BSTATE_IN:
        return W_IN;
    case BSTATE_OUT:
        return W_OUT;
    default:
        return W_ROW;
    }
}

#define STATE_UNKNOWN "bucket state not read yet (bitmapd.bucket_state): the database is away"

bool store_buckets_any(const struct store *st) { return !st->bucket_known || st->bucket_any; }

/* ---- a member as a row -------------------------------------------------------------- */

/* Whether bucket row b's bits are what its checksum column says (bucket.h: while they
 * are not, a slot without an intact entry may be one whose slot byte was damaged). */
static bool bucket_whole(const struct store_row *b)
{
    return b->checked || codec_crc32c(b->bits, b->len) == b->checksum;
}

/* Member slot of bucket row b (family f) as a row of its own. Bits borrow from b's. A
 * bucket that cannot be read, a member whose checksum fails, or a member missing from a
 * bucket whose checksum fails, is handed out as a row whose bits do not match its
 * checksum: the reader reports the key corrupt, and writes of it are refused, while
 * the intact members stay readable. False when the member's entry is a stub: it
 * spilled to a row of its own, which is the key's (out is then "no key"). With blob
 * (b's bits in the cache), an intact member's value is validated once per blob and
 * handed out checked, so that GETBIT reads one container of it in place instead of
 * decoding it whole on every read. */
static bool member_row(const struct store *st, const struct store_row *b, const struct bucket_ref *ref,
                       struct cache_blob *blob, struct store_row *out)
{
    struct bucket_dir d;
    *out = (struct store_row){.found = false, .nbytes = -1, .cached = b->cached, .guessed = b->guessed};
    if (!b->found) return true;
    bool parsed = b->len > 0 && bucket_parse(b->bits, b->len, &d, NULL, 0) && d.family == ref->family;
    int i = parsed ? bucket_find(&d, ref->slot) : -1;
    if (parsed && i < 0 && bucket_whole(b)) return true; /* not a member now */
    if (i >= 0 && d.e[i].stub && d.e[i].intact) return false;
    if (!parsed || i < 0 || d.e[i].stub) {
        out->found = true;
        out->version = b->version;
        out->bits = b->bits;
        out->len = b->len;
        out->checksum = ~codec_crc32c(b->bits, b->len);
        return true;
    }
    const struct bucket_entry *e = &d.e[i];
    out->found = true;
    out->version = e->version;
    out->cardinality = (int64_t)e->cardinality;
    out->nbytes = e->nbytes;
    out->expire_ms = e->expire_ms;
    out->bits = e->len ? e->val : st->empty_bits;
    out->len = e->len ? e->len : st->empty_len;
    uint32_t crc = e->len ? codec_crc32c(e->val, e->len) : st->empty_crc;
    out->checksum = e->intact ? crc : ~crc; /* written by whichever writer: checked only once validated */
    if (blob && e->intact && e->len) {
        uint16_t bit = (uint16_t)(1u << ref->slot);
        if (!(blob->members_ok & bit) && codec_validate(e->val, e->len, NULL, 0)) blob->members_ok |= bit;
        out->checked = (blob->members_ok & bit) != 0;
    }
    return true;
}

/* A key of a read or write, as the store finds it: its bucket (family NONE: a row of
 * its own only), where (W_*), and the index of its own row among the row keys: for a
 * member of a moving family always, for one of a family that is on once its entry
 * was found to be a stub (0: not among them; OWN_WANTED: to be added). */
struct mkey {
    struct bucket_ref r;
    int w;
    size_t own;
};

#define OWN_WANTED SIZE_MAX

/* Whether row r of a key's own row says nothing more than "no key": a member of a
 * family moving in leaves one (its value moved to the bucket), and its bucket entry
 * then wins. Any other own row is the key's value, in either direction of a move:
 * the writers of a moving family never leave a value in both homes. */
static bool own_row_empty(const struct store_row *r) { return !r->found || (r->cardinality == 0 && r->nbytes < 0); }

/* The row keys of keys: each member's bucket name (into rk[0..n)), the others as they
 * are; after them, the own rows of members of moving families. Returns how many row
 * keys (n .. 2n); -1 when a key's family state is unknown. */
static long row_keys(const struct store *st, const struct store_key *keys, size_t n, struct store_key *rk,
                     struct mkey *m)
{
    size_t nk = n;
    for (size_t i = 0; i < n; i++) {
        int w = where(st, keys[i].key, keys[i].len, &m[i].r);
        if (w < 0) return -1;
        m[i].w = w;
        m[i].own = 0;
        if (w == W_ROW) {
            m[i].r.family = BUCKET_NONE;
            rk[i] = keys[i];
            continue;
        }
        rk[i] = (struct store_key){(const uint8_t *)m[i].r.bkey, m[i].r.bkeylen};
        if (w == W_IN || w == W_OUT) {
            m[i].own = nk;
            rk[nk++] = keys[i];
        }
    }
    return (long)nk;
}

/* Rows of keys (out[0..n)) from rows of their row keys (rows), members' deadlines
 * applied. A member whose entry is a stub is its own row (a spill: the row holds the
 * key, or its absence says "no key"). A member of a moving family is its own row when
 * that holds a value, else its bucket entry, else its own row (empty or absent).
 * Returns how many members are stubs whose own rows are not among rows (m[i].own is
 * then OWN_WANTED): the caller reads those rows too. */
static size_t members_from_rows(struct store *st, struct mkey *m, size_t n, const struct store_row *rows,
                                struct cache_blob *const *blobs, struct store_row *out)
{
    size_t missing = 0;
    for (size_t i = 0; i < n; i++) {
        if (m[i].r.family == BUCKET_NONE) {
            out[i] = rows[i];
            continue;
        }
        bool spilled = !member_row(st, &rows[i], &m[i].r, blobs ? blobs[i] : NULL, &out[i]);
        if (m[i].own == 0 && spilled) {
            m[i].own = OWN_WANTED;
            missing++;
            continue;
        }
        if (m[i].own != 0) {
            const struct store_row *own = &rows[m[i].own];
            if (spilled || !own_row_empty(own) || !out[i].found) {
                out[i] = *own;
                continue; /* its deadline was applied by the load */
            }
        }
        store_expire_rows(st, &out[i], 1);
    }
    return missing;
}

static bool any_member(const struct store *st, const struct store_key *keys, size_t n)
{
    struct bucket_ref ref;
    for (size_t i = 0; i < n; i++)
        if (where(st, keys[i].key, keys[i].len, &ref) != W_ROW) return true;
    return false;
}

/* Whether a member of a moving family is among keys: those are not served from the
 * cache (their two homes are read together, by a load). */
static bool any_moving(const struct store *st, const struct store_key *keys, size_t n)
{
    struct bucket_ref ref;
    for (size_t i = 0; i < n; i++) {
        int w = where(st, keys[i].key, keys[i].len, &ref);
        if (w == W_IN || w == W_OUT) return true;
    }
    return false;
}

/* ---- reads -------------------------------------------------------------------------- */

struct bload {
    struct sent_node sent; /* in st->bucket_loads until answered, for store_free */
    struct store *st;
    size_t n, nk;
    unsigned flags;
    unsigned rounds;       /* loads made again for the own rows of spilled members */
    struct store_key *rk;  /* the row keys: n, and the own rows of moving and spilled members */
    char (*names)[BUCKET_KEY_MAX]; /* per key: a spilled member's name, for its own row */
    struct mkey *m;
    struct store_row *rows;
    store_load_cb cb;
    void *arg;
    struct db_job *handle;
    enum store_status status;
    const char *err;
};

static void bload_free(struct bload *bl)
{
    if (bl->sent.pprev) sent_unlink(&bl->sent);
    free(bl->rk);
    free(bl->names);
    free(bl->m);
    free(bl->rows);
    free(bl);
}

static void bload_deliver(const struct db_result *r, void *arg)
{
    struct bload *bl = arg;
    (void)r;
    bl->cb(bl->status, bl->err, bl->status == STORE_OK ? bl->rows : NULL, bl->arg);
}

/* The own rows of the members members_from_rows wants joined to the row keys. */
static bool want_own_rows(struct bload *bl)
{
    if (!bl->names && !(bl->names = calloc(bl->n, sizeof(*bl->names)))) return false;
    for (size_t i = 0; i < bl->n; i++) {
        if (bl->m[i].own != OWN_WANTED) continue;
        size_t len = bucket_member_key((const uint8_t *)bl->m[i].r.bkey, bl->m[i].r.bkeylen, bl->m[i].r.slot,
                                       bl->names[i], sizeof(bl->names[i]));
        bl->m[i].own = bl->nk;
        bl->rk[bl->nk++] = (struct store_key){(const uint8_t *)bl->names[i], len};
    }
    return true;
}

static void bload_done(enum store_status s, const char *err, const struct store_row *rows, void *arg)
{
    struct bload *bl = arg;
    bl->status = s;
    bl->err = err;
    /* a member found spilled: loaded again with its own row (the rows are valid only
     * during this callback). A stub stays while its family is on, so each round adds
     * rows; a family that moved meanwhile makes a write of it a conflict. */
    if (s == STORE_OK && members_from_rows(bl->st, bl->m, bl->n, rows, NULL, bl->rows) > 0) {
        if (bl->rounds++ < bl->n && want_own_rows(bl) &&
            rows_load(bl->st, bl->rk, bl->nk, bl->flags & ~STORE_GUESS_ABSENT, bload_done, bl))
            return;
        bl->status = STORE_ERROR;
        bl->err = "out of memory";
    }
    db_complete(bl->handle, DB_OK, NULL); /* the caller's callback, unless it went away */
    bload_free(bl);
}

/* A load that fails at once (on a later turn, as every answer). */
static void bload_fail_cb(const struct db_result *r, void *arg)
{
    (void)r;
    bload_done(STORE_UNAVAILABLE, STATE_UNKNOWN, NULL, arg);
}

struct db_job *store_load(struct store *st, const struct store_key *keys, size_t n, unsigned flags,
                          store_load_cb cb, void *arg)
{
    if (!any_member(st, keys, n)) return rows_load(st, keys, n, flags, cb, arg);
    struct bload *bl = calloc(1, sizeof(*bl));
    if (!bl) return NULL;
    *bl = (struct bload){.st = st, .n = n, .cb = cb, .arg = arg};
    bl->rk = calloc(2 * n, sizeof(*bl->rk));
    bl->m = calloc(n, sizeof(*bl->m));
    bl->rows = calloc(n, sizeof(*bl->rows));
    if (!bl->rk || !bl->m || !bl->rows || !(bl->handle = db_pending(st->db, bload_deliver, bl))) goto fail;
    sent_link(&st->bucket_loads, &bl->sent);
    struct db_job *handle = bl->handle;
    long nk = row_keys(st, keys, n, bl->rk, bl->m);
    if (nk < 0) {
        if (!db_defer(st->db, bload_fail_cb, bl)) goto fail;
        return handle;
    }
    /* a moving member's two homes from one snapshot, not one of them from the cache */
    if ((size_t)nk > n) flags = (flags | STORE_CONSISTENT) & ~STORE_GUESS_ABSENT;
    bl->nk = (size_t)nk;
    bl->flags = flags;
    if (!rows_load(st, bl->rk, (size_t)nk, flags, bload_done, bl)) goto fail;
    return handle;
fail:
    if (bl->handle) {
        db_cancel(bl->handle);
        db_complete(bl->handle, DB_OK, NULL);
    }
    bload_free(bl);
    return NULL;
}

#define PEEK_ON_STACK 16

static bool peek_members(struct store *st, const struct store_key *keys, size_t n, struct store_row *rows,
                         struct cache_blob **held, bool guess, size_t *nguess)
{
    if (!any_member(st, keys, n)) return rows_peek(st, keys, n, rows, held, guess, nguess);
    if (any_moving(st, keys, n)) return false;
    struct store_key rk_s[PEEK_ON_STACK], *rk = n <= PEEK_ON_STACK ? rk_s : malloc(n * sizeof(*rk));
    struct mkey m_s[PEEK_ON_STACK], *m = n <= PEEK_ON_STACK ? m_s : malloc(n * sizeof(*m));
    struct store_row r_s[PEEK_ON_STACK], *r = n <= PEEK_ON_STACK ? r_s : malloc(n * sizeof(*r));
    bool ok = rk && m && r && row_keys(st, keys, n, rk, m) == (long)n && rows_peek(st, rk, n, r, held, guess, nguess);
    if (ok && members_from_rows(st, m, n, r, held, rows) > 0) /* spilled members: their own rows, cached too */
        for (size_t i = 0; ok && i < n; i++) {
            struct cache_blob *h;
            size_t ng;
            if (m[i].own != OWN_WANTED) continue;
            if (!(ok = rows_peek(st, &keys[i], 1, &rows[i], &h, false, &ng))) {
                store_peek_release(held, n);
                break;
            }
            store_peek_release(&held[i], 1); /* the bucket's: the member borrows from its row now */
            held[i] = h;
        }
    if (rk != rk_s) free(rk);
    if (m != m_s) free(m);
    if (r != r_s) free(r);
    return ok;
}

bool store_peek(struct store *st, const struct store_key *keys, size_t n, struct store_row *rows,
                struct cache_blob **held)
{
    size_t nguess;
    return peek_members(st, keys, n, rows, held, false, &nguess);
}

bool store_peek_or_guess(struct store *st, const struct store_key *keys, size_t n, struct store_row *rows,
                         struct cache_blob **held, bool *guessed)
{
    size_t nguess;
    bool ok = peek_members(st, keys, n, rows, held, true, &nguess);
    metrics.write_guessed_absent += nguess;
    *guessed = nguess > 0;
    return ok;
}

/* ---- writes ------------------------------------------------------------------------- */

/* A store_cas call that writes members. It waits while a started call holds one of its
 * buckets; then it is started with the calls waiting behind it whose buckets are all
 * among its own (a batch: the writes of a hot bucket then leave together, as a train's
 * do for one key), which load the buckets, compose and send one write per bucket. */
struct bcas {
    struct bcas *next;     /* in st->bucket_calls, oldest first */
    struct bcas **pprev;   /* the link that points to it */
    struct store *st;
    bool started;          /* its buckets are its batch's until the batch finishes */
    bool solo;             /* never batched (after its batch failed as a whole) */
    bool plain;            /* writes a key's own row too */
    bool spill;            /* a bucket of it would pass chunk_bytes: its members' own rows are
                              loaded with it, so that the biggest can spill to them */
    uint16_t *stubs;       /* then per bucket: the slots that were stubs (their rows are not
                              loaded: a stub never spills again); NULL: none known */
    uint32_t slots;        /* the slots it writes, when it writes one bucket */
    size_t n;
    int32_t ngroups;
    struct store_write *w; /* copies; keys and bits in buf */
    uint8_t *buf;
    struct bucket_ref *refs; /* per write (family NONE: a row of its own) */
    int *wh;               /* per write: where (W_*) */
    int64_t epoch;         /* st->bucket_epoch when where() was asked */
    size_t nb;
    struct store_key *bkeys; /* distinct buckets */
    bool *conflict;        /* per group: the answer */
    store_cas_cb cb;
    void *arg;
    struct db_job *handle;
    enum store_status status;
    const char *err;
    char errbuf[256];
};

/* A batch of started calls, the first one's buckets loaded and written for all. */
struct bwork {
    struct sent_node sent; /* in st->bucket_works until finished, for store_free */
    struct store *st;
    struct bcas **calls;
    size_t ncalls;
    int32_t *goff;         /* per call: its first group in the statement */
    size_t n;              /* the writes of every call, in call order */
    int32_t ngroups;
    const struct store_write **w;
    const struct bucket_ref **refs;
    const int **wh;        /* per write: where (W_*) */
    struct store_key *lkeys; /* the rows loaded: the buckets, then own rows of moving members (or,
                                to spill, of every slot of every bucket that is not a stub) */
    size_t *own;           /* per write of a moving member: its own row among them */
    bool spill;            /* own rows of the slots loaded: sown[j * BUCKET_SLOTS + slot], 0 for a stub's */
    size_t *sown;
    char (*snames)[BUCKET_KEY_MAX];
    bool *stubw;           /* per write of a member: its entry is a stub (its own row is its home) */
    size_t nb;             /* the buckets: the first call's */
    const struct store_key *bkeys;
    size_t *wb;            /* per write of a member: its bucket */
    int32_t *grp;          /* per write: its group in the statement */
    int32_t *comp;         /* per group: the group it is sent in */
    bool *conflict;        /* per group: a conflict found before the statement */
    uint8_t **composed;    /* per bucket: the new value while the statement is built */
    char errbuf[256];
};

#define BATCH_MAX_WRITES 1000
#define BATCH_CALLS0 4 /* the room for calls a batch starts with (run_waiting grows it) */

static void bcas_free(struct bcas *bc)
{
    free(bc->w);
    free(bc->buf);
    free(bc->refs);
    free(bc->wh);
    free(bc->bkeys);
    free(bc->stubs);
    free(bc->conflict);
    free(bc);
}

static void bwork_free(struct bwork *wk)
{
    if (wk->sent.pprev) sent_unlink(&wk->sent);
    for (size_t j = 0; wk->composed && j < wk->nb; j++) free(wk->composed[j]);
    free(wk->composed);
    free(wk->calls);
    free(wk->goff);
    free(wk->w);
    free(wk->refs);
    free(wk->wh);
    free(wk->lkeys);
    free(wk->own);
    free(wk->sown);
    free(wk->snames);
    free(wk->stubw);
    free(wk->wb);
    free(wk->grp);
    free(wk->comp);
    free(wk->conflict);
    free(wk);
}

static bool same_key(const struct store_key *a, const struct store_key *b)
{
    return a->len == b->len && memcmp(a->key, b->key, a->len) == 0;
}

/* Whether c may share a batch with others: it writes members of one bucket and nothing
 * else, so that an error or a conflict of the batch is one it would meet alone. */
static bool batchable(const struct bcas *c) { return !c->solo && !c->plain && c->nb == 1; }

/* Where a write of a moving member finds the key now (the same rule as a read,
 * members_from_rows): its own row, its bucket entry, or nowhere. */
enum { BASE_NONE, BASE_OWN, BASE_SLOT };

static void bwork_start(struct bwork *wk);

/* run_waiting's view of one bucket during a pass: the call that holds it (started, or
 * waiting ahead of the calls after it), and the batch of this pass that may still take
 * the calls of it that come next. */
struct bhold {
    const struct store_key *key; /* NULL: a free place in the table */
    struct bwork *open;          /* a batch of this pass still taking calls, or NULL */
    size_t nw, cap;              /* its writes, and the room in its calls */
    uint32_t slots;              /* the slots its calls write */
};

static struct bhold *bhold_find(struct bhold *t, size_t mask, const struct store_key *k)
{
    size_t i = (size_t)bytes_hash(k->key, k->len) & mask;
    while (t[i].key && !same_key(t[i].key, k)) i = (i + 1) & mask;
    return &t[i];
}

/* Whether the open batch of h takes o (a batchable call of its bucket): none of o's
 * slots written by a call it took (each write is checked against the bucket as
 * loaded), within the size. */
static bool bhold_take(struct bhold *h, struct bcas *o)
{
    struct bwork *wk = h->open;
    if ((o->slots & h->slots) || h->nw + o->n > BATCH_MAX_WRITES) return false;
    if (wk->ncalls == h->cap) {
        size_t cap = h->cap * 2;
        struct bcas **calls = realloc(wk->calls, cap * sizeof(*calls));
        if (!calls) return false;
        wk->calls = calls;
        h->cap = cap;
    }
    wk->calls[wk->ncalls++] = o;
    o->started = true;
    h->nw += o->n;
    h->slots |= o->slots;
    return true;
}

/* Starts, oldest first, each waiting call that no started or older waiting call holds
 * back by a common bucket, with the waiting calls behind it that write its one bucket
 * and nothing else (a batch): up to the first waiting call of that bucket that cannot
 * come, so that none overtakes it. One pass over the list, the buckets in a hash table
 * (a pipelining client keeps up to MAX_STARTED calls waiting here); the batches start
 * after the pass, which a start that ends at once then cannot disturb. Run once a loop
 * turn at most (bucket_pass_soon), however many calls came or ended in it. */
static void run_waiting(struct store *st)
{
    size_t nkeys = 0, nwait = 0, cap = 64, ngo = 0;
    struct bwork **go = NULL;
    for (const struct bcas *bc = st->bucket_calls; bc; bc = bc->next) {
        nkeys += bc->nb;
        nwait += !bc->started;
    }
    if (nwait == 0) return;
    while (cap < 2 * nkeys) cap *= 2;
    if (cap > st->bucket_hold_cap) { /* the table only grows: no page faults pass after pass */
        free(st->bucket_hold);
        st->bucket_hold_cap = 0;
        if (!(st->bucket_hold = malloc(cap * sizeof(*st->bucket_hold)))) goto oom;
        st->bucket_hold_cap = cap;
    }
    struct bhold *t = st->bucket_hold;
    memset(t, 0, cap * sizeof(*t));
    if (!(go = calloc(nwait, sizeof(*go)))) goto oom;
    for (const struct bcas *bc = st->bucket_calls; bc; bc = bc->next)
        for (size_t j = 0; bc->started && j < bc->nb; j++) bhold_find(t, cap - 1, &bc->bkeys[j])->key = &bc->bkeys[j];
    for (struct bcas *bc = st->bucket_calls; bc; bc = bc->next) {
        if (bc->started) continue;
        if (batchable(bc)) {
            struct bhold *h = bhold_find(t, cap - 1, &bc->bkeys[0]);
            if (h->open && bhold_take(h, bc)) continue;
        }
        bool blocked = false;
        for (size_t j = 0; j < bc->nb && !blocked; j++) blocked = bhold_find(t, cap - 1, &bc->bkeys[j])->key != NULL;
        struct bwork *wk = NULL;
        if (!blocked) {
            if (!(wk = calloc(1, sizeof(*wk))) || !(wk->calls = calloc(BATCH_CALLS0, sizeof(*wk->calls)))) {
                free(wk);
                goto oom;
            }
            wk->st = st;
            wk->calls[wk->ncalls++] = bc;
            bc->started = true;
            sent_link(&st->bucket_works, &wk->sent);
            go[ngo++] = wk;
        }
        for (size_t j = 0; j < bc->nb; j++) { /* held from here on: by bc's batch, or behind bc */
            struct bhold *h = bhold_find(t, cap - 1, &bc->bkeys[j]);
            *h = (struct bhold){.key = &bc->bkeys[j]};
            if (wk && batchable(bc)) *h = (struct bhold){h->key, wk, bc->n, BATCH_CALLS0, bc->slots};
        }
    }
    goto start;
oom: /* what this pass made starts; the rest waits for the next pass */
    log_error("msg=\"out of memory: a write of bucket rows waits for the next one\"");
start:
    for (size_t k = 0; k < ngo; k++) bwork_start(go[k]);
    free(go);
}

static void bucket_pass_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    run_waiting(arg);
}

/* A call came or a batch ended: run_waiting at the end of this loop turn (libevent runs
 * a callback made active during a turn in that turn), once however often it is asked.
 * A call that arrives waits for that pass, and the calls of its bucket that arrive in
 * the same turn leave with it: a pipeline's writes of one bucket go together, and a
 * burst of calls costs one pass over the list, not one each. */
static void bucket_pass_soon(struct store *st)
{
    if (!st->bucket_pass_ev) st->bucket_pass_ev = evtimer_new(db_event_base(st->db), bucket_pass_cb, st);
    if (st->bucket_pass_ev)
        event_active(st->bucket_pass_ev, EV_TIMEOUT, 0);
    else
        run_waiting(st);
}

static void bcas_link(struct store *st, struct bcas *bc)
{
    if (!st->bucket_calls_end) st->bucket_calls_end = &st->bucket_calls;
    bc->next = NULL;
    bc->pprev = st->bucket_calls_end;
    *st->bucket_calls_end = bc;
    st->bucket_calls_end = &bc->next;
}

static void bcas_unlink(struct store *st, struct bcas *bc)
{
    *bc->pprev = bc->next;
    if (bc->next)
        bc->next->pprev = bc->pprev;
    else
        st->bucket_calls_end = bc->pprev;
}

static void bcas_deliver(const struct db_result *r, void *arg)
{
    struct bcas *bc = arg;
    (void)r;
    bc->cb(bc->status, bc->err, bc->status == STORE_OK ? bc->conflict : NULL, bc->arg);
}

/* Answers bc (its conflicts set), takes it out of the list and frees it. */
static void bcas_answer(struct bcas *bc, enum store_status s, const char *err)
{
    bcas_unlink(bc->st, bc);
    if (err && err != bc->errbuf) {
        snprintf(bc->errbuf, sizeof(bc->errbuf), "%s", err);
        err = bc->errbuf;
    }
    bc->status = s;
    bc->err = err;
    db_complete(bc->handle, DB_OK, NULL);
    bcas_free(bc);
}

/* Answers every call of wk, lets their buckets go and starts what waited for them. */
static void bwork_finish(struct bwork *wk, enum store_status s, const char *err)
{
    struct store *st = wk->st;
    for (size_t k = 0; k < wk->ncalls; k++) bcas_answer(wk->calls[k], s, err);
    bwork_free(wk);
    bucket_pass_soon(st);
}

static void bcas_fail_cb(const struct db_result *r, void *arg)
{
    struct bcas *bc = arg;
    struct store *st = bc->st;
    (void)r;
    bcas_answer(bc, STORE_UNAVAILABLE, STATE_UNKNOWN);
    bucket_pass_soon(st);
}

static void bwork_sent(enum store_status s, const char *err, const bool *conflict, void *arg)
{
    struct bwork *wk = arg;
    if (s == STORE_OK)
        for (size_t k = 0; k < wk->ncalls; k++) {
            struct bcas *bc = wk->calls[k];
            for (int32_t g = 0; g < bc->ngroups; g++) {
                int32_t at = wk->goff[k] + g;
                bc->conflict[g] = wk->conflict[at] || conflict[wk->comp[at]];
            }
        }
    if (s != STORE_OK && err) {
        snprintf(wk->errbuf, sizeof(wk->errbuf), "%s", err);
        err = wk->errbuf;
    }
    bwork_finish(wk, s, err);
}

static int32_t comp_find(int32_t *comp, int32_t g)
{
    while (comp[g] != g) g = comp[g] = comp[comp[g]];
    return g;
}

/* Whether member write w may go on the directory entry it was computed from. */
static bool member_current(const struct bucket_dir *d, bool found, const struct store_write *w, unsigned slot)
{
    int i = found ? bucket_find(d, slot) : -1;
    return w->absent ? i < 0 : i >= 0 && d->e[i].version == w->version;
}

/* The writes of every call of wk in one list, with their groups renumbered. */
static bool bwork_flatten(struct bwork *wk)
{
    size_t n = 0;
    int32_t ng = 0;
    for (size_t k = 0; k < wk->ncalls; k++) {
        n += wk->calls[k]->n;
        ng += wk->calls[k]->ngroups;
    }
    wk->n = n;
    wk->ngroups = ng;
    if (!(wk->goff = calloc(wk->ncalls, sizeof(*wk->goff))) || !(wk->w = calloc(n ? n : 1, sizeof(*wk->w))) ||
        !(wk->refs = calloc(n ? n : 1, sizeof(*wk->refs))) || !(wk->wb = calloc(n ? n : 1, sizeof(*wk->wb))) ||
        !(wk->wh = calloc(n ? n : 1, sizeof(*wk->wh))) || !(wk->stubw = calloc(n ? n : 1, sizeof(*wk->stubw))) ||
        !(wk->grp = calloc(n ? n : 1, sizeof(*wk->grp))) ||
        !(wk->comp = calloc(ng > 0 ? (size_t)ng : 1, sizeof(*wk->comp))) ||
        !(wk->conflict = calloc(ng > 0 ? (size_t)ng : 1, sizeof(*wk->conflict))) ||
        !(wk->composed = calloc(wk->nb ? wk->nb : 1, sizeof(*wk->composed))))
        return false;
    size_t i = 0;
    int32_t g0 = 0;
    for (size_t k = 0; k < wk->ncalls; k++) {
        struct bcas *bc = wk->calls[k];
        wk->goff[k] = g0;
        bool gone = db_cancelled(bc->handle); /* its caller went away: nothing of it is written */
        for (int32_t g = 0; g < bc->ngroups; g++) wk->conflict[g0 + g] = gone;
        for (size_t x = 0; x < bc->n; x++, i++) {
            wk->w[i] = &bc->w[x];
            wk->refs[i] = &bc->refs[x];
            wk->wh[i] = &bc->wh[x];
            wk->grp[i] = g0 + bc->w[x].group;
            if (bc->refs[x].family == BUCKET_NONE) continue;
            struct store_key bk = {(const uint8_t *)bc->refs[x].bkey, bc->refs[x].bkeylen};
            size_t j = 0;
            while (j < wk->nb && !same_key(&wk->bkeys[j], &bk)) j++;
            wk->wb[i] = j; /* always found: a batch's buckets are its first call's */
        }
        g0 += bc->ngroups;
    }
    return true;
}

/* Where moving member write i finds its key in the loaded rows (BASE_*), and at which
 * version; *stub when its entry is a stub (its own row is its home). */
static int moving_base(const struct bwork *wk, size_t i, const struct bucket_dir *d, bool bfound,
                       const struct store_row *rows, int64_t *ver, bool *stub)
{
    const struct store_row *own = &rows[wk->own[i]];
    int k = bfound ? bucket_find(d, wk->refs[i]->slot) : -1;
    *stub = k >= 0 && d->e[k].stub; /* spilled: its own row, whatever it holds */
    if (!*stub && k >= 0 && own_row_empty(own)) {
        *ver = d->e[k].version;
        return BASE_SLOT;
    }
    *ver = own->version;
    return own->found ? BASE_OWN : BASE_NONE;
}

/* The members of d whose deadline passed [expire] sweep_grace_ms ago become "no key"
 * at their versions (a version is never given twice): a bucket's expired members give
 * their bytes back whenever the bucket is written, as the sweep removes the rows of
 * expired keys. They read as absent from their deadline on either way. */
static void shed_expired(const struct store *st, struct bucket_dir *d)
{
    int64_t before = wall_ms() - st->cfg->expire_sweep_grace_ms;
    for (unsigned k = 0; k < d->n; k++) {
        const struct bucket_entry *e = &d->e[k];
        if (e->stub || !e->intact || e->expire_ms <= 0 || e->expire_ms > before) continue;
        const struct bucket_entry none = {.slot = e->slot, .version = e->version, .nbytes = -1};
        if (!bucket_put(d, &none)) continue; /* a valid entry in place of a valid one: never refused */
    }
}

/* Before the calls of wk go again to spill: the slots of their buckets that are stubs
 * (dirs as loaded), whose own rows the next load leaves out. */
static void remember_stubs(struct bwork *wk, const struct bucket_dir *dirs, const struct store_row *rows)
{
    for (size_t k = 0; k < wk->ncalls; k++) {
        struct bcas *bc = wk->calls[k];
        if (!bc->stubs && !(bc->stubs = calloc(bc->nb ? bc->nb : 1, sizeof(*bc->stubs)))) continue;
        for (size_t b = 0; b < bc->nb; b++) {
            size_t j = 0;
            while (j < wk->nb && !same_key(&wk->bkeys[j], &bc->bkeys[b])) j++;
            bc->stubs[b] = 0;
            for (unsigned e = 0; j < wk->nb && rows[j].found && e < dirs[j].n; e++)
                if (dirs[j].e[e].stub) bc->stubs[b] |= (uint16_t)(1u << dirs[j].e[e].slot);
        }
    }
}

/* To spill (wk->spill): the biggest member with a value of bucket j (d, as composed)
 * goes to its own row, in group grp with the bucket, and leaves a stub; its version
 * goes on from the higher of its entry's and its own row's. A write of that row
 * already among out (a member moving in leaves it "no key") becomes this one. False
 * when no member is left to spill. */
static bool spill_biggest(const struct bwork *wk, size_t j, struct bucket_dir *d, const struct store_row *rows,
                          int32_t grp, long *ownout, struct store_write *out, size_t *nout)
{
    int best = -1;
    for (unsigned k = 0; k < d->n; k++)
        if (!d->e[k].stub && d->e[k].intact && d->e[k].len > 0 && wk->sown[j * BUCKET_SLOTS + d->e[k].slot] &&
            (best < 0 || d->e[k].len > d->e[best].len))
            best = (int)k;
    if (best < 0) return false;
    const struct bucket_entry e = d->e[best];
    size_t oi = wk->sown[j * BUCKET_SLOTS + e.slot];
    const struct store_row *own = &rows[oi];
    int64_t ver = own->found && own->version + 1 > e.version ? own->version + 1 : e.version;
    long at = ownout[e.slot] >= 0 ? ownout[e.slot] : (long)(*nout)++;
    out[at] = (struct store_write){.key = wk->lkeys[oi].key, .keylen = wk->lkeys[oi].len,
                                   .version = own->found ? own->version : 0, .absent = !own->found,
                                   .bits = e.val, .len = e.len, .cardinality = e.cardinality,
                                   .checksum = codec_crc32c(e.val, e.len), .nbytes = e.nbytes,
                                   .expire_ms = e.expire_ms, .group = grp,
                                   .inc = own->found ? ver - own->version : ver, .bucket = true,
                                   .spill = (uint8_t)d->family};
    ownout[e.slot] = at;
    const struct bucket_entry stub = {.slot = e.slot, .stub = true, .version = ver, .nbytes = -1};
    return bucket_put(d, &stub);
}

/* The bases are loaded: check, compose, send. A member of a family that is on goes
 * into its bucket. One of a family moving in goes there too, and an own row that
 * still held its value is emptied in the same group (the bucket entry then wins: the
 * entry's version goes on from the row's). One of a family moving out goes to its own
 * row, and leaves its bucket in the same group when it was there. */
static void bwork_based(enum store_status s, const char *err, const struct store_row *rows, void *arg)
{
    struct bwork *wk = arg;
    struct store *st = wk->st;
    struct bucket_dir *dirs = NULL;
    struct store_write *out = NULL;
    int *base = NULL;
    int64_t *bver = NULL;
    size_t nout = 0;
    bool corrupt = false; /* a bucket that fails every writer of it */
    bool respill = false; /* a bucket would pass chunk_bytes: the calls go again, to spill */

    if (s != STORE_OK) {
        if (err) snprintf(wk->errbuf, sizeof(wk->errbuf), "%s", err);
        bwork_finish(wk, s, err ? wk->errbuf : NULL);
        return;
    }
    for (size_t k = 0; k < wk->ncalls; k++)
        if (wk->calls[k]->epoch != st->bucket_epoch) { /* a family moved on since where() said */
            for (k = 0; k < wk->ncalls; k++)
                for (int32_t g = 0; g < wk->calls[k]->ngroups; g++) wk->calls[k]->conflict[g] = true;
            bwork_finish(wk, STORE_OK, NULL);
            return;
        }
    if (!bwork_flatten(wk) || !(dirs = calloc(wk->nb, sizeof(*dirs))) ||
        !(out = calloc(2 * wk->n + wk->nb * (1 + BUCKET_SLOTS), sizeof(*out))) || !(base = calloc(wk->n ? wk->n : 1, sizeof(*base))) ||
        !(bver = calloc(wk->n ? wk->n : 1, sizeof(*bver))))
        goto oom;
    for (size_t j = 0; j < wk->nb; j++) {
        char why[128];
        bucket_init(&dirs[j], BUCKET_NONE);
        if (!rows[j].found) continue;
        size_t i0 = 0;
        while (wk->refs[i0]->family == BUCKET_NONE || wk->wb[i0] != j) i0++; /* a member of it */
        bool parsed = bucket_parse(rows[j].bits, rows[j].len, &dirs[j], why, sizeof(why));
        if (parsed && dirs[j].family != wk->refs[i0]->family) {
            snprintf(why, sizeof(why), "a bucket of another family");
            parsed = false;
        } else if (parsed && !bucket_whole(&rows[j])) {
            snprintf(why, sizeof(why), "checksum mismatch (nothing is written to it until it is repaired)");
            parsed = false;
        }
        if (!parsed) {
            snprintf(wk->errbuf, sizeof(wk->errbuf), "bucket row '%.*s' is corrupt: %s", (int)wk->bkeys[j].len,
                     (const char *)wk->bkeys[j].key, why);
            corrupt = true;
            goto fail;
        }
    }
    /* a group with a member that moved is a conflict now; groups that write one bucket
     * are sent as one */
    for (int32_t g = 0; g < wk->ngroups; g++) wk->comp[g] = g;
    for (size_t i = 0; i < wk->n; i++) {
        if (wk->refs[i]->family == BUCKET_NONE) continue;
        size_t j = wk->wb[i];
        if (*wk->wh[i] == W_BUCKET) {
            int k = rows[j].found ? bucket_find(&dirs[j], wk->refs[i]->slot) : -1;
            /* a stub's own row is written as it is, its version checked by the statement */
            if (!(wk->stubw[i] = k >= 0 && dirs[j].e[k].stub) &&
                !member_current(&dirs[j], rows[j].found, wk->w[i], wk->refs[i]->slot))
                wk->conflict[wk->grp[i]] = true;
            continue;
        }
        base[i] = moving_base(wk, i, &dirs[j], rows[j].found, rows, &bver[i], &wk->stubw[i]);
        bool current = wk->w[i]->absent ? base[i] == BASE_NONE : base[i] != BASE_NONE && bver[i] == wk->w[i]->version;
        if (!current) wk->conflict[wk->grp[i]] = true;
    }
    /* whether write i reads or writes its bucket */
#define IN_BUCKET(i) (!wk->stubw[i] && (*wk->wh[i] != W_OUT || base[i] == BASE_SLOT))
    for (size_t j = 0; j < wk->nb; j++) {
        int32_t first = -1;
        for (size_t i = 0; i < wk->n; i++) {
            int32_t g = wk->grp[i];
            if (wk->refs[i]->family == BUCKET_NONE || wk->wb[i] != j || wk->conflict[g] || !IN_BUCKET(i)) continue;
            if (first < 0)
                first = comp_find(wk->comp, g);
            else
                wk->comp[comp_find(wk->comp, g)] = first;
        }
    }
    for (int32_t g = 0; g < wk->ngroups; g++) wk->comp[g] = comp_find(wk->comp, g);
    /* the members into their buckets (or out of them), in the calls' order */
    for (size_t j = 0; j < wk->nb; j++) {
        bool wrote = false, checked = false;
        int32_t grp = -1;
        struct bucket_dir *d = &dirs[j];
        long ownout[BUCKET_SLOTS]; /* per slot: its own row's write among out, or -1 */
        for (unsigned k = 0; k < BUCKET_SLOTS; k++) ownout[k] = -1;
        for (size_t i = 0; i < wk->n; i++) {
            const struct store_write *w = wk->w[i];
            if (wk->refs[i]->family == BUCKET_NONE || wk->wb[i] != j || wk->conflict[wk->grp[i]]) continue;
            int wh = *wk->wh[i];
            int64_t inc = w->inc > 0 ? w->inc : 1;
            if (wk->stubw[i]) { /* spilled: to its own row, the bucket untouched (its stub stays
                                 * while the family is on). The row is marked as spilled, again
                                 * if a write during a move out (which leaves it unmarked: the
                                 * mover may have cleared the mark already) took it off. */
                struct store_write *o = &out[nout++];
                *o = *w;
                o->group = wk->comp[wk->grp[i]];
                o->bucket = true;
                o->spill = wh != W_OUT ? (uint8_t)wk->refs[i]->family : 0;
                continue;
            }
            if (wh == W_OUT) { /* to its own row: a write of its own, and out of the bucket */
                if (base[i] == BASE_SLOT && !w->bits) { /* a check of the entry: the bucket's version */
                    d->family = wk->refs[i]->family;
                    grp = wk->comp[wk->grp[i]];
                    checked = true;
                    continue;
                }
                struct store_write *o = &out[nout++];
                *o = *w;
                o->group = wk->comp[wk->grp[i]];
                o->bucket = true; /* never through the log while keys move */
                if (base[i] == BASE_SLOT) {
                    const struct store_row *own = &rows[wk->own[i]];
                    d->family = wk->refs[i]->family;
                    grp = wk->comp[wk->grp[i]];
                    checked = true;
                    /* the version goes on from the entry's (an insert is at its inc) */
                    o->absent = !own->found;
                    o->version = own->found ? own->version : 0;
                    o->inc = own->found ? (bver[i] + inc > own->version ? bver[i] + inc - own->version : 1)
                                        : bver[i] + inc;
                    (void)bucket_remove(d, wk->refs[i]->slot);
                    wrote = true;
                }
                continue;
            }
            d->family = wk->refs[i]->family;
            grp = wk->comp[wk->grp[i]];
            checked = true;
            if (!w->bits) continue;
            int k = bucket_find(d, wk->refs[i]->slot);
            int64_t from = k >= 0 ? d->e[k].version : 0;
            if (wh == W_IN && base[i] == BASE_OWN) {
                const struct store_row *own = &rows[wk->own[i]];
                from = own->version;
                if (!own_row_empty(own)) { /* its value leaves its own row, which says "no key" from now */
                    ownout[wk->refs[i]->slot] = (long)nout;
                    struct store_write *o = &out[nout++];
                    *o = (struct store_write){.key = w->key, .keylen = w->keylen, .version = own->version,
                                              .bits = st->empty_bits, .len = st->empty_len, .cardinality = 0,
                                              .checksum = st->empty_crc, .nbytes = -1, .group = grp, .inc = 1,
                                              .bucket = true};
                }
            }
            struct bucket_entry e = {.slot = wk->refs[i]->slot, .version = from + inc,
                                     .cardinality = w->cardinality, .nbytes = w->nbytes, .expire_ms = w->expire_ms,
                                     .val = w->cardinality ? w->bits : NULL, .len = w->cardinality ? w->len : 0};
            if (!bucket_put(d, &e)) {
                snprintf(wk->errbuf, sizeof(wk->errbuf), "key '%.*s': a value the bucket cannot hold",
                         (int)w->keylen, (const char *)w->key);
                goto fail;
            }
            wrote = true;
        }
        if (!checked) continue; /* every writer of it conflicted, or none reads it */
        struct store_write *o = &out[nout++];
        *o = (struct store_write){.key = wk->bkeys[j].key, .keylen = wk->bkeys[j].len, .version = rows[j].version,
                                  .absent = !rows[j].found, .group = grp, .inc = 1, .nbytes = -1, .bucket = true};
        if (!wrote) continue; /* version checks only: the bucket must not have moved */
        shed_expired(st, d);
        size_t size = bucket_size(d);
        if (size > (size_t)st->cfg->pg_chunk_bytes && !wk->spill) { /* again, with the own rows to spill to */
            remember_stubs(wk, dirs, rows);
            respill = true;
            goto fail;
        }
        while (size > (size_t)st->cfg->pg_chunk_bytes) {
            if (!spill_biggest(wk, j, d, rows, grp, ownout, out, &nout)) break;
            size = bucket_size(d);
        }
        if (size > (size_t)st->cfg->pg_chunk_bytes) {
            snprintf(wk->errbuf, sizeof(wk->errbuf),
                     "bucket row '%.*s' would grow to %zu bytes, over [postgres] chunk_bytes, with every member "
                     "that has a value in a row of its own",
                     (int)wk->bkeys[j].len, (const char *)wk->bkeys[j].key, size);
            goto fail;
        }
        if (!(wk->composed[j] = malloc(size)) || bucket_write(d, wk->composed[j], size) != size) goto oom;
        uint64_t existing, deadlines;
        bucket_counts(d, &existing, &deadlines);
        o->bits = wk->composed[j];
        o->len = size;
        o->cardinality = existing;
        o->nbytes = (int64_t)deadlines;
        o->checksum = codec_crc32c(wk->composed[j], size);
    }
#undef IN_BUCKET
    for (size_t i = 0; i < wk->n; i++)
        if (wk->refs[i]->family == BUCKET_NONE && !wk->conflict[wk->grp[i]]) {
            out[nout] = *wk->w[i];
            out[nout++].group = wk->comp[wk->grp[i]];
        }
    free(dirs);
    free(base);
    free(bver);
    dirs = NULL;
    base = NULL;
    bver = NULL;
    if (nout == 0) { /* every group conflicted */
        free(out);
        bwork_sent(STORE_OK, NULL, wk->conflict, wk); /* conflict[comp[g]] adds nothing */
        return;
    }
    /* rows_cas copies what it keeps; the bases' bits (rows) are not used after this */
    bool sent = rows_cas(st, out, nout, wk->ngroups, bwork_sent, wk) != NULL;
    free(out);
    if (!sent) {
        snprintf(wk->errbuf, sizeof(wk->errbuf), "out of memory");
        bwork_finish(wk, STORE_ERROR, wk->errbuf);
    }
    return;
oom:
    snprintf(wk->errbuf, sizeof(wk->errbuf), "out of memory");
fail:
    free(dirs);
    free(out);
    free(base);
    free(bver);
    if (respill || (wk->ncalls > 1 && !corrupt)) { /* one call's write may be the cause: each goes again alone */
        for (size_t k = 0; k < wk->ncalls; k++) {
            wk->calls[k]->started = false;
            wk->calls[k]->solo |= !respill;
            wk->calls[k]->spill |= respill;
        }
        bwork_free(wk);
        bucket_pass_soon(st);
        return;
    }
    bwork_finish(wk, STORE_ERROR, wk->errbuf);
}

static void bwork_oom_cb(const struct db_result *r, void *arg)
{
    struct bwork *wk = arg;
    (void)r;
    snprintf(wk->errbuf, sizeof(wk->errbuf), "out of memory");
    bwork_finish(wk, STORE_ERROR, wk->errbuf);
}

/* Loads the batch's buckets, and the own rows of the members of moving families it
 * writes; to spill, the own rows of every slot of its buckets. Never answers from
 * inside (this runs within store_cas): a failure is answered on a later turn. */
static void bwork_start(struct bwork *wk)
{
    size_t n = 0, nk;
    wk->nb = wk->calls[0]->nb;
    wk->bkeys = wk->calls[0]->bkeys;
    for (size_t k = 0; k < wk->ncalls; k++) {
        n += wk->calls[k]->n;
        wk->spill |= wk->calls[k]->spill;
    }
    size_t ns = wk->spill ? wk->nb * BUCKET_SLOTS : 0;
    wk->lkeys = calloc(wk->nb + n + ns, sizeof(*wk->lkeys));
    wk->own = calloc(n ? n : 1, sizeof(*wk->own));
    if (!wk->lkeys || !wk->own) goto oom;
    memcpy(wk->lkeys, wk->bkeys, wk->nb * sizeof(*wk->lkeys));
    nk = wk->nb;
    if (wk->spill) { /* sown 0: not loaded (a stub already) */
        const uint16_t *stubs = wk->calls[0]->stubs; /* the first call's buckets are the batch's */
        if (!(wk->sown = calloc(ns, sizeof(*wk->sown))) || !(wk->snames = calloc(ns, sizeof(*wk->snames)))) goto oom;
        for (size_t j = 0; j < wk->nb; j++)
            for (unsigned slot = 0; slot < BUCKET_SLOTS; slot++) {
                size_t at = j * BUCKET_SLOTS + slot;
                if (stubs && (stubs[j] >> slot & 1)) continue;
                size_t len = bucket_member_key(wk->bkeys[j].key, wk->bkeys[j].len, slot, wk->snames[at],
                                               sizeof(wk->snames[at]));
                wk->sown[at] = nk;
                wk->lkeys[nk++] = (struct store_key){(const uint8_t *)wk->snames[at], len};
            }
    }
    for (size_t k = 0, i = 0; k < wk->ncalls; k++)
        for (size_t x = 0; x < wk->calls[k]->n; x++, i++) {
            const struct bcas *bc = wk->calls[k];
            if (bc->refs[x].family == BUCKET_NONE || (bc->wh[x] != W_IN && bc->wh[x] != W_OUT)) continue;
            if (wk->spill) { /* among the slots' own rows already, unless a stub's */
                size_t j = 0;
                struct store_key bk = {(const uint8_t *)bc->refs[x].bkey, bc->refs[x].bkeylen};
                while (!same_key(&wk->bkeys[j], &bk)) j++;
                if ((wk->own[i] = wk->sown[j * BUCKET_SLOTS + bc->refs[x].slot]) != 0) continue;
            }
            wk->own[i] = nk;
            wk->lkeys[nk++] = (struct store_key){bc->w[x].key, bc->w[x].keylen};
        }
    if (rows_load(wk->st, wk->lkeys, nk, nk > wk->nb ? STORE_CONSISTENT : 0, bwork_based, wk)) return;
oom:
    if (!db_defer(wk->st->db, bwork_oom_cb, wk)) log_error("msg=\"out of memory: a write of bucket rows stays unanswered\"");
}

struct db_job *store_cas(struct store *st, const struct store_write *w, size_t n, int32_t ngroups,
                         store_cas_cb cb, void *arg)
{
    bool members = false;
    struct bucket_ref ref;
    for (size_t i = 0; i < n && !members; i++) members = where(st, w[i].key, w[i].keylen, &ref) != W_ROW;
    if (!members) return rows_cas(st, w, n, ngroups, cb, arg);

    struct bcas *bc = calloc(1, sizeof(*bc));
    size_t bytes = 0;
    if (!bc) return NULL;
    *bc = (struct bcas){.st = st, .n = n, .ngroups = ngroups, .cb = cb, .arg = arg, .epoch = st->bucket_epoch};
    for (size_t i = 0; i < n; i++) bytes += w[i].keylen + (w[i].bits ? w[i].len : 0);
    bc->w = malloc(n * sizeof(*bc->w));
    bc->buf = malloc(bytes ? bytes : 1);
    bc->refs = calloc(n, sizeof(*bc->refs));
    bc->wh = calloc(n, sizeof(*bc->wh));
    bc->bkeys = calloc(n, sizeof(*bc->bkeys));
    bc->conflict = calloc(ngroups > 0 ? (size_t)ngroups : 1, sizeof(*bc->conflict));
    if (!bc->w || !bc->buf || !bc->refs || !bc->wh || !bc->bkeys || !bc->conflict ||
        !(bc->handle = db_pending(st->db, bcas_deliver, bc))) {
        if (bc->handle) {
            db_cancel(bc->handle);
            db_complete(bc->handle, DB_OK, NULL);
        }
        bcas_free(bc);
        return NULL;
    }
    struct db_job *handle = bc->handle;
    bool unknown = false;
    uint8_t *p = bc->buf;
    for (size_t i = 0; i < n; i++) {
        bc->w[i] = w[i];
        /* what is valid only during this call (store_types.h: decoded copies, chunk plans,
         * shared blobs): the writes go out later, and rows_cas does without them */
        bc->w[i].bm = NULL;
        bc->w[i].narrow = false;
        bc->w[i].blob = NULL;
        bc->w[i].changed = NULL;
        memcpy(p, w[i].key, w[i].keylen);
        bc->w[i].key = p;
        p += w[i].keylen;
        if (w[i].bits) {
            memcpy(p, w[i].bits, w[i].len);
            bc->w[i].bits = p;
            p += w[i].len;
        }
        int at = where(st, bc->w[i].key, bc->w[i].keylen, &bc->refs[i]);
        if (at < 0) unknown = true;
        bc->wh[i] = at;
        if (at == W_IN || at == W_OUT) bc->solo = true; /* while keys move, one call at a time */
        if (at < 0 || at == W_ROW) { /* a row of its own: sent later, without what is only valid during this call */
            bc->refs[i].family = BUCKET_NONE;
            bc->plain = true;
            continue;
        }
        bc->slots |= 1u << bc->refs[i].slot;
        struct store_key bk = {(const uint8_t *)bc->refs[i].bkey, bc->refs[i].bkeylen};
        size_t j = 0;
        while (j < bc->nb && !same_key(&bc->bkeys[j], &bk)) j++;
        if (j == bc->nb) bc->bkeys[bc->nb++] = bk;
    }
    /* the call joins the list before anything can answer it */
    bcas_link(st, bc);
    if (unknown) {
        bc->started = true; /* holds nothing: answered on the next turn */
        if (!db_defer(st->db, bcas_fail_cb, bc)) {
            bcas_unlink(st, bc);
            db_cancel(bc->handle);
            db_complete(bc->handle, DB_OK, NULL);
            bcas_free(bc);
            return NULL;
        }
        return handle;
    }
    bucket_pass_soon(st);
    return handle;
}

void store_buckets_free(struct store *st)
{
    if (st->bucket_retry_ev) event_free(st->bucket_retry_ev);
    if (st->bucket_pass_ev) event_free(st->bucket_pass_ev);
    while (st->bucket_works) /* their loads and statements are dropped without a callback */
        bwork_free(SENT_BATCH(st->bucket_works, struct bwork));
    /* the statements of calls in flight are dropped by db_free without a callback */
    while (st->bucket_calls) {
        struct bcas *bc = st->bucket_calls;
        st->bucket_calls = bc->next;
        db_cancel(bc->handle);
        db_complete(bc->handle, DB_OK, NULL);
        bcas_free(bc);
    }
    st->bucket_calls_end = NULL;
    free(st->bucket_hold);
    st->bucket_hold = NULL;
    st->bucket_hold_cap = 0;
    while (st->bucket_loads) { /* their inner loads are dropped without a callback */
        struct bload *bl = SENT_BATCH(st->bucket_loads, struct bload);
        db_cancel(bl->handle);
        db_complete(bl->handle, DB_OK, NULL);
        bload_free(bl);
    }
    while (st->bucket_checks) {
        struct state_read *sr = SENT_BATCH(st->bucket_checks, struct state_read);
        st->bucket_checks = sr->sent.next;
        free(sr);
    }
}
