/* gen_fixtures.c — prints bitmaps in the Roaring portable encoding (codec_encode_roaring:
 * these fixtures cover Roaring's layouts, some of which codec_encode would store dense),
 * with the answers the SQL decoder (sql/010_codec.sql) must give, for
 * tests/integration/test_sql_members.sh.
 * One line per fixture:
 *   name TAB hex TAB cardinality TAB sum TAB min TAB max TAB count_in_[lo,hi) TAB lo TAB hi
 * sum, min and max are empty for the empty bitmap, as SQL prints NULL under psql -A. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "store/codec.h"

#define COOKIE_NO_RUN 12346u
#define COOKIE_RUN 12347u

/* Deterministic, so the fixtures are the same on every run. */
static uint32_t lcg_state = 12345;

static uint32_t lcg(void)
{
    lcg_state = lcg_state * 1103515245u + 12345u;
    return lcg_state >> 8;
}

/* Each value individually (never add_range: it is buggy in CRoaring 0.2.66). */
static void add_run(roaring_bitmap_t *bm, uint64_t from, uint64_t to)
{
    for (uint64_t v = from; v < to; v++)
        roaring_bitmap_add(bm, (uint32_t)v);
}

/* About `n` distinct random values in container `key`: a bitset when n > 4096. */
static void add_random(roaring_bitmap_t *bm, uint32_t key, uint32_t n)
{
    while (roaring_bitmap_range_cardinality(bm, (uint64_t)key << 16, ((uint64_t)key + 1) << 16) < n)
        roaring_bitmap_add(bm, key << 16 | (lcg() & 0xFFFF));
}

static void build_empty(roaring_bitmap_t *bm)
{
    (void)bm;
}

static void build_single_zero(roaring_bitmap_t *bm)
{
    roaring_bitmap_add(bm, 0);
}

static void build_single_max(roaring_bitmap_t *bm)
{
    roaring_bitmap_add(bm, 4294967295u);
}

static void build_sparse_array(roaring_bitmap_t *bm)
{
    for (uint64_t v = 7; v < 4294967296u; v += 1000003)
        roaring_bitmap_add(bm, (uint32_t)v);
}

static void build_dense_bitset(roaring_bitmap_t *bm)
{
    add_random(bm, 3, 10000);
}

/* One container holding all 65536 values: cardinality - 1 = 65535 in the header. */
static void build_full_container(roaring_bitmap_t *bm)
{
    add_run(bm, 65535u * 65536, 4294967296u);
}

/* A long run across three keys: a run cookie with no offset header (< 4 containers). */
static void build_run(roaring_bitmap_t *bm)
{
    add_run(bm, 70000, 200000);
}

/* Run cookie, < 4 containers, and a bitset and an array to walk past without offsets. */
static void build_run_no_offsets_mixed(roaring_bitmap_t *bm)
{
    add_random(bm, 0, 6000);
    for (uint32_t v = 65536 + 5; v < 2 * 65536; v += 97)
        roaring_bitmap_add(bm, v);
    add_run(bm, 9 * 65536 + 100, 9 * 65536 + 30000);
}

/* Run, bitset and array containers, with offsets, from key 0 to key 65535. */
static void build_mixed(roaring_bitmap_t *bm)
{
    for (uint32_t v = 0; v < 4096; v += 3)
        roaring_bitmap_add(bm, v);
    add_run(bm, 65536 + 1000, 65536 + 2000);
    add_run(bm, 65536 + 3000, 65536 + 3100);
    add_random(bm, 2, 20000);
    add_run(bm, 5 * 65536 - 500, 7 * 65536 + 500);
    add_random(bm, 1000, 50);
    for (uint64_t v = 4294967296u - 10000; v < 4294967296u; v += 2)
        roaring_bitmap_add(bm, (uint32_t)v);
    roaring_bitmap_add(bm, 4294967295u);
}

/* No run container and >= 5 containers: cookie 12346 with offsets. */
static void build_no_runs(roaring_bitmap_t *bm)
{
    add_random(bm, 0, 100);
    add_random(bm, 1, 5000);
    add_random(bm, 10, 40000);
    add_random(bm, 500, 4096);
    add_random(bm, 65535, 4097);
}

/* All 65536 keys, from 0 to 65535 (runs in odd keys): the largest container count,
 * which puts 0xFFFF into the high half of the run cookie. */
static void build_all_keys(roaring_bitmap_t *bm)
{
    for (uint32_t key = 0; key < 65536; key++) {
        roaring_bitmap_add(bm, key << 16 | key);
        if (key % 2)
            add_run(bm, (uint64_t)key << 16 | 1000, (uint64_t)key << 16 | 1050);
    }
}

struct fixture {
    const char *name;
    void (*build)(roaring_bitmap_t *bm);
    uint32_t cookie; /* the low 16 bits the encoding must have, so coverage is real */
    uint64_t lo, hi; /* count_range bounds: cut through containers on purpose */
};

static const struct fixture fixtures[] = {
    {"empty", build_empty, COOKIE_NO_RUN, 0, 100},
    {"single_zero", build_single_zero, COOKIE_NO_RUN, 0, 1},
    {"single_max", build_single_max, COOKIE_NO_RUN, 4294967295u, 4294967296u},
    {"sparse_array", build_sparse_array, COOKIE_NO_RUN, 123456789, 3000000000u},
    {"dense_bitset", build_dense_bitset, COOKIE_NO_RUN, 3 * 65536 + 1234, 3 * 65536 + 54321},
    {"full_container", build_full_container, COOKIE_RUN, 4294967296u - 1000, 4294967296u},
    {"run", build_run, COOKIE_RUN, 70001, 150000},
    {"run_no_offsets_mixed", build_run_no_offsets_mixed, COOKIE_RUN, 3000, 9 * 65536 + 200},
    {"mixed", build_mixed, COOKIE_RUN, 1500, 6 * 65536 + 17},
    {"no_runs", build_no_runs, COOKIE_NO_RUN, 65536 + 100, 500 * 65536 + 30000},
    {"all_keys", build_all_keys, COOKIE_RUN, 1000 * 65536 + 1001, 2000 * 65536 + 1020},
    /* The same bitmaps with ranges at the edges count_range must get right. */
    {"bitset_range_in_one_byte", build_dense_bitset, COOKIE_NO_RUN, 3 * 65536 + 802, 3 * 65536 + 807},
    {"bitset_range_byte_aligned", build_dense_bitset, COOKIE_NO_RUN, 3 * 65536 + 800, 3 * 65536 + 8000},
    {"run_range_first_value", build_run, COOKIE_RUN, 70000, 70001},
    {"mixed_range_last_key", build_mixed, COOKIE_RUN, 4294967296u - 5001, 4294967296u},
    {"no_runs_range_whole_containers", build_no_runs, COOKIE_NO_RUN, 65536, 11 * 65536},
    {"no_runs_range_past_max", build_no_runs, COOKIE_NO_RUN, 4294967286u, 4294967296u},
};

struct totals {
    uint64_t sum, in_range, lo, hi;
};

static bool accumulate(uint32_t value, void *param)
{
    struct totals *t = param;
    t->sum += value;
    t->in_range += value >= t->lo && value < t->hi;
    return true;
}

static bool print_fixture(const struct fixture *f)
{
    roaring_bitmap_t *bm = roaring_bitmap_create();
    uint8_t *buf = NULL;
    size_t len;
    bool ok = false;
    f->build(bm);
    if (!codec_encode_roaring(bm, &buf, &len)) {
        fprintf(stderr, "%s: codec_encode_roaring failed\n", f->name);
        goto done;
    }
    uint32_t cookie = (uint32_t)buf[0] | (uint32_t)buf[1] << 8;
    if (cookie != f->cookie) {
        fprintf(stderr, "%s: cookie %" PRIu32 ", expected %" PRIu32 "\n", f->name, cookie, f->cookie);
        goto done;
    }
    struct totals t = {0, 0, f->lo, f->hi};
    roaring_iterate(bm, accumulate, &t);
    printf("%s\t", f->name);
    for (size_t i = 0; i < len; i++)
        printf("%02x", buf[i]);
    printf("\t%" PRIu64 "\t", roaring_bitmap_get_cardinality(bm));
    if (roaring_bitmap_is_empty(bm))
        printf("\t\t");
    else
        printf("%" PRIu64 "\t%" PRIu32 "\t%" PRIu32, t.sum, roaring_bitmap_minimum(bm),
               roaring_bitmap_maximum(bm));
    printf("\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", t.in_range, f->lo, f->hi);
    ok = true;
done:
    free(buf);
    roaring_bitmap_free(bm);
    return ok;
}

int main(void)
{
    for (size_t i = 0; i < ARRAY_LEN(fixtures); i++)
        if (!print_fixture(&fixtures[i]))
            return 1;
    return ferror(stdout) ? 1 : 0;
}
