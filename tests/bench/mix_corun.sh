#!/bin/sh
# Loop mode keeps every tenant executing until all have finished counting:
# tpacf's one execution (about 0.1 s alone) outlasts the 0.03 s window, and
# sgemm, done counting long before, runs beside it until it ends instead of
# leaving it the device. Its extra executions are recorded as co-run work.
mix=$1 report=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir" || exit 1
"$mix" --tenants sgemm:mysgemmNT,tpacf --mode loop --seconds 0.03 --platform Portable --label tc --quiet \
	--iso-reps 1 --iso-cache "$dir/iso.jsonl" --out "$dir/runs.jsonl" || { echo "mix failed"; exit 1; }
cat "$dir/runs.jsonl"
field() { sed -n "/\"kernel\":\"$1\"/s/.*\"$2\":\([0-9]*\).*/\1/p" "$dir/runs.jsonl"; }
corun=$(field sgemm:mysgemmNT corun_execs)
busy_until=$(field sgemm:mysgemmNT corun_end_ns)
long_end=$(field tpacf end_ns)
short_end=$(field sgemm:mysgemmNT end_ns)
[ -n "$corun" ] && [ "$corun" -gt 0 ] || { echo "sgemm ran no co-run executions"; exit 1; }
[ -n "$long_end" ] && [ -n "$short_end" ] && [ "$long_end" -gt "$short_end" ] ||
	{ echo "tpacf's execution should outlast sgemm's counted ones"; exit 1; }
# sgemm stopped at most one of its executions (a few ms; 50 ms for a loaded machine) before tpacf's end.
[ $((long_end - busy_until)) -lt 50000000 ] ||
	{ echo "sgemm stopped $(((long_end - busy_until) / 1000000)) ms before tpacf ended"; exit 1; }
[ "$(grep -c '"corun_execs"' "$dir/runs.jsonl")" = 1 ] || { echo "tpacf, the last to count, ran no co-run"; exit 1; }
"$report" "$dir/runs.jsonl" > "$dir/report.txt" || { echo "report failed"; exit 1; }
cat "$dir/report.txt"
echo "co-run ok"
