/* checkin_rules.c — streaks, counts and points of check-ins (checkin_rules.h). */
#include "domains/checkins/checkin_rules.h"

#include <string.h>

bool cal_parse_scope(const char *s, enum cal_scope *out)
{
    if (strcmp(s, "month") == 0)
        *out = CAL_SCOPE_MONTH;
    else if (strcmp(s, "unbounded") == 0)
        *out = CAL_SCOPE_UNBOUNDED;
    else
        return false;
    return true;
}

/* ---- streaks, counts, points ------------------------------------------------------- */

uint64_t cal_count(const roaring_bitmap_t *bm, int32_t first, int32_t last)
{
    if (first < 0) first = 0;
    if (last < first) return 0;
    uint64_t upto_last = roaring_bitmap_rank(bm, (uint32_t)last);
    uint64_t before_first = first == 0 ? 0 : roaring_bitmap_rank(bm, (uint32_t)first - 1);
    return upto_last - before_first;
}

/* Largest k in [1, limit] such that every day of [day-k+1, day] is a member, given
 * that day is one. "All k days present" is monotone in k, so binary search works. */
static uint32_t run_length(const roaring_bitmap_t *bm, int32_t day, uint32_t limit)
{
    uint32_t lo = 1, hi = limit;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (cal_count(bm, day - (int32_t)mid + 1, day) == mid)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

uint32_t cal_streak(const roaring_bitmap_t *bm, int32_t day, enum cal_scope scope)
{
    if (day < 0 || !roaring_bitmap_contains(bm, (uint32_t)day)) return 0;
    int32_t start = scope == CAL_SCOPE_MONTH ? cal_month_start(day) : 0;
    return run_length(bm, day, (uint32_t)(day - start + 1));
}

uint32_t cal_streak_before(const roaring_bitmap_t *bm, int32_t day, enum cal_scope scope)
{
    if (day <= 0) return 0;
    if (scope == CAL_SCOPE_MONTH && cal_month_start(day) == day) return 0;
    return cal_streak(bm, day - 1, scope);
}

uint32_t cal_longest_streak(const roaring_bitmap_t *bm, int32_t first, int32_t last,
                            enum cal_scope scope)
{
    uint32_t best = 0, run = 0;
    if (first < 0) first = 0;
    if (last > CAL_DAY_MAX) last = CAL_DAY_MAX;
    if (first > last) return 0;
    struct cal_date d = cal_civil(first);
    for (int32_t day = first; day <= last; day++) {
        bool month_start = d.day == 1;
        if (!roaring_bitmap_contains(bm, (uint32_t)day))
            run = 0;
        else if (run > 0 && !(month_start && scope == CAL_SCOPE_MONTH))
            run++;
        else
            run = 1;
        if (run > best) best = run;
        if (++d.day > cal_month_days(d.year, d.month)) { /* step the date with the day */
            d.day = 1;
            if (++d.month > 12) {
                d.month = 1;
                d.year++;
            }
        }
    }
    return best;
}

int cal_points(const int *points, int npoints, uint32_t streak)
{
    if (streak == 0 || npoints <= 0) return 0;
    return points[streak < (uint32_t)npoints ? streak - 1 : (uint32_t)npoints - 1];
}

/* ---- today in a time zone ---------------------------------------------------------- */
