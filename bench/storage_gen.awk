# bench/storage_gen.awk — workload generators and loaders for bench/storage.sh.
#
# One program, several modes (-v mode=…). The "events" modes write the canonical
# data of a workload as plain lines; the other modes turn those lines into what
# one store loads: Redis commands in the seed's own key layout, bitmapd commands
# or request bodies in bitmapd's key layout. The same event file also feeds the
# row-per-event table (psql \copy), so all three stores hold the same data.
#
# Commands are written in RESP (arrays of bulk strings), ready for
# `redis-cli --pipe`. mawk prints large integers with %d as 2147483647, so every
# number here goes through %.0f.
#
# Modes and their variables:
#   checkin_events   n base first_day ndays rate permonth seed
#                    -> "uid day" (day = days since 1970-01-01), ascending per user.
#                    rate > 0: each day independently with that probability;
#                    else exactly `permonth` distinct random days in each month.
#   checkin_redis    "uid day" -> SETBIT user:sign:{uid}:{yyyyMM} {dom-1} 1
#   checkin_bitmapd  "uid day" -> R.SETINTARRAY checkin:{uid} day…
#   checkin_rows     "uid day" -> "uid YYYY-MM-DD streak" (streak restarts each month)
#   box_events       n base       -> "uid id": the ids of bench/common.lua's
#                    msg_id(i, j), j = 0…1824, for user base+i
#   box_redis        "uid id" -> SETBIT message:push:{uid} {id} 1
#   box_bodies       "uid id" -> one file {dir}/{uid}.json per user, and on stdout
#                    a curl config (url, data-binary, output) for each of them;
#                    needs dir and url
#   receipt_events   groups msgs members gbase mbase rate seed
#                    -> "g m k state": one line per member k of the message's
#                    group; state S (the sender), R (read), U (unread)
#   receipt_redis    -> the seed's {u32 maxid, readbit[maxid], quitbit[maxid]}:
#                    SETBIT (to size it), BITFIELD SET u32 0 maxid, SETBIT 32+k 1
#   receipt_bitmapd  -> R.SETINTARRAY group:{g}:msg:{m} with bitmapd's interleaved
#                    planes (2k counted, 2k+1 read, 2s+1 alone for the sender)
#   receipt_rows     -> "g m user_id read_at" for every counted member (\N: unread);
#                    user_id = ubase + (g - gbase)·members + k
#   receipt_http     -> for message mbase of group gbase only: curl configs
#                    {dir}/join.curl and {dir}/reads.curl; prints the sender's user id
#   notice_events    n nbase shares seed -> "nid uid", exactly share% of users
#                    0…n-1 for notice nbase+i, i-th entry of `shares` (e.g. "10 90")
#   notice_many      n nbase count readers seed -> "nid uid": notices nbase … nbase+count-1,
#                    each read by `readers` distinct users of 0…n-1 (Floyd's sample,
#                    unsorted: sort -n -k1,1 -k2,2 before the loaders)
#   notice_redis     "nid uid" -> SETBIT notice:{aud}:{nid} {uid} 1
#   notice_bodies    "nid uid" -> {dir}/notice-{nid}.json bodies for POST /v1/notices
#                    (audience aud, the users as preread); prints the file names
#
# Redis allocates a new key at its exact length, but a string that SETBIT extends
# step by step can end up larger (Redis 7.0.15 here: a 1.25 MB key grown in 10,000
# steps held 1.84 MB, the same key set at once 1.31 MB). So every Redis loader sets
# a key's highest bit first: what is measured is the least memory Redis can hold
# the data in, not what a key grown bit by bit may cost.

function resp(n,    i, s) { # writes argv[1..n] as one RESP command
    s = "*" n "\r\n"
    for (i = 1; i <= n; i++) s = s "$" length(argv[i]) "\r\n" argv[i] "\r\n"
    printf "%s", s
}
function cmd4(a, b, c, d) {
    printf "*4\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", \
        length(a), a, length(b), b, length(c), c, length(d), d
}
function num(x) { return sprintf("%.0f", x) }

# The rest of a curl config entry (curl -K): a JSON POST whose status goes to stdout.
# Entries are separated by "next" (curl_next), which makes each a request of its
# own: options would otherwise add up (several data options are joined with "&"
# into one body). A "next" after the last entry would be an entry without a URL.
function curl_tail() {
    return "request = \"POST\"\nheader = \"Content-Type: application/json\"\n" \
        "write-out = \"%{http_code}\\n\"\n"
}
function curl_next(f) { if (f in entries) return "next\n"; entries[f] = 1; return "" }

# Civil date of a day number (days since 1970-01-01, >= 0), as Y, M, D globals.
function civil(day,    z, era, doe, yoe, doy, mp) {
    z = day + 719468
    era = int(z / 146097)
    doe = z - era * 146097
    yoe = int((doe - int(doe / 1460) + int(doe / 36524) - int(doe / 146096)) / 365)
    Y = yoe + era * 400
    doy = doe - (365 * yoe + int(yoe / 4) - int(yoe / 100))
    mp = int((5 * doy + 2) / 153)
    D = doy - int((153 * mp + 2) / 5) + 1
    M = mp < 10 ? mp + 3 : mp - 9
    if (M <= 2) Y++
}

# bench/common.lua's id formula (Park–Miller mixing; products stay below 2^53).
function mix(x,    h) {
    h = (x % 2147483646) + 1
    h = (h * 48271) % 2147483647
    h = (h * 48271) % 2147483647
    return h
}
function msg_id(u, j) { return j * 5479 + mix(u * 1825 + j) % 5479 }

# Exactly k of 0…n-1, in ascending order, into chosen[] (selection sampling).
function choose(k, n,    i, left) {
    for (i in chosen) delete chosen[i]
    left = k
    for (i = 0; i < n && left > 0; i++)
        if (rand() * (n - i) < left) { chosen[i] = 1; left-- }
}

# --- per-user buffering for the loaders that need a user's whole set ---------------

function flush_user(    i, key, mon, hi, j, parts, np, s) {
    if (cur == "") return
    if (mode == "checkin_redis") {
        # per month, highest day first (exact allocation, see above)
        for (i = cnt; i >= 1; i--) {
            if (!(vals[i] in month_of)) { civil(vals[i]); month_of[vals[i]] = sprintf("%04d%02d", Y, M); dom_of[vals[i]] = D }
            cmd4("SETBIT", "user:sign:" cur ":" month_of[vals[i]], dom_of[vals[i]] - 1, 1)
        }
    } else if (mode == "checkin_bitmapd") {
        argv[1] = "R.SETINTARRAY"; argv[2] = "checkin:" cur
        for (i = 1; i <= cnt; i++) argv[i + 2] = vals[i]
        resp(cnt + 2)
    } else if (mode == "box_redis") {
        for (i = cnt; i >= 1; i--) cmd4("SETBIT", "message:push:" cur, vals[i], 1)
    } else if (mode == "box_bodies") {
        s = "{\"messages\":["
        for (i = 1; i <= cnt; i++) s = s (i > 1 ? "," : "") vals[i]
        printf "%s]}", s > (dir "/" cur ".json")
        close(dir "/" cur ".json")
        printf "%s", curl_next("stdout")
        printf "url = \"%s/v1/users/%s/pushes\"\ndata-binary = \"@%s/%s.json\"\n", url, cur, dir, cur
        printf "output = \"%s/%s.out\"\n", dir, cur
        printf "%s", curl_tail()
    } else if (mode == "notice_redis") {
        for (i = cnt; i >= 1; i--) cmd4("SETBIT", "notice:" aud ":" cur, vals[i], 1)
    } else if (mode == "notice_bodies") {
        s = "{\"id\":" cur ",\"audiences\":[" aud "],\"preread\":["
        for (i = 1; i <= cnt; i++) s = s (i > 1 ? "," : "") vals[i]
        printf "%s]}", s > (dir "/notice-" cur ".json")
        close(dir "/notice-" cur ".json")
        print dir "/notice-" cur ".json"
    }
    cnt = 0
}

# receipt loaders: one message's members at a time
function flush_msg(    k, key, n, sender) {
    if (cur == "") return
    key = "group:" cur_g ":msg:" cur_m
    if (mode == "receipt_redis") {
        cmd4("SETBIT", key, 32 + 2 * members - 1, 0)
        argv[1] = "BITFIELD"; argv[2] = key; argv[3] = "SET"; argv[4] = "u32"; argv[5] = 0
        argv[6] = members
        resp(6)
        for (k = members - 1; k >= 0; k--) if (st[k] == "R") cmd4("SETBIT", key, 32 + k, 1)
    } else if (mode == "receipt_bitmapd") {
        argv[1] = "R.SETINTARRAY"; argv[2] = key; n = 2
        for (k = 0; k < members; k++) {
            if (st[k] == "S") { argv[++n] = 2 * k + 1; continue }
            argv[++n] = 2 * k
            if (st[k] == "R") argv[++n] = 2 * k + 1
        }
        resp(n)
    }
    for (k in st) delete st[k]
}

BEGIN {
    srand(seed == "" ? 1 : seed)
    read_at = "2025-06-01T12:00:00Z"
    if (mode == "checkin_events") {
        for (i = 0; i < n; i++) {
            u = num(base + i)
            if (rate > 0) {
                for (d = 0; d < ndays; d++) if (rand() < rate) print u, num(first_day + d)
            } else {
                # month by month: the days of each month, then permonth of them
                d = 0
                while (d < ndays) {
                    civil(first_day + d); m0 = M; len = 0
                    while (d + len < ndays) { civil(first_day + d + len); if (M != m0) break; len++ }
                    choose(permonth < len ? permonth : len, len)
                    for (j = 0; j < len; j++) if (j in chosen) print u, num(first_day + d + j)
                    d += len
                }
            }
        }
        exit
    }
    if (mode == "box_events") {
        for (i = 0; i < n; i++)
            for (j = 0; j < 1825; j++) print num(base + i), num(msg_id(i, j))
        exit
    }
    if (mode == "receipt_events") {
        for (g = 0; g < groups; g++)
            for (m = 0; m < msgs; m++) {
                s = int(rand() * members)
                for (k = 0; k < members; k++)
                    print num(gbase + g), num(mbase + m), k, (k == s ? "S" : (rand() < rate ? "R" : "U"))
            }
        exit
    }
    if (mode == "notice_many") {
        for (i = 0; i < count; i++) {
            for (u in chosen) delete chosen[u]
            for (j = n - readers; j < n; j++) { # Floyd: k distinct of 0 … n-1 in O(k)
                t = int(rand() * (j + 1))
                if (t in chosen) t = j
                chosen[t] = 1
            }
            for (u in chosen) print num(nbase + i), u
        }
        exit
    }
    if (mode == "notice_events") {
        ns = split(shares, share, " ")
        for (i = 1; i <= ns; i++) {
            choose(int(n * share[i] / 100 + 0.5), n)
            for (u = 0; u < n; u++) if (u in chosen) print num(nbase + i - 1), u
        }
        exit
    }
    cur = ""; cnt = 0
}

mode ~ /^(checkin_redis|checkin_bitmapd|box_redis|box_bodies|notice_redis|notice_bodies)$/ {
    if ($1 != cur) { flush_user(); cur = $1 }
    vals[++cnt] = $2
    next
}

mode == "receipt_redis" || mode == "receipt_bitmapd" {
    if ($1 ":" $2 != cur) { flush_msg(); cur = $1 ":" $2; cur_g = $1; cur_m = $2 }
    st[$3] = $4
    next
}

mode == "checkin_rows" {
    # the seed's t_user_sign: date and the streak in its month (amount)
    civil($2)
    if ($1 == cur && $2 == prev + 1 && D > 1) streak++; else streak = 1
    cur = $1; prev = $2
    printf "%s %04d-%02d-%02d %d\n", $1, Y, M, D, streak
    next
}

# the first message of the first group, through HTTP: {dir}/join.curl (members join
# in member-id order), {dir}/reads.curl (its read marks); prints the sender's user id
mode == "receipt_http" {
    if ($1 != gbase || $2 != mbase) next
    u = num(ubase + $3)
    printf "%s", curl_next("join") > (dir "/join.curl")
    printf "url = \"%s/v1/groups/%s/members\"\ndata = \"{\\\"user\\\":%s}\"\noutput = \"/dev/null\"\n", url, $1, u > (dir "/join.curl")
    printf "%s", curl_tail() > (dir "/join.curl")
    if ($4 == "S") print u
    if ($4 == "R") {
        printf "%s", curl_next("reads") > (dir "/reads.curl")
        printf "url = \"%s/v1/groups/%s/messages/%s/reads\"\ndata = \"{\\\"user\\\":%s}\"\noutput = \"/dev/null\"\n", url, $1, $2, u > (dir "/reads.curl")
        printf "%s", curl_tail() > (dir "/reads.curl")
    }
    next
}

mode == "receipt_rows" {
    if ($4 != "S") print $1, $2, num(ubase + ($1 - gbase) * members + $3), ($4 == "R" ? read_at : "\\N")
    next
}

END {
    if (mode ~ /^(checkin_redis|checkin_bitmapd|box_redis|box_bodies|notice_redis|notice_bodies)$/) flush_user()
    if (mode == "receipt_redis" || mode == "receipt_bitmapd") flush_msg()
}
