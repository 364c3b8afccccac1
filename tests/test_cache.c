/* test_cache.c — the hot-bitmap cache: hits and misses, LRU eviction within the byte
 * bound, invalidation by change notifications (exact version and checksum survive,
 * anything else is dropped), in-flight results that a later notification contradicts,
 * negative entries, payloads that cannot be parsed, a put over a cached key, and
 * prefetching. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/cache.h"

/* crc doubles as the writing transaction's id */
static struct cache_val val(int64_t version, uint32_t crc, const char *bits, struct cache_blob **blob)
{
    *blob = cache_blob_new(bits, strlen(bits));
    assert_non_null(*blob);
    return (struct cache_val){.found = true, .version = version, .cardinality = 1, .checksum = crc,
                              .xid = crc, .nbytes = -1, .blob = *blob};
}

static void put(struct cache *c, const char *key, int64_t version, uint32_t crc, const char *bits, uint64_t mark)
{
    struct cache_blob *b;
    struct cache_val v = val(version, crc, bits, &b);
    cache_put(c, key, strlen(key), &v, mark);
    cache_blob_unref(b);
}

/* The cached version of key, or -1 when not cached. */
static int64_t cached(struct cache *c, const char *key)
{
    struct cache_val v;
    if (!cache_get(c, key, strlen(key), &v)) return -1;
    cache_blob_unref(v.blob);
    return v.found ? v.version : 0;
}

static struct cache *enabled_cache(size_t max)
{
    struct cache *c = cache_new(max);
    assert_non_null(c);
    cache_set_enabled(c, true);
    return c;
}

static void test_disabled_holds_nothing(void **state)
{
    struct cache *c = cache_new(1 << 20);
    (void)state;
    put(c, "k", 3, 7, "abc", cache_mark(c));
    assert_int_equal(cached(c, "k"), -1);
    cache_set_enabled(c, true);
    put(c, "k", 3, 7, "abc", cache_mark(c));
    assert_int_equal(cached(c, "k"), 3);
    cache_set_enabled(c, false); /* the listener went down: nothing may be served */
    assert_int_equal(cached(c, "k"), -1);
    cache_free(c);

    c = enabled_cache(0); /* [cache] max_mb = 0 */
    put(c, "k", 3, 7, "abc", cache_mark(c));
    assert_int_equal(cached(c, "k"), -1);
    cache_free(c);
}

static void test_hit_returns_bits_and_keeps_them_alive(void **state)
{
    struct cache *c = enabled_cache(1 << 20);
    struct cache_val v;
    (void)state;
    put(c, "user:1", 5, 99, "payload", cache_mark(c));
    assert_true(cache_get(c, "user:1", 6, &v));
    assert_true(v.found);
    assert_int_equal(v.version, 5);
    assert_int_equal(v.checksum, 99);
    assert_int_equal(v.blob->len, 7);
    assert_memory_equal(v.blob->data, "payload", 7);
    /* dropped from the cache while a reader holds it: the reader's copy stays valid */
    cache_drop(c, "user:1", 6);
    assert_int_equal(cached(c, "user:1"), -1);
    assert_memory_equal(v.blob->data, "payload", 7);
    cache_blob_unref(v.blob);
    /* a key that is a prefix of another is a different key */
    put(c, "user:10", 1, 1, "x", cache_mark(c));
    assert_int_equal(cached(c, "user:1"), -1);
    assert_int_equal(cached(c, "user:10"), 1);
    cache_free(c);
}

static void test_lru_eviction_within_bound(void **state)
{
    char key[32], bits[1001];
    struct cache_stats st;
    struct cache *c = enabled_cache(64 * 1024);
    (void)state;
    memset(bits, 'b', 1000);
    bits[1000] = '\0';
    for (int i = 0; i < 200; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        put(c, key, 1, 1, bits, cache_mark(c));
        if (i >= 1) assert_int_equal(cached(c, "k0"), 1); /* k0 stays hot */
        cache_get_stats(c, &st);
        assert_true(st.bytes <= st.max_bytes);
    }
    cache_get_stats(c, &st);
    assert_true(st.evictions > 100);
    assert_true(st.entries < 64);
    assert_int_equal(cached(c, "k0"), 1);   /* recently used: kept */
    assert_int_equal(cached(c, "k1"), -1);  /* least recently used: gone */
    assert_int_equal(cached(c, "k199"), 1); /* newest: kept */
    cache_free(c);
}

static void test_many_keys_and_growth(void **state)
{
    char key[32];
    struct cache *c = enabled_cache(64 << 20);
    (void)state;
    for (int i = 0; i < 20000; i++) {
        snprintf(key, sizeof(key), "key:%d", i);
        put(c, key, i, (uint32_t)i, "v", cache_mark(c));
    }
    for (int i = 0; i < 20000; i += 997) {
        snprintf(key, sizeof(key), "key:%d", i);
        assert_int_equal(cached(c, key), i);
    }
    cache_free(c);
}

static void test_notifications(void **state)
{
    struct cache *c = enabled_cache(1 << 20);
    (void)state;
    put(c, "ab", 4, 1234, "x", cache_mark(c)); /* "ab" = 6162 in hex */
    put(c, "cd", 2, 5, "y", cache_mark(c));    /* 6364 */
    put(c, "ef", 9, 6, "z", cache_mark(c));    /* 6566 */
    /* our own write being announced: the same version and transaction survive */
    assert_true(cache_invalidate(c, "6162:4:1234"));
    assert_int_equal(cached(c, "ab"), 4);
    /* someone else's write (newer version), a write by another transaction that kept
     * the version (an administrator's UPDATE), and a delete: all dropped */
    assert_true(cache_invalidate(c, "6162:5:1234,6364:2:77,6566:d"));
    assert_int_equal(cached(c, "ab"), -1);
    assert_int_equal(cached(c, "cd"), -1);
    assert_int_equal(cached(c, "ef"), -1);
    /* TRUNCATE */
    put(c, "ab", 6, 1, "x", cache_mark(c));
    assert_true(cache_invalidate(c, "*"));
    assert_int_equal(cached(c, "ab"), -1);
    /* uppercase hex and an empty key (a valid Redis key) */
    put(c, "", 3, 3, "e", cache_mark(c));
    assert_true(cache_invalidate(c, ":4:3"));
    assert_int_equal(cached(c, ""), -1);
    put(c, "ab", 6, 1, "x", cache_mark(c));
    put(c, "jk", 1, 1, "x", cache_mark(c));
    assert_true(cache_invalidate(c, "6A6B:2:1")); /* "jk" */
    assert_int_equal(cached(c, "jk"), -1);
    assert_int_equal(cached(c, "ab"), 6);
    cache_free(c);
}

static void test_bad_payload_flushes(void **state)
{
    static const char *const bad[] = {"6162", "616:1:1", "zz:1:1", "6162:x:1", "6162:1", "6162:1:1:1",
                                      "6162:-1:1", "6162:99999999999999999999:1", "6162:d:1", ",",
                                      "6162:1:4294967296"};
    struct cache *c = enabled_cache(1 << 20);
    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        put(c, "cd", 2, 5, "y", cache_mark(c));
        assert_false(cache_invalidate(c, bad[i]));
        assert_int_equal(cached(c, "cd"), -1); /* emptied: a notification may have been lost */
    }
    cache_free(c);
}

static void test_in_flight_results(void **state)
{
    struct cache *c = enabled_cache(1 << 20);
    uint64_t mark;
    (void)state;
    /* a load sent before another writer's commit was announced returns the old row:
     * it must not be cached */
    mark = cache_mark(c);
    assert_true(cache_invalidate(c, "6162:8:80"));
    put(c, "ab", 7, 70, "old", mark);
    assert_int_equal(cached(c, "ab"), -1);
    /* the row the announcement describes may be cached */
    put(c, "ab", 8, 80, "new", mark);
    assert_int_equal(cached(c, "ab"), 8);
    /* a deletion announced while a load was out: only "no row" may be cached */
    mark = cache_mark(c);
    assert_true(cache_invalidate(c, "6364:d"));
    put(c, "cd", 3, 3, "gone", mark);
    assert_int_equal(cached(c, "cd"), -1);
    struct cache_val none = {.found = false, .nbytes = -1};
    cache_put(c, "cd", 2, &none, mark);
    assert_int_equal(cached(c, "cd"), 0);
    /* a result sent after the announcement is not affected by it */
    put(c, "ab", 9, 90, "newer", cache_mark(c));
    assert_int_equal(cached(c, "ab"), 9);
    /* a flush while a load was out: nothing sent before it may be cached */
    mark = cache_mark(c);
    assert_true(cache_invalidate(c, "*"));
    put(c, "ef", 1, 1, "x", mark);
    assert_int_equal(cached(c, "ef"), -1);
    /* so does losing and regaining the listener */
    mark = cache_mark(c);
    cache_set_enabled(c, false);
    cache_set_enabled(c, true);
    put(c, "ef", 1, 1, "x", mark);
    assert_int_equal(cached(c, "ef"), -1);
    cache_free(c);
}

static void test_negative_entry_dropped_by_insert(void **state)
{
    struct cache *c = enabled_cache(1 << 20);
    struct cache_val none = {.found = false, .nbytes = -1}, v;
    (void)state;
    cache_put(c, "ab", 2, &none, cache_mark(c));
    assert_true(cache_get(c, "ab", 2, &v));
    assert_false(v.found);
    assert_null(v.blob);
    assert_true(cache_invalidate(c, "6162:1:44")); /* another instance created it */
    assert_int_equal(cached(c, "ab"), -1);
    cache_free(c);
}

static void test_huge_entry_not_cached(void **state)
{
    struct cache *c = enabled_cache(16 * 1024);
    char *big = malloc(8001);
    (void)state;
    memset(big, 'q', 8000);
    big[8000] = '\0';
    put(c, "small", 1, 1, "s", cache_mark(c));
    put(c, "big", 1, 1, big, cache_mark(c)); /* over a quarter of the bound */
    assert_int_equal(cached(c, "big"), -1);
    assert_int_equal(cached(c, "small"), 1);
    free(big);
    cache_free(c);
}

static void test_older_result_never_replaces_newer(void **state)
{
    struct cache *c = enabled_cache(1 << 20);
    struct cache_val none = {.found = false, .nbytes = -1};
    uint64_t mark;
    (void)state;
    /* a load is sent; this instance then commits version 5 of the key (cached and
     * noted before its notification arrives); the load answers with version 4 */
    mark = cache_mark(c);
    put(c, "ab", 5, 50, "mine", cache_mark(c));
    cache_note_write(c, "ab", 2, 5, 50);
    put(c, "ab", 4, 40, "older", mark);
    assert_int_equal(cached(c, "ab"), 5);
    /* ... or answers "no row" (sent before this instance created it) */
    cache_put(c, "ab", 2, &none, mark);
    assert_int_equal(cached(c, "ab"), 5);
    /* even once the entry was evicted, the noted write keeps the older result out */
    cache_drop(c, "ab", 2);
    put(c, "ab", 4, 40, "older", mark);
    assert_int_equal(cached(c, "ab"), -1);
    /* the same version written by another transaction: a contradiction, keep neither */
    put(c, "cd", 3, 30, "x", cache_mark(c));
    put(c, "cd", 3, 31, "y", cache_mark(c));
    assert_int_equal(cached(c, "cd"), -1);
    /* a later change already announced is not hidden by noting an earlier write */
    assert_true(cache_invalidate(c, "6566:9:90"));
    mark = cache_mark(c);
    cache_note_write(c, "ef", 2, 8, 80);
    put(c, "ef", 8, 80, "stale", mark - 1);
    assert_int_equal(cached(c, "ef"), -1);
    cache_free(c);
}

/* A hot key committed twice by this instance before the first commit's notification
 * arrives: that notification is older news and keeps neither the newer copy out nor
 * drops it; the same notification from another transaction drops it. */
static void test_own_late_notifications(void **state)
{
    struct cache *c = enabled_cache(1 << 20);
    uint64_t mark;
    (void)state;
    put(c, "ab", 5, 50, "v5", cache_mark(c));
    cache_note_write(c, "ab", 2, 5, 50);
    mark = cache_mark(c); /* the next commit's statement is sent */
    assert_true(cache_invalidate(c, "6162:5:50")); /* v5's notification, while v6 commits */
    cache_note_write(c, "ab", 2, 6, 51);
    put(c, "ab", 6, 51, "v6", mark);
    assert_int_equal(cached(c, "ab"), 6); /* not kept out by the older own notification */
    mark = cache_mark(c);
    cache_note_write(c, "ab", 2, 7, 52);
    put(c, "ab", 7, 52, "v7", mark);
    assert_true(cache_invalidate(c, "6162:6:51")); /* v6's, after v7 is cached */
    assert_int_equal(cached(c, "ab"), 7);
    assert_true(cache_invalidate(c, "6162:7:52"));
    assert_int_equal(cached(c, "ab"), 7);
    /* an older version announced by a transaction of someone else (an administrator
     * setting the version back): dropped */
    assert_true(cache_invalidate(c, "6162:3:999"));
    assert_int_equal(cached(c, "ab"), -1);
    /* and a value read after it is current again only if it is that one */
    mark = cache_mark(c) - 1;
    put(c, "ab", 7, 52, "v7", mark);
    assert_int_equal(cached(c, "ab"), -1);
    cache_free(c);
}

static size_t cache_bytes(const struct cache *c)
{
    struct cache_stats st;
    cache_get_stats(c, &st);
    return st.bytes;
}

/* A put over a cached key rewrites its entry where it is: the bytes counted follow
 * the new value (as if put fresh), the old bits are released while a reader of them
 * keeps its copy, the entry is the most recently used, and a value too big for the
 * cache, or contradicted by a notification since its mark, leaves no entry. */
static void test_put_over_entry(void **state)
{
    char big[2001];
    struct cache_val held;
    struct cache *c = enabled_cache(8 * 1024), *fresh = enabled_cache(8 * 1024);
    (void)state;
    put(c, "k", 1, 1, "short", cache_mark(c));
    assert_true(cache_get(c, "k", 1, &held)); /* a reader of version 1 */
    put(c, "k", 2, 2, "a longer value", cache_mark(c));
    put(fresh, "k", 2, 2, "a longer value", cache_mark(fresh));
    assert_int_equal(cache_bytes(c), cache_bytes(fresh));
    assert_int_equal(cached(c, "k"), 2);
    assert_memory_equal(held.blob->data, "short", 5);
    cache_blob_unref(held.blob);
    put(c, "k", 3, 3, "s", cache_mark(c)); /* shorter again */
    put(fresh, "k", 3, 3, "s", cache_mark(fresh));
    assert_int_equal(cache_bytes(c), cache_bytes(fresh));
    cache_free(fresh);

    /* most recently used: "old" goes first when the cache must make room */
    memset(big, 'x', 1000);
    big[1000] = '\0';
    put(c, "old", 1, 1, big, cache_mark(c));
    put(c, "k", 4, 4, "t", cache_mark(c));
    for (int i = 0; i < 12; i++) { /* until the first eviction */
        struct cache_stats st;
        char key[16];
        snprintf(key, sizeof(key), "n%d", i);
        put(c, key, 1, 1, big, cache_mark(c));
        cache_get_stats(c, &st);
        if (st.evictions > 0) break;
    }
    assert_int_equal(cached(c, "old"), -1);
    assert_int_equal(cached(c, "k"), 4);
    assert_true(cache_bytes(c) <= 8 * 1024);

    /* a value over a quarter of the cache: the entry goes, nothing is counted for it */
    size_t before = cache_bytes(c);
    memset(big, 'y', 2000);
    big[2000] = '\0';
    put(c, "k", 5, 5, big, cache_mark(c));
    assert_int_equal(cached(c, "k"), -1);
    assert_true(cache_bytes(c) < before);

    /* a result that a notification since its mark contradicts: the entry goes */
    put(c, "ab", 1, 1, "v1", cache_mark(c));
    uint64_t mark = cache_mark(c);
    assert_true(cache_invalidate(c, "6162:9:9"));
    put(c, "ab", 2, 2, "v2", cache_mark(c));
    put(c, "ab", 3, 3, "v3", mark);
    assert_int_equal(cached(c, "ab"), -1);
    cache_free(c);
}

static const void *key_of(const void *arg, size_t i, size_t *len)
{
    const char *const *keys = arg;
    *len = strlen(keys[i]);
    return keys[i];
}

/* Prefetching changes nothing: every key answers as before, and the counts of hits,
 * misses and entries stay, whether the keys are cached, absent or the cache is off. */
static void test_prefetch_changes_nothing(void **state)
{
    static const char *const keys[] = {"a", "b", "missing", "", "c"};
    struct cache_stats before, after;
    struct cache *c = enabled_cache(1 << 20);
    (void)state;
    put(c, "a", 1, 1, "x", cache_mark(c));
    put(c, "b", 2, 2, "y", cache_mark(c));
    put(c, "c", 3, 3, "z", cache_mark(c));
    cache_get_stats(c, &before);
    cache_prefetch(c, 5, key_of, keys);
    cache_prefetch(c, 0, key_of, keys);
    cache_get_stats(c, &after);
    assert_memory_equal(&before, &after, sizeof(before));
    assert_int_equal(cached(c, "a"), 1);
    assert_int_equal(cached(c, "b"), 2);
    assert_int_equal(cached(c, "c"), 3);
    assert_int_equal(cached(c, "missing"), -1);
    cache_set_enabled(c, false);
    cache_prefetch(c, 5, key_of, keys);
    assert_int_equal(cached(c, "a"), -1);
    cache_free(c);
}

/* Two keys, written to a and b, whose slots in the cache's table of recent
 * notifications are the same (CACHE_RECENT_SLOTS, indexed by the key's hash). */
static void colliding_keys(char *a, char *b, size_t len)
{
    snprintf(a, len, "k0");
    uint64_t slot = bytes_hash(a, strlen(a)) & (CACHE_RECENT_SLOTS - 1);
    for (int i = 1; i < 10000000; i++) {
        snprintf(b, len, "k%d", i);
        if ((bytes_hash(b, strlen(b)) & (CACHE_RECENT_SLOTS - 1)) == slot) return;
    }
    fail_msg("no two keys share a slot");
}

static void hex(char *out, const char *key)
{
    for (size_t i = 0; key[i]; i++) sprintf(out + 2 * i, "%02x", (unsigned char)key[i]);
}

/* A result sent before a note of another key that shares its slot is still cached (a
 * fan-out's own notes of its keys used to skip a few percent of its results); one
 * whose own key was noted since, by this instance or by a notification, and then
 * overwritten in the slot by the other key's note, is not. */
static void test_slot_shared_with_another_key(void **state)
{
    char a[32], b[32], payload[128];
    struct cache *c = enabled_cache(1 << 20);
    (void)state;
    colliding_keys(a, b, sizeof(a));
    uint64_t mark = cache_mark(c);
    cache_note_write(c, b, strlen(b), 1, 500);
    put(c, a, 1, 400, "x", mark);
    assert_int_equal(cached(c, a), 1);

    cache_drop(c, a, strlen(a));
    mark = cache_mark(c);
    cache_note_write(c, a, strlen(a), 5, 501); /* a committed at 5 after mark */
    cache_note_write(c, b, strlen(b), 2, 502); /* and its record overwritten */
    put(c, a, 3, 401, "old", mark);            /* an older result of a */
    assert_int_equal(cached(c, a), -1);

    mark = cache_mark(c);
    hex(payload, a);
    strcat(payload, ":9:77"); /* someone else wrote a at 9 */
    assert_true(cache_invalidate(c, payload));
    cache_note_write(c, b, strlen(b), 3, 503);
    put(c, a, 6, 402, "old", mark);
    assert_int_equal(cached(c, a), -1);
    put(c, a, 9, 77, "new", cache_mark(c)); /* read after all of it: cached */
    assert_int_equal(cached(c, a), 9);
    cache_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_disabled_holds_nothing),
        cmocka_unit_test(test_hit_returns_bits_and_keeps_them_alive),
        cmocka_unit_test(test_lru_eviction_within_bound),
        cmocka_unit_test(test_many_keys_and_growth),
        cmocka_unit_test(test_notifications),
        cmocka_unit_test(test_bad_payload_flushes),
        cmocka_unit_test(test_in_flight_results),
        cmocka_unit_test(test_negative_entry_dropped_by_insert),
        cmocka_unit_test(test_huge_entry_not_cached),
        cmocka_unit_test(test_older_result_never_replaces_newer),
        cmocka_unit_test(test_own_late_notifications),
        cmocka_unit_test(test_put_over_entry),
        cmocka_unit_test(test_prefetch_changes_nothing),
        cmocka_unit_test(test_slot_shared_with_another_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
