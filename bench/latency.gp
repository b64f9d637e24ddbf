# SPDX-License-Identifier: MIT
# gnuplot: distributions of the 1 ms one-shot expiry latency, kernel against emulation.
set terminal pngcairo size 900,500
set output outfile
set title "1 ms one-shot: how late the reader wakes (1,000 runs each, interleaved)"
set xlabel "microseconds after the due time"
set ylabel "fraction of runs (cumulative)"
set key bottom right
set grid
set xrange [0:*]
stats datafile using 1 nooutput
n = STATS_records
plot datafile using 1:(1.0/n) smooth cumulative title "kernel timerfd" lw 2, \
     datafile using 2:(1.0/n) smooth cumulative title "libtimerfd emulation" lw 2
