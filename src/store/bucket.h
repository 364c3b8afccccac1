/* bucket.h — many small keys in one row (issue 14; docs/design.md, "Bucket rows").
 *
 * A family is a compiled-in grammar of member keys whose ids are dense, each with the
 * name of the bucket row that holds it and a slot inside that row:
 *   - checkin (1): checkin:{user}            -> checkin:~{user >> 4}, slot user & 15
 *   - receipt (2): group:{g}:msg:{m}         -> group:{g}:msg:~{m >> 4}, slot m & 15
 * where every id is a canonical decimal 0 … 2^63-1 (no sign, no leading zero), the
 * grammar the SQL views already use (bitmapd.checkin_user_of, _group_receipt_ids).
 * Other names of those prefixes (checkin:007) are not members: they stay rows of
 * their own. A bucket's name sorts after the names of all its members ('~' is above
 * every digit), so a key that moves into its bucket can only be seen again by a SCAN
 * walk in progress, never skipped. Bucket names are reserved: no key may have one.
 *
 * This module is pure: names, and the bytes of a bucket row's bits. Whether a family
 * is in use, and the rows themselves, are the store's.
 *
 * A bucket value ("bucket" encoding, first byte 0xB3; varints are minimal unsigned
 * LEB128, integers little-endian):
 *   B3, varint family, varint n (0 … 16)
 *   n entries, slots strictly ascending:
 *     u8 slot (< 16), u8 flags (BUCKET_F_*; no other bit)
 *     varint version (<= 2^63-1)
 *     unless a stub: varint cardinality (<= 2^32), varint len (the value's bytes)
 *     if L: varint nbytes (<= 512 MiB, the Redis string length)
 *     if E: u64 expire_ms (1 … 2^63-1)
 *     u32 crc: CRC-32C of the tag and family bytes, the entry's bytes before it and
 *              the member's value bytes
 *   the n values back to back, in entry order, nothing after them.
 * A member's value is a codec encoding (codec.h) of at least one member, or no byte
 * at all for the empty bitmap (cardinality 0 exactly when len 0), so that each
 * bucket has one encoding. A stub (flag S, no other flag) stands for a member that
 * lives in a row of its own (it grew too big to share): the version and checksum
 * only. The per-entry checksum localises most damage: a changed byte in a member's
 * value, version, deadline or checksum fails that member's checksum alone (parse marks
 * it, the caller answers an error for that key, the others stay readable). A changed
 * count, length or flags byte usually breaks the layout (every member then answers an
 * error), and a changed slot byte moves an entry to another slot, where it fails its
 * checksum, and leaves its own slot looking empty. So the caller also checks the row's
 * checksum column, which covers the whole value: while it fails, a slot without an
 * intact entry is an error, never an absent key, and nothing is written to the row. */
#ifndef BITMAPD_BUCKET_H
#define BITMAPD_BUCKET_H

#include "core/common.h"

#define BUCKET_TAG 0xB3
/* 16 keys to a row. Measured on the development cluster (docs/design.md, "Bucket rows"):
 * 16, 32 and 64 members of a check-in year cost about 76, 70 and 68 bytes a member
 * stored, and a write of one member about 1.3, 2.5 and 4.1 KB of WAL (the row's value is
 * rewritten whole; 0.36 KB for a row of its own). 16 keep a bucket of a year of check-ins
 * under the ~2 KB at which PostgreSQL moves a value to TOAST. Part of every bucket's name:
 * it can never change once buckets exist. */
#define BUCKET_SHIFT 4
#define BUCKET_SLOTS (1u << BUCKET_SHIFT)
#define BUCKET_KEY_MAX 64 /* longest bucket or member name (49 bytes), with room for a NUL */
#define BUCKET_NBYTES_MAX ((int64_t)512 * 1024 * 1024)

/* SQL: a row of bitmapd.bitmaps that is one key's (not a bucket of several), for the
 * statements that take a row for a key; alias is "" or "b." and so on. */
#define SQL_KEY_ROW(alias) "(" alias "bucket IS NULL OR " alias "bucket < 0)"

enum bucket_family {
    BUCKET_NONE = 0,
    BUCKET_CHECKIN = 1,
    BUCKET_RECEIPT = 2,
    BUCKET_FAMILIES /* one past the last */
};

enum {
    BUCKET_F_EXPIRE = 1, /* E: the entry has a deadline */
    BUCKET_F_NBYTES = 2, /* L: the entry has a Redis string length */
    BUCKET_F_STUB = 4,   /* S: the member lives in a row of its own */
};

/* Where a member key lives. */
struct bucket_ref {
    enum bucket_family family;
    uint8_t slot;
    size_t bkeylen;
    char bkey[BUCKET_KEY_MAX]; /* the bucket's name, NUL-terminated */
};

/* "checkin", "receipt"; "?" for anything else. */
const char *bucket_family_name(enum bucket_family f);

/* True when key[0..len) is a member of a family; then *ref says where it lives. */
bool bucket_of(const uint8_t *key, size_t len, struct bucket_ref *ref) WUR;

/* The family whose bucket name key[0..len) is (a reserved name), or BUCKET_NONE. */
enum bucket_family bucket_name_family(const uint8_t *key, size_t len) WUR;

/* The name of member slot of bucket bkey[0..len), NUL-terminated in out (cap >=
 * BUCKET_KEY_MAX); its length, or 0 when bkey is not a bucket name or slot >= BUCKET_SLOTS. */
size_t bucket_member_key(const uint8_t *bkey, size_t len, unsigned slot, char *out, size_t cap) WUR;

/* One member of a bucket, as parsed or as the store sets it. */
struct bucket_entry {
    uint8_t slot;
    bool stub;
    bool intact;       /* its checksum matched (parse); bucket_put sets it */
    uint32_t crc;      /* as stored; written again as it is when !intact, so damage is kept */
    int64_t version;   /* the member key's version */
    uint64_t cardinality;
    int64_t nbytes;    /* -1: none */
    int64_t expire_ms; /* 0: none */
    const uint8_t *val; /* len bytes of codec encoding; not owned */
    size_t len;
};

struct bucket_dir {
    enum bucket_family family;
    unsigned n;
    struct bucket_entry e[BUCKET_SLOTS]; /* slots strictly ascending */
};

/* An empty bucket of family f. */
void bucket_init(struct bucket_dir *d, enum bucket_family f);

/* Checks every rule of the layout above except what the values encode, and fills d
 * (entries point into buf). A member whose checksum fails is not an error: its entry
 * has intact false. On failure writes a one-line reason into err (if errlen > 0). */
bool bucket_parse(const uint8_t *buf, size_t len, struct bucket_dir *d, char *err, size_t errlen) WUR;

/* The index of slot in d, or -1. */
int bucket_find(const struct bucket_dir *d, unsigned slot);

/* Sets the entry of e->slot (inserted in order, or replacing the one there), intact.
 * False (d unchanged) when e breaks a rule: slot >= BUCKET_SLOTS, a stub with a value, flags or
 * a cardinality, len and cardinality not both zero or both non-zero, a field out of
 * its range. */
bool bucket_put(struct bucket_dir *d, const struct bucket_entry *e) WUR;

/* Removes the entry of slot; false when there is none. */
bool bucket_remove(struct bucket_dir *d, unsigned slot);

/* What a bucket row's columns say of its members (bitmapd.bitmaps, migrations/0015):
 * cardinality, how many of them are keys (not stubs; a member or a length; expired ones
 * too), and nbytes, how many of those have a deadline. DBSIZE counts the keys of a row
 * whose nbytes is 0 from its cardinality, without reading its bits (a row written
 * before nbytes was kept has NULL there: its bits are read). */
void bucket_counts(const struct bucket_dir *d, uint64_t *keys, uint64_t *deadlines);

/* Bytes bucket_write writes for d. */
size_t bucket_size(const struct bucket_dir *d);

/* Writes d into out (cap >= bucket_size(d)); returns the bytes written, 0 when cap is
 * short. Intact entries get their checksum computed, the others keep theirs. */
size_t bucket_write(const struct bucket_dir *d, uint8_t *out, size_t cap) WUR;

/* The earliest deadline of d's entries; 0 when none has one. */
int64_t bucket_min_deadline(const struct bucket_dir *d);

#endif
