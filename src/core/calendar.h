/* calendar.h — calendar arithmetic: civil dates <-> day numbers (days since
 * 1970-01-01), strict date parsing, month lengths and leap years, and "today" in a
 * time zone. No I/O except the time zone look-up of cal_today(); unit-tested on its
 * own (tests/test_calendar.c). The check-ins' streaks and points over these day
 * numbers are domains/checkins/checkin_rules.h. */
#ifndef BITMAPD_CALENDAR_H
#define BITMAPD_CALENDAR_H

#include <time.h>

#include "core/common.h"

#define CAL_YEAR_MIN 1970
#define CAL_YEAR_MAX 9999
#define CAL_DAY_MAX 2932896 /* day number of 9999-12-31 */

#define CAL_DATE_LEN 10  /* "YYYY-MM-DD" */
#define CAL_MONTH_LEN 7  /* "YYYY-MM" */

struct cal_date {
    int year;  /* CAL_YEAR_MIN … CAL_YEAR_MAX */
    int month; /* 1 … 12 */
    int day;   /* 1 … cal_month_days(year, month) */
};

/* Gregorian rule: every 4th year, except centuries not divisible by 400. */
bool cal_is_leap(int year);
/* 28 … 31; 0 when month is not 1 … 12. */
int cal_month_days(int year, int month);
/* A real date in CAL_YEAR_MIN … CAL_YEAR_MAX. */
bool cal_date_valid(const struct cal_date *d);

/* Day number of a valid date (0 = 1970-01-01, CAL_DAY_MAX = 9999-12-31). */
int32_t cal_day_number(const struct cal_date *d);
/* The date of day number 0 … CAL_DAY_MAX. */
struct cal_date cal_civil(int32_t day);
/* First day number of the month of day. */
int32_t cal_month_start(int32_t day);
/* Day number of the first of (year, month). */
int32_t cal_month_first(int year, int month);

/* Strict parsers: exactly "YYYY-MM-DD", "YYYY-MM", "YYYY" (ASCII digits, no sign,
 * no spaces, nothing after), a real date in CAL_YEAR_MIN … CAL_YEAR_MAX. */
bool cal_parse_date(const char *s, int32_t *day) WUR;
bool cal_parse_month(const char *s, int *year, int *month) WUR;
bool cal_parse_year(const char *s, int *year) WUR;

/* "YYYY-MM-DD" of day into buf (at least CAL_DATE_LEN + 1 bytes). */
void cal_format_date(int32_t day, char *buf);
/* "YYYY-MM" into buf (at least CAL_MONTH_LEN + 1 bytes). */
void cal_format_month(int year, int month, char *buf);

/* A zone name glibc can load (a zone file, an absolute path, a POSIX rule with an
 * offset, "UTC"): glibc silently uses UTC for any other name. */
bool cal_zone_known(const char *zone) WUR;

/* "Today" in a time zone, cached until the next local midnight so that the zone
 * file is read about once a day. zone "" is the process time zone (TZ). The
 * process must be single-threaded: the zone is switched around one localtime_r. */
struct cal_clock {
    char zone[128]; /* the zone the cache is for */
    bool valid;
    time_t from, until; /* the cached day holds for from <= now < until */
    int32_t day;
};

/* Sets *day to the local date of now in zone. False (reason in err) when the zone
 * is unknown or the date is outside CAL_YEAR_MIN … CAL_YEAR_MAX. */
bool cal_today(struct cal_clock *clk, const char *zone, time_t now, int32_t *day, char *err,
               size_t errlen) WUR;

#endif
