/* checkin_rules.h — the rules of daily check-ins on plain values: streaks (within a
 * month, as the seed counts them, or unbounded), counts over a range of days, and the
 * points a check-in earns, over a Roaring bitmap whose members are day numbers
 * (core/calendar.h). Unit-tested in tests/test_calendar.c; the handlers are
 * checkin.c. */
#ifndef BITMAPD_CHECKIN_RULES_H
#define BITMAPD_CHECKIN_RULES_H

#include <roaring/roaring.h>

#include "core/calendar.h"

/* Where a streak may start: at the first of its month (the seed's rule) or anywhere. */
enum cal_scope { CAL_SCOPE_MONTH, CAL_SCOPE_UNBOUNDED };
/* "month" or "unbounded". */
bool cal_parse_scope(const char *s, enum cal_scope *out) WUR;

/* Members of bm in [first, last] (day numbers, first <= last). */
uint64_t cal_count(const roaring_bitmap_t *bm, int32_t first, int32_t last);
/* Length of the run of consecutive members of bm ending on day; 0 when day is not a
 * member. With CAL_SCOPE_MONTH the run starts no earlier than the first of day's
 * month. O(log^2) rank look-ups, whatever the length. */
uint32_t cal_streak(const roaring_bitmap_t *bm, int32_t day, enum cal_scope scope);
/* The streak a check-in on day would continue: the run ending the day before, or 0
 * when day is the first of a month under CAL_SCOPE_MONTH (or day 0). */
uint32_t cal_streak_before(const roaring_bitmap_t *bm, int32_t day, enum cal_scope scope);
/* Longest run of consecutive members inside [first, last], runs clipped to the
 * range (and cut at every first of a month under CAL_SCOPE_MONTH). */
uint32_t cal_longest_streak(const roaring_bitmap_t *bm, int32_t first, int32_t last,
                            enum cal_scope scope);

/* Points earned by the check-in that makes a streak of this length: points[streak-1],
 * the last value repeating; 0 for streak 0 or an empty list. */
int cal_points(const int *points, int npoints, uint32_t streak);

#endif
