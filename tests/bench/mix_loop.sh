#!/bin/sh
# Loop mode: each tenant repeats its kernel for the given time. Every record
# covers more than one execution, isolated times are cached under a loop key
# (per-execution, steady state), and the report gives one 2-tenant mix.
mix=$1 report=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir" || exit 1
"$mix" --tenants sgemm:mysgemmNT,spmv --mode loop --seconds 0.5 --platform Portable --label tl --quiet \
	--iso-reps 1 --iso-cache "$dir/iso.jsonl" --out "$dir/runs.jsonl" || { echo "mix failed"; exit 1; }
cat "$dir/runs.jsonl"
[ "$(grep -c '"status":"ok"' "$dir/runs.jsonl")" = 2 ] || { echo "expected 2 ok records"; exit 1; }
for n in $(sed -n 's/.*"execs":\([0-9]*\).*/\1/p' "$dir/runs.jsonl"); do
	[ "$n" -gt 1 ] || { echo "a loop record covers only $n execution(s)"; exit 1; }
done
grep -q '"tl/loop0.5s"' "$dir/iso.jsonl" || { echo "isolated times not keyed by loop mode"; cat "$dir/iso.jsonl"; exit 1; }
"$report" "$dir/runs.jsonl" > "$dir/report.txt" || { echo "report failed"; exit 1; }
cat "$dir/report.txt"
grep -Eq '^ +2 +1 +0 +[1-9][0-9]*\.[0-9]+ ' "$dir/report.txt" || { echo "bad group row"; exit 1; }
echo "loop ok"
