# bench/chart.gp — throughput against client count, SETBIT and GETBIT side by side.
# gnuplot -c bench/chart.gp DIR OUT.png ["CLIENT COUNTS" ["KEYS"]]
# DIR holds chart-{SETBIT,GETBIT}-{bitmapd,redis-fsync,redis-memory,naive}.dat,
# each "clients requests_per_second" per line (medians, written by bench/resp.sh);
# an empty file is a series that was not measured.
dir = ARG1
out = ARG2

set terminal pngcairo size 1200,560 font "DejaVu Sans,10"
set output out
set datafile separator whitespace
set logscale xy
set xlabel "clients (connections)"
set ylabel "requests per second (median)"
set format y "%.0s%c"
set grid xtics ytics mxtics mytics lc rgb "#dddddd"
set key below horizontal maxcols 2 width 2
set bmargin 8
set offsets graph 0.05, graph 0.08, 0, 0

f(cmd, t) = sprintf("%s/chart-%s-%s.dat", dir, cmd, t)

# Optional third argument: the client counts, as tics ("1 10 50 100").
if (ARGC >= 3) {
    set xtics () nomirror
    do for [c in ARG3] { set xtics add (c int(c)) }
}

# Line styles, the same system in the same colour in both panels.
set style line 1 lc rgb "#1f77b4" lw 2 pt 7 ps 1.2   # bitmapd
set style line 2 lc rgb "#d62728" lw 2 pt 5 ps 1.1   # redis, appendfsync always
set style line 3 lc rgb "#ff7f0e" lw 2 pt 9 ps 1.3   # redis, in memory
set style line 4 lc rgb "#7f7f7f" lw 2 pt 13 ps 1.2  # naive seed-000 design

keys = (ARGC >= 4) ? ARG4 : "random"
set multiplot layout 1,2 title sprintf("SETBIT and GETBIT over %s random keys, one machine, same run (bench/resp.sh)", keys)

set title "SETBIT (durable: bitmapd, redis appendfsync always, naive)"
plot f("SETBIT", "bitmapd")      using 1:2 with linespoints ls 1 title "bitmapd (RESP)", \
     f("SETBIT", "redis-fsync")  using 1:2 with linespoints ls 2 title "redis-server, appendfsync always", \
     f("SETBIT", "redis-memory") using 1:2 with linespoints ls 3 title "redis-server, in memory", \
     f("SETBIT", "naive")        using 1:2 with linespoints ls 4 title "naive seed-000 (SELECT + UPDATE)"

set title "GETBIT"
plot f("GETBIT", "bitmapd")      using 1:2 with linespoints ls 1 title "bitmapd (RESP)", \
     f("GETBIT", "redis-fsync")  using 1:2 with linespoints ls 2 title "redis-server, appendfsync always", \
     f("GETBIT", "redis-memory") using 1:2 with linespoints ls 3 title "redis-server, in memory"

unset multiplot
