/* calendar.c — civil dates and day numbers, strict parsing, today in a time zone,
 * and the streak / count / points arithmetic of check-ins over day-number bitmaps.
 * Never uses CRoaring's range functions (buggy in 0.2.66): only contains and rank. */
#include "core/calendar.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Days before month m (1-based) in a common year. */
static const int days_before_month[13] = {0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};

bool cal_is_leap(int year)
{
    return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

int cal_month_days(int year, int month)
{
    static const int len[13] = {0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month < 1 || month > 12) return 0;
    return month == 2 && cal_is_leap(year) ? 29 : len[month];
}

bool cal_date_valid(const struct cal_date *d)
{
    return d->year >= CAL_YEAR_MIN && d->year <= CAL_YEAR_MAX && d->month >= 1 && d->month <= 12 &&
           d->day >= 1 && d->day <= cal_month_days(d->year, d->month);
}

/* Leap years in 1 … year-1 (year >= 1). */
static int64_t leaps_before(int64_t year)
{
    int64_t y = year - 1;
    return y / 4 - y / 100 + y / 400;
}

/* Day number of January 1st of year. */
static int64_t year_start(int64_t year)
{
    return 365 * (year - 1970) + leaps_before(year) - leaps_before(1970);
}

static int32_t day_of(int year, int month, int day)
{
    int64_t n = year_start(year) + days_before_month[month] + (month > 2 && cal_is_leap(year)) + day - 1;
    return (int32_t)n;
}

int32_t cal_day_number(const struct cal_date *d)
{
    return day_of(d->year, d->month, d->day);
}

int32_t cal_month_first(int year, int month)
{
    return day_of(year, month, 1);
}

struct cal_date cal_civil(int32_t day)
{
    struct cal_date d;
    /* 146097 days per 400 years: a close first guess, then exact correction */
    int64_t y = 1970 + (int64_t)day * 400 / 146097;
    while (y > CAL_YEAR_MIN && year_start(y) > day) y--;
    while (year_start(y + 1) <= day) y++;
    int doy = (int)(day - year_start(y));
    int m = 12;
    while (m > 1 && doy < days_before_month[m] + (m > 2 && cal_is_leap((int)y))) m--;
    d.year = (int)y;
    d.month = m;
    d.day = doy - days_before_month[m] - (m > 2 && cal_is_leap((int)y)) + 1;
    return d;
}

int32_t cal_month_start(int32_t day)
{
    struct cal_date d = cal_civil(day);
    return day - (d.day - 1);
}

/* ---- parsing and formatting ------------------------------------------------------ */

/* n ASCII digits at s as a number; false if any is not a digit. */
static bool digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

bool cal_parse_year(const char *s, int *year)
{
    return s && strlen(s) == 4 && digits(s, 4, year) && *year >= CAL_YEAR_MIN && *year <= CAL_YEAR_MAX;
}

bool cal_parse_month(const char *s, int *year, int *month)
{
    if (!s || strlen(s) != CAL_MONTH_LEN || s[4] != '-') return false;
    if (!digits(s, 4, year) || !digits(s + 5, 2, month)) return false;
    return *year >= CAL_YEAR_MIN && *year <= CAL_YEAR_MAX && *month >= 1 && *month <= 12;
}

bool cal_parse_date(const char *s, int32_t *day)
{
    struct cal_date d;
    if (!s || strlen(s) != CAL_DATE_LEN || s[4] != '-' || s[7] != '-') return false;
    if (!digits(s, 4, &d.year) || !digits(s + 5, 2, &d.month) || !digits(s + 8, 2, &d.day)) return false;
    if (!cal_date_valid(&d)) return false;
    *day = cal_day_number(&d);
    return true;
}

/* n decimal digits of v (zero-padded) at buf. */
static void put_digits(char *buf, int n, int v)
{
    for (int i = n - 1; i >= 0; i--) {
        buf[i] = (char)('0' + v % 10);
        v /= 10;
    }
}

void cal_format_date(int32_t day, char *buf)
{
    struct cal_date d = cal_civil(day);
    cal_format_month(d.year, d.month, buf);
    buf[7] = '-';
    put_digits(buf + 8, 2, d.day);
    buf[10] = '\0';
}

void cal_format_month(int year, int month, char *buf)
{
    put_digits(buf, 4, year);
    buf[4] = '-';
    put_digits(buf + 5, 2, month);
    buf[7] = '\0';
}

/* A POSIX TZ name: <…> quoted (letters, digits, + and -) or 3+ letters. */
static const char *tz_rule_name(const char *s)
{
    const char *p = s;
    if (*p == '<') {
        for (p++; (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
                  *p == '+' || *p == '-';
             p++)
            ;
        return *p == '>' && p - s >= 4 ? p + 1 : NULL;
    }
    while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')) p++;
    return p - s >= 3 ? p : NULL;
}

/* A POSIX offset [+-]hh[:mm[:ss]], hh 0 … 24 (glibc's range). */
static const char *tz_rule_offset(const char *s)
{
    const char *p = s + (*s == '+' || *s == '-');
    for (int part = 0; part < 3; part++) {
        int v = 0, digits = 0;
        if (part > 0) {
            if (*p != ':') return p;
            p++;
        }
        while (*p >= '0' && *p <= '9' && digits < 2) v = v * 10 + (*p++ - '0'), digits++;
        if (digits == 0 || v > (part == 0 ? 24 : 59)) return NULL;
    }
    return p;
}

/* std offset [dst [offset] [,start[/time],end[/time]]] as POSIX and glibc read TZ. */
static bool tz_rule_ok(const char *s)
{
    const char *p = tz_rule_name(s);
    if (!p || !(p = tz_rule_offset(p))) return false;
    if (!*p) return true;
    if (!(p = tz_rule_name(p))) return false;
    if (*p && *p != ',' && !(p = tz_rule_offset(p))) return false;
    if (!*p) return true;
    if (*p != ',') return false;
    return strspn(p, "0123456789JM.,/:+-") == strlen(p);
}

/* A regular file that starts with the TZif magic of compiled zone files. */
static bool tz_file_ok(const char *path)
{
    char magic[4];
    struct stat sb;
    bool ok;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    ok = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && read(fd, magic, 4) == 4 &&
         memcmp(magic, "TZif", 4) == 0;
    close(fd);
    return ok;
}

/* A zone glibc can load: a compiled zone file under TZDIR (default
 * /usr/share/zoneinfo) or at an absolute path, or a POSIX rule ("UTC0", "CST-8",
 * "EST5EDT,M3.2.0,M11.1.0"). glibc silently falls back to UTC for anything else,
 * which would shift dates. "UTC" and "GMT" are what that fallback gives anyway. */
bool cal_zone_known(const char *zone)
{
    const char *name = zone[0] == ':' ? zone + 1 : zone;
    const char *dir = getenv("TZDIR");
    char path[512];

    if (!*name) return false;
    if (strcmp(name, "UTC") == 0 || strcmp(name, "GMT") == 0) return true;
    if (name[0] == '/')
        snprintf(path, sizeof(path), "%s", name);
    else if (strstr(name, "..") == NULL)
        snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", name);
    else
        path[0] = '\0';
    if (path[0] && tz_file_ok(path)) return true;
    return zone[0] != ':' && tz_rule_ok(name);
}

/* The process zone is switched to zone ("" = leave it) for a few localtime_r calls
 * and restored afterwards; the process is single-threaded. */
struct zone_switch {
    bool active;
    char *saved; /* the previous TZ, NULL if it was unset */
};

static bool zone_enter(const char *zone, struct zone_switch *zs)
{
    const char *cur = getenv("TZ");
    zs->active = false;
    zs->saved = NULL;
    if (!*zone) return true;
    if (cur && !(zs->saved = strdup(cur))) return false;
    setenv("TZ", zone, 1);
    tzset();
    zs->active = true;
    return true;
}

static void zone_leave(struct zone_switch *zs)
{
    if (!zs->active) return;
    if (zs->saved)
        setenv("TZ", zs->saved, 1);
    else
        unsetenv("TZ");
    tzset();
    free(zs->saved);
    zs->active = false;
}

/* The local date of t in the current zone; false outside CAL_YEAR_MIN … CAL_YEAR_MAX. */
static bool local_day(time_t t, int32_t *day, int *secs_into_day)
{
    struct tm tm;
    if (!localtime_r(&t, &tm)) return false;
    struct cal_date d = {tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday};
    if (!cal_date_valid(&d)) return false;
    *day = cal_day_number(&d);
    if (secs_into_day) *secs_into_day = tm.tm_hour * 3600 + tm.tm_min * 60 + (tm.tm_sec > 59 ? 59 : tm.tm_sec);
    return true;
}

/* The first instant after now that is no longer on day d: the next local midnight,
 * found by bisection when the zone's offset changes before it (a DST switch). */
static time_t day_end(time_t now, int32_t d, int secs)
{
    time_t lo = now, hi = now + (86400 - secs);
    int32_t x;
    if (local_day(hi - 1, &x, NULL) && x == d) return hi;
    hi -= 1; /* day(lo) == d, day(hi) != d */
    while (hi - lo > 1) {
        time_t mid = lo + (hi - lo) / 2;
        if (local_day(mid, &x, NULL) && x == d)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

bool cal_today(struct cal_clock *clk, const char *zone, time_t now, int32_t *day, char *err, size_t errlen)
{
    struct zone_switch zs;
    int32_t d;
    int secs;
    bool ok;

    if (clk->valid && strcmp(clk->zone, zone) == 0 && now >= clk->from && now < clk->until) {
        *day = clk->day;
        return true;
    }
    clk->valid = false;
    if (strlen(zone) >= sizeof(clk->zone) || (*zone && !cal_zone_known(zone))) {
        snprintf(err, errlen, "check-in time zone '%.64s' is not a known time zone", zone);
        return false;
    }
    if (!zone_enter(zone, &zs)) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    ok = local_day(now, &d, &secs);
    if (ok) clk->until = day_end(now, d, secs);
    zone_leave(&zs);
    if (!ok) {
        snprintf(err, errlen, "the current date is outside %d … %d", CAL_YEAR_MIN, CAL_YEAR_MAX);
        return false;
    }
    snprintf(clk->zone, sizeof(clk->zone), "%s", zone);
    clk->from = now;
    clk->day = d;
    clk->valid = true;
    *day = d;
    return true;
}
