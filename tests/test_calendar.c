/* test_calendar.c — the check-in arithmetic: leap years and month lengths, day
 * numbers against the C library's timegm, strict parsing, streaks with month and
 * unbounded scope against a naive reference, longest streaks, points, and
 * "today" in zones far from UTC, across DST switches and a skipped day. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/calendar.h"
#include "domains/checkins/checkin_rules.h"

static int32_t D(const char *s)
{
    int32_t day = -1;
    if (!cal_parse_date(s, &day)) fail_msg("bad date in test: %s", s);
    return day;
}

/* A bitmap of the given dates. */
static roaring_bitmap_t *days_of(const char *const *dates, size_t n)
{
    roaring_bitmap_t *bm = roaring_bitmap_create();
    for (size_t i = 0; i < n; i++) roaring_bitmap_add(bm, (uint32_t)D(dates[i]));
    return bm;
}

/* ---- leap years, month lengths, day numbers ------------------------------------- */

static void test_leap_years(void **state)
{
    assert_false(cal_is_leap(1900));
    assert_true(cal_is_leap(2000));
    assert_true(cal_is_leap(2024));
    assert_false(cal_is_leap(2023));
    assert_false(cal_is_leap(2100));
    assert_true(cal_is_leap(2400));
    assert_int_equal(cal_month_days(2024, 2), 29);
    assert_int_equal(cal_month_days(2023, 2), 28);
    assert_int_equal(cal_month_days(2100, 2), 28);
    assert_int_equal(cal_month_days(2000, 2), 29);
    assert_int_equal(cal_month_days(2023, 4), 30);
    assert_int_equal(cal_month_days(2023, 12), 31);
    assert_int_equal(cal_month_days(2023, 0), 0);
    assert_int_equal(cal_month_days(2023, 13), 0);
}

static void test_known_day_numbers(void **state)
{
    assert_int_equal(D("1970-01-01"), 0);
    assert_int_equal(D("2000-01-01"), 10957);
    assert_int_equal(D("2024-02-29"), 19782);
    assert_int_equal(D("2024-03-01"), 19783);
    assert_int_equal(D("2023-03-01"), 19417);
    assert_int_equal(D("2100-03-01"), 47541);
    assert_int_equal(D("9999-12-31"), CAL_DAY_MAX);
}

/* Every day 1970 … 2200 against timegm, and every day number round-trips. */
static void test_day_numbers_against_timegm(void **state)
{
    int32_t expect = 0;
    for (int y = 1970; y <= 2200; y++)
        for (int m = 1; m <= 12; m++)
            for (int d = 1; d <= cal_month_days(y, m); d++) {
                struct tm tm = {.tm_year = y - 1900, .tm_mon = m - 1, .tm_mday = d, .tm_hour = 12};
                struct cal_date cd = {y, m, d};
                int32_t n = cal_day_number(&cd);
                assert_int_equal(n, expect);
                assert_int_equal(n, (int32_t)(timegm(&tm) / 86400));
                struct cal_date back = cal_civil(n);
                assert_int_equal(back.year, y);
                assert_int_equal(back.month, m);
                assert_int_equal(back.day, d);
                expect++;
            }
    for (int32_t n = 0; n <= CAL_DAY_MAX; n++) {
        struct cal_date cd = cal_civil(n);
        assert_true(cal_date_valid(&cd));
        assert_int_equal(cal_day_number(&cd), n);
    }
}

static void test_month_start(void **state)
{
    assert_int_equal(cal_month_start(D("2024-02-29")), D("2024-02-01"));
    assert_int_equal(cal_month_start(D("2024-03-01")), D("2024-03-01"));
    assert_int_equal(cal_month_start(D("1970-01-31")), 0);
    assert_int_equal(cal_month_start(CAL_DAY_MAX), D("9999-12-01"));
    assert_int_equal(cal_month_first(2100, 3), D("2100-03-01"));
}

/* ---- parsing and formatting ------------------------------------------------------- */

static void test_parse_date(void **state)
{
    static const char *const bad[] = {
        "2023-02-29", "2024-02-30", "2024-13-01", "2024-1-01", "2024-01-1",  "2024-00-10",
        "2024-01-00", "2024-04-31", "2100-02-29", "1900-02-28", "1969-12-31", "0000-01-01",
        "10000-01-01", "+024-01-01", "-024-01-01", " 2024-01-01", "2024-01-01 ", "2024/01/01",
        "2024-01-01T00:00:00", "20240101", "", "2024-01-0a", "２０２４-01-01", "2024--1-01",
    };
    int32_t day;
    for (size_t i = 0; i < ARRAY_LEN(bad); i++)
        if (cal_parse_date(bad[i], &day)) fail_msg("accepted bad date '%s'", bad[i]);
    assert_false(cal_parse_date(NULL, &day));
    assert_true(cal_parse_date("2000-02-29", &day));
    assert_true(cal_parse_date("2024-02-29", &day));
    assert_true(cal_parse_date("9999-12-31", &day));
    assert_true(cal_parse_date("1970-01-01", &day));
    assert_int_equal(day, 0);
}

static void test_parse_month_year(void **state)
{
    int y, m;
    assert_true(cal_parse_month("2024-02", &y, &m));
    assert_int_equal(y, 2024);
    assert_int_equal(m, 2);
    assert_true(cal_parse_month("9999-12", &y, &m));
    assert_true(cal_parse_month("1970-01", &y, &m));
    static const char *const bad_months[] = {"2024-13", "2024-00", "2024-1", "1969-12", "2024-02-01",
                                             "2024", "24-02", "2024-+2", " 2024-02", "2024-02 ", ""};
    for (size_t i = 0; i < ARRAY_LEN(bad_months); i++)
        if (cal_parse_month(bad_months[i], &y, &m)) fail_msg("accepted bad month '%s'", bad_months[i]);
    assert_true(cal_parse_year("2024", &y));
    assert_int_equal(y, 2024);
    static const char *const bad_years[] = {"1969", "10000", "024", "+2024", "2024 ", "20a4", "", "2024-01"};
    for (size_t i = 0; i < ARRAY_LEN(bad_years); i++)
        if (cal_parse_year(bad_years[i], &y)) fail_msg("accepted bad year '%s'", bad_years[i]);
}

static void test_format(void **state)
{
    char buf[CAL_DATE_LEN + 1], mon[CAL_MONTH_LEN + 1];
    cal_format_date(0, buf);
    assert_string_equal(buf, "1970-01-01");
    cal_format_date(D("2024-02-29"), buf);
    assert_string_equal(buf, "2024-02-29");
    cal_format_date(CAL_DAY_MAX, buf);
    assert_string_equal(buf, "9999-12-31");
    cal_format_month(2024, 2, mon);
    assert_string_equal(mon, "2024-02");
    enum cal_scope s;
    assert_true(cal_parse_scope("month", &s));
    assert_int_equal(s, CAL_SCOPE_MONTH);
    assert_true(cal_parse_scope("unbounded", &s));
    assert_int_equal(s, CAL_SCOPE_UNBOUNDED);
    assert_false(cal_parse_scope("year", &s));
}

/* ---- streaks ------------------------------------------------------------------------ */

/* Month scope resets on the 1st; unbounded runs on across months, years, Feb 29. */
static void test_streak_month_ends(void **state)
{
    static const char *const dates[] = {"2023-12-30", "2023-12-31", "2024-01-01", "2024-01-02",
                                        "2024-02-28", "2024-02-29", "2024-03-01", "2023-02-28",
                                        "2023-03-01"};
    roaring_bitmap_t *bm = days_of(dates, ARRAY_LEN(dates));

    assert_int_equal(cal_streak(bm, D("2024-01-02"), CAL_SCOPE_MONTH), 2);
    assert_int_equal(cal_streak(bm, D("2024-01-02"), CAL_SCOPE_UNBOUNDED), 4);
    assert_int_equal(cal_streak(bm, D("2024-01-01"), CAL_SCOPE_MONTH), 1);
    assert_int_equal(cal_streak(bm, D("2023-12-31"), CAL_SCOPE_MONTH), 2);
    assert_int_equal(cal_streak(bm, D("2024-03-01"), CAL_SCOPE_MONTH), 1);
    assert_int_equal(cal_streak(bm, D("2024-03-01"), CAL_SCOPE_UNBOUNDED), 3); /* through Feb 29 */
    assert_int_equal(cal_streak(bm, D("2024-02-29"), CAL_SCOPE_MONTH), 2);
    assert_int_equal(cal_streak(bm, D("2023-03-01"), CAL_SCOPE_UNBOUNDED), 2); /* no Feb 29 in 2023 */
    assert_int_equal(cal_streak(bm, D("2024-01-03"), CAL_SCOPE_UNBOUNDED), 0); /* not checked in */
    /* what a UI shows before a check-in on that day */
    assert_int_equal(cal_streak_before(bm, D("2024-01-03"), CAL_SCOPE_MONTH), 2);
    assert_int_equal(cal_streak_before(bm, D("2024-01-03"), CAL_SCOPE_UNBOUNDED), 4);
    assert_int_equal(cal_streak_before(bm, D("2024-03-01"), CAL_SCOPE_MONTH), 0); /* resets */
    assert_int_equal(cal_streak_before(bm, D("2024-03-01"), CAL_SCOPE_UNBOUNDED), 2);
    assert_int_equal(cal_streak_before(bm, D("2024-02-28"), CAL_SCOPE_UNBOUNDED), 0);
    assert_int_equal(cal_streak_before(bm, 0, CAL_SCOPE_UNBOUNDED), 0);
    roaring_bitmap_free(bm);
}

/* A back-filled day joins two runs: the streak ending on each later day grows. */
static void test_backfill_joins_runs(void **state)
{
    static const char *const dates[] = {"2024-05-01", "2024-05-02", "2024-05-04", "2024-05-05"};
    roaring_bitmap_t *bm = days_of(dates, ARRAY_LEN(dates));
    assert_int_equal(cal_streak(bm, D("2024-05-05"), CAL_SCOPE_MONTH), 2);
    roaring_bitmap_add(bm, (uint32_t)D("2024-05-03"));
    assert_int_equal(cal_streak(bm, D("2024-05-03"), CAL_SCOPE_MONTH), 3);
    assert_int_equal(cal_streak(bm, D("2024-05-05"), CAL_SCOPE_MONTH), 5);
    assert_int_equal(cal_longest_streak(bm, D("2024-05-01"), D("2024-05-31"), CAL_SCOPE_MONTH), 5);
    roaring_bitmap_free(bm);
}

/* Day 0 and the last representable day, and a run starting at day 0. */
static void test_streak_edges(void **state)
{
    roaring_bitmap_t *bm = roaring_bitmap_create();
    for (uint32_t d = 0; d < 100; d++) roaring_bitmap_add(bm, d);
    roaring_bitmap_add(bm, CAL_DAY_MAX);
    roaring_bitmap_add(bm, CAL_DAY_MAX - 1);
    roaring_bitmap_add(bm, 4000000000u); /* a RESP write far past 9999: ignored by days */
    assert_int_equal(cal_streak(bm, 99, CAL_SCOPE_UNBOUNDED), 100);
    assert_int_equal(cal_streak(bm, 99, CAL_SCOPE_MONTH), 99 - D("1970-04-01") + 1);
    assert_int_equal(cal_streak(bm, 0, CAL_SCOPE_UNBOUNDED), 1);
    assert_int_equal(cal_streak(bm, CAL_DAY_MAX, CAL_SCOPE_UNBOUNDED), 2);
    assert_int_equal(cal_count(bm, 0, CAL_DAY_MAX), 102);
    assert_int_equal(cal_count(bm, 50, 49), 0);
    assert_int_equal(cal_longest_streak(bm, 0, CAL_DAY_MAX, CAL_SCOPE_UNBOUNDED), 100);
    roaring_bitmap_free(bm);
}

/* Naive references: walk day by day. */
static uint32_t naive_streak(const roaring_bitmap_t *bm, int32_t day, enum cal_scope scope)
{
    uint32_t n = 0;
    int32_t start = scope == CAL_SCOPE_MONTH ? cal_month_start(day) : 0;
    while (day >= start && roaring_bitmap_contains(bm, (uint32_t)day)) {
        n++;
        day--;
    }
    return n;
}

static uint32_t naive_longest(const roaring_bitmap_t *bm, int32_t first, int32_t last, enum cal_scope scope)
{
    uint32_t best = 0;
    for (int32_t d = first; d <= last; d++) {
        uint32_t n = naive_streak(bm, d, scope);
        int32_t clip = d - first + 1;
        if (n > (uint32_t)clip) n = (uint32_t)clip;
        if (n > best) best = n;
    }
    return best;
}

/* Random years of check-ins at several densities (including long unbounded runs
 * of thousands of days), every day's streak and every year's longest run. */
static void test_streak_random(void **state)
{
    srand(20240229);
    static const int density_pct[] = {10, 50, 90, 99, 100};
    for (size_t k = 0; k < ARRAY_LEN(density_pct); k++) {
        roaring_bitmap_t *bm = roaring_bitmap_create();
        int32_t first = D("2019-11-15"), last = D("2025-02-10");
        for (int32_t d = first; d <= last; d++)
            if (rand() % 100 < density_pct[k]) roaring_bitmap_add(bm, (uint32_t)d);
        roaring_bitmap_run_optimize(bm); /* run containers as well as arrays */
        for (int32_t d = first - 3; d <= last + 3; d++) {
            assert_int_equal(cal_streak(bm, d, CAL_SCOPE_MONTH), naive_streak(bm, d, CAL_SCOPE_MONTH));
            assert_int_equal(cal_streak(bm, d, CAL_SCOPE_UNBOUNDED), naive_streak(bm, d, CAL_SCOPE_UNBOUNDED));
        }
        for (int y = 2019; y <= 2025; y++) {
            int32_t a = cal_month_first(y, 1), b = cal_month_first(y, 12) + 30;
            assert_int_equal(cal_longest_streak(bm, a, b, CAL_SCOPE_MONTH), naive_longest(bm, a, b, CAL_SCOPE_MONTH));
            assert_int_equal(cal_longest_streak(bm, a, b, CAL_SCOPE_UNBOUNDED),
                             naive_longest(bm, a, b, CAL_SCOPE_UNBOUNDED));
            uint64_t c = 0;
            for (int32_t d = a; d <= b; d++) c += roaring_bitmap_contains(bm, (uint32_t)d);
            assert_int_equal(cal_count(bm, a, b), c);
        }
        roaring_bitmap_free(bm);
    }
}

/* With unbounded scope a run is clipped to the year asked for; with month scope the
 * longest run is the longest inside one month. */
static void test_longest_clipped(void **state)
{
    roaring_bitmap_t *bm = roaring_bitmap_create();
    for (int32_t d = D("2023-12-20"); d <= D("2024-01-05"); d++) roaring_bitmap_add(bm, (uint32_t)d);
    assert_int_equal(cal_longest_streak(bm, D("2024-01-01"), D("2024-12-31"), CAL_SCOPE_UNBOUNDED), 5);
    assert_int_equal(cal_longest_streak(bm, D("2023-01-01"), D("2023-12-31"), CAL_SCOPE_UNBOUNDED), 12);
    assert_int_equal(cal_longest_streak(bm, D("2023-01-01"), D("2023-12-31"), CAL_SCOPE_MONTH), 12);
    for (int32_t d = D("2024-02-25"); d <= D("2024-03-03"); d++) roaring_bitmap_add(bm, (uint32_t)d);
    /* Feb 25 … Mar 3: 5 days in February (leap year), 3 in March */
    assert_int_equal(cal_longest_streak(bm, D("2024-02-01"), D("2024-03-31"), CAL_SCOPE_MONTH), 5);
    assert_int_equal(cal_longest_streak(bm, D("2024-02-01"), D("2024-03-31"), CAL_SCOPE_UNBOUNDED), 8);
    assert_int_equal(cal_longest_streak(bm, D("2024-01-01"), D("2024-12-31"), CAL_SCOPE_MONTH), 5);
    assert_int_equal(cal_longest_streak(bm, 10, 5, CAL_SCOPE_MONTH), 0);
    roaring_bitmap_free(bm);
}

/* ---- points ----------------------------------------------------------------------------- */

static void test_points(void **state)
{
    const int seed[] = {10, 20, 30, 50};
    const int expect[] = {0, 10, 20, 30, 50, 50, 50};
    for (uint32_t s = 0; s < ARRAY_LEN(expect); s++) assert_int_equal(cal_points(seed, 4, s), expect[s]);
    assert_int_equal(cal_points(seed, 4, 4000000000u), 50);
    const int one[] = {7};
    assert_int_equal(cal_points(one, 1, 1), 7);
    assert_int_equal(cal_points(one, 1, 30), 7);
    assert_int_equal(cal_points(one, 0, 3), 0);
}

/* ---- today in a time zone ----------------------------------------------------------------- */

static time_t utc(int y, int mo, int d, int h, int mi)
{
    struct tm tm = {.tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h, .tm_min = mi};
    return timegm(&tm);
}

static int32_t today(struct cal_clock *clk, const char *zone, time_t t)
{
    int32_t day = -1;
    char err[160];
    if (!cal_today(clk, zone, t, &day, err, sizeof(err))) fail_msg("cal_today(%s): %s", zone, err);
    return day;
}

/* UTC+14 and UTC-12 are two calendar days apart for 2 hours of every day. */
static void test_today_far_zones(void **state)
{
    struct cal_clock k = {0}, w = {0}, u = {0};
    setenv("TZ", "UTC", 1);
    tzset();
    time_t t = utc(2024, 2, 29, 11, 0);
    assert_int_equal(today(&k, "Pacific/Kiritimati", t), D("2024-03-01"));
    assert_int_equal(today(&w, "Etc/GMT+12", t), D("2024-02-28"));
    assert_int_equal(today(&u, "", t), D("2024-02-29"));
    assert_string_equal(getenv("TZ"), "UTC"); /* the process zone is restored */
    /* the cache holds until the next local midnight, exactly */
    assert_int_equal(k.until, utc(2024, 3, 1, 10, 0));
    assert_int_equal(w.until, utc(2024, 2, 29, 12, 0));
    assert_int_equal(today(&w, "Etc/GMT+12", utc(2024, 2, 29, 11, 59)), D("2024-02-28"));
    assert_int_equal(today(&w, "Etc/GMT+12", utc(2024, 2, 29, 12, 0)), D("2024-02-29"));
    assert_int_equal(today(&k, "Pacific/Kiritimati", utc(2024, 3, 1, 9, 59)), D("2024-03-01"));
    assert_int_equal(today(&k, "Pacific/Kiritimati", utc(2024, 3, 1, 10, 0)), D("2024-03-02"));
    /* a clock that goes back is recomputed, not served from the cache */
    assert_int_equal(today(&k, "Pacific/Kiritimati", utc(2024, 2, 29, 9, 0)), D("2024-02-29"));
    /* the same clock asked for another zone */
    assert_int_equal(today(&k, "Etc/GMT+12", utc(2024, 2, 29, 9, 0)), D("2024-02-28"));
    /* a POSIX rule */
    struct cal_clock p = {0};
    assert_int_equal(today(&p, "UTC-14", t), D("2024-03-01"));
    unsetenv("TZ");
    tzset();
    assert_int_equal(today(&p, "Etc/GMT+12", t), D("2024-02-28"));
    assert_null(getenv("TZ")); /* an unset TZ stays unset */
}

static void test_today_unknown_zone(void **state)
{
    struct cal_clock c = {0};
    int32_t day;
    char err[160] = "";
    assert_false(cal_today(&c, "Mars/Olympus_Mons", utc(2024, 1, 1, 0, 0), &day, err, sizeof(err)));
    assert_non_null(strstr(err, "Mars/Olympus_Mons"));
    assert_false(c.valid);
}

/* Names glibc would silently read as UTC are refused; real zones and POSIX rules pass. */
static void test_zone_names(void **state)
{
    static const char *const good[] = {"UTC", "GMT", "Asia/Shanghai", "America/New_York", "Etc/GMT+12",
                                       ":Europe/Berlin", "UTC0", "CST-8", "<+0330>-3:30",
                                       "EST5EDT,M3.2.0,M11.1.0", "/usr/share/zoneinfo/Asia/Tokyo"};
    static const char *const bad[] = {"", "America", "Europe/Berlin1", "Etc/GMT+15", "Mars/Olympus_Mons",
                                      "utc", "Asia/../Asia/Tokyo", "UT0", "CST-25", "EST5EDT;x",
                                      ":CST-8", "/etc", "/etc/passwd"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        if (!cal_zone_known(good[i])) fail_msg("'%s' should be a known zone", good[i]);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (cal_zone_known(bad[i])) fail_msg("'%s' should be refused", bad[i]);
}

/* A day of 23 hours, one of 25, and a day that never happened (Samoa, 2011-12-30). */
static void test_today_dst_and_skipped_day(void **state)
{
    struct cal_clock c = {0};
    setenv("TZ", "UTC", 1);
    tzset();
    /* 2024-03-10 in New York: 00:00 EST = 05:00 UTC; next midnight 00:00 EDT = 04:00 UTC */
    assert_int_equal(today(&c, "America/New_York", utc(2024, 3, 10, 5, 0)), D("2024-03-10"));
    assert_int_equal(c.until, utc(2024, 3, 11, 4, 0));
    assert_int_equal(today(&c, "America/New_York", utc(2024, 3, 11, 3, 59)), D("2024-03-10"));
    assert_int_equal(today(&c, "America/New_York", utc(2024, 3, 11, 4, 0)), D("2024-03-11"));
    /* 2024-11-03: 00:00 EDT = 04:00 UTC; next midnight 00:00 EST = 05:00 UTC next day */
    assert_int_equal(today(&c, "America/New_York", utc(2024, 11, 3, 4, 0)), D("2024-11-03"));
    assert_int_equal(today(&c, "America/New_York", utc(2024, 11, 4, 4, 30)), D("2024-11-03"));
    assert_int_equal(today(&c, "America/New_York", utc(2024, 11, 4, 5, 0)), D("2024-11-04"));
    /* Samoa skipped 2011-12-30: from 23:59:59 of the 29th (-10) to 00:00 of the 31st (+14) */
    assert_int_equal(today(&c, "Pacific/Apia", utc(2011, 12, 30, 9, 0)), D("2011-12-29"));
    assert_int_equal(c.until, utc(2011, 12, 30, 10, 0));
    assert_int_equal(today(&c, "Pacific/Apia", c.until), D("2011-12-31"));
    assert_string_equal(getenv("TZ"), "UTC");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_leap_years),
        cmocka_unit_test(test_known_day_numbers),
        cmocka_unit_test(test_day_numbers_against_timegm),
        cmocka_unit_test(test_month_start),
        cmocka_unit_test(test_parse_date),
        cmocka_unit_test(test_parse_month_year),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_streak_month_ends),
        cmocka_unit_test(test_backfill_joins_runs),
        cmocka_unit_test(test_streak_edges),
        cmocka_unit_test(test_streak_random),
        cmocka_unit_test(test_longest_clipped),
        cmocka_unit_test(test_points),
        cmocka_unit_test(test_today_far_zones),
        cmocka_unit_test(test_today_unknown_zone),
        cmocka_unit_test(test_zone_names),
        cmocka_unit_test(test_today_dst_and_skipped_day),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
