/* notice_internal.h — what the announcement files share (notice.c, notice_writes.c,
 * notice_reads.c): limits, key names, the input rules and the state machine of a
 * write. Not for use outside src/domains/notices/. */
#ifndef BITMAPD_NOTICE_INTERNAL_H
#define BITMAPD_NOTICE_INTERNAL_H

#include <jansson.h>
#include <roaring/roaring.h>

#include "domains/notices/notice.h"
#include "http/http.h"
#include "store/bmload.h"
#include "store/wpath.h"

#define NOTICE_ID_MAX 4294967295LL
#define NOTICE_USER_MAX 4294967295LL
#define AUDIENCE_MAX 65535
#define AUDIENCES_PER_NOTICE 64
#define RESTARTS_MAX 5           /* re-reads of a notice (or an index) that kept changing under a request */
#define NKEY_MAX 48

enum nkey { NK_AUDIENCES, NK_READERS, NK_INDEX, NK_AUDIENCE_USERS };

struct nkey_ref {
    enum nkey kind;
    uint32_t n;
};

enum nop_kind { NOP_CREATE, NOP_MOVE, NOP_DELETE, NOP_MARK, NOP_AUDIENCE };

/* Where a write stands; every change goes through nop_set_step(). Each write is one
 * unit: a client that leaves before the unit's load starts abandons it whole, after
 * that the unit runs to its commit. */
enum nop_step {
    STEP_NEW,
    STEP_LOAD,   /* PUT, DELETE, mark: reading notice:{id}:audiences (PUT, DELETE build their key lists from it) */
    STEP_CREATE, /* POST: unit {audiences, readers, index keys of the audiences} */
    STEP_MOVE,   /* PUT: unit {audiences, index keys of old ∪ new audiences} */
    STEP_DELETE, /* DELETE: unit {audiences, readers, index keys}: all emptied, the id is free */
    STEP_MARK,   /* read mark: unit {audiences (version check only), readers} */
    STEP_USERS,  /* audience users: unit {notice:audience:{aud}:users} */
};

struct nop {
    struct http_ctx *c;
    enum nop_kind kind;
    enum nop_step step;
    struct wpath *wp;        /* the run in flight, if any */
    bool gone;               /* the client left: the run in flight is abandoned */
    uint32_t id;             /* the notice (the audience for NOP_AUDIENCE) */
    uint32_t user;           /* NOP_MARK */
    bool read;               /* NOP_MARK: the mark wanted */
    bool replace;            /* NOP_AUDIENCE: PUT replaces the users, POST adds */
    roaring_bitmap_t *want;  /* audiences asked for (create, move); users (audience) */
    roaring_bitmap_t *old;   /* audiences the key list was built from (move, delete) */
    roaring_bitmap_t *users; /* preread users of the body (create) */
    uint32_t *key_aud;       /* move: the audience of index key k+1 */
    int restarts;
    int64_t version;   /* of notice:{id}:audiences, as answered */
    bool created;      /* create: this request made the notice */
    bool changed;      /* move, mark, audience: something changed */
    bool restart;      /* mutate() saw other audiences than the key list was built from */
    uint64_t count;    /* create: readers after; delete: readers removed */
    int reject_status; /* set with reject_body when mutate() refuses */
    json_t *reject_body;
};

void delete_loaded(struct nop *n, struct bmload_key *audiences);
void mark_loaded(struct nop *n, struct bmload_key *audiences);
void move_loaded(struct nop *n, struct bmload_key *audiences);
size_t nkey_name(char *buf, enum nkey kind, uint32_t n);
void nkey_set(struct wp_key *k, enum nkey kind, uint32_t n);
bool nkeys_load(struct http_ctx *c, const struct nkey_ref *refs, size_t n, bmload_cb cb, void *arg);
void nop_error(struct nop *n, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void nop_fail_gone(struct nop *n);
void nop_load_audiences(struct nop *n);
struct nop *nop_new(struct http_ctx *c, enum nop_kind kind, uint32_t id);
enum wp_mutation nop_reject(struct nop *n, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void nop_reply(struct nop *n, int status, json_t *body, int64_t etag);
void nop_reply_rejection(struct nop *n);
bool nop_restart_or_reply(struct nop *n);
void nop_run(struct nop *n, enum nop_step step, struct wpath *wp);
bool nop_run_ok_or_reply(struct nop *n, struct wpath *wp, enum wp_status st, const char *msg);
struct wpath *nop_unit(struct nop *n, int nkeys, const struct wpath_ops *ops);
json_t *notice_audiences_json(const roaring_bitmap_t *audiences);
bool notice_body_audiences_or_reply(struct http_ctx *c, roaring_bitmap_t **out);
bool notice_body_set_or_reply(struct http_ctx *c, const char *field, int64_t max, bool required,
                              roaring_bitmap_t **out);
int notice_index_keys_of(const roaring_bitmap_t *set);
uint32_t *notice_members_of(const roaring_bitmap_t *bm, size_t *n);
bool notice_no_query_or_reply(struct http_ctx *c);
bool notice_param_audience_or_reply(struct http_ctx *c, int idx, uint32_t *out);
bool notice_param_id_or_reply(struct http_ctx *c, int idx, uint32_t *out);
bool notice_param_user_or_reply(struct http_ctx *c, int idx, uint32_t *out);
int notice_set_index_keys(struct wp_unit *u, int first, const roaring_bitmap_t *set);
bool notice_unit_rejected(struct wpath *wp);

#endif
