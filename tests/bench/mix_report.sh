#!/bin/sh
# A 2-tenant mix (separate processes) yields two successful records that
# the report turns into one 2-tenant mix with a finite unfairness >= 1.
mix=$1 report=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir" || exit 1
"$mix" --tenants sgemm:mysgemmNT,spmv --platform Portable --label t2 --quiet \
	--iso-reps 1 --iso-cache "$dir/iso.jsonl" --out "$dir/runs.jsonl" || { echo "mix failed"; exit 1; }
n=$(grep -c '"status":"ok"' "$dir/runs.jsonl")
[ "$n" = 2 ] || { echo "expected 2 ok records, got $n"; cat "$dir/runs.jsonl"; exit 1; }
grep -q '"kernel":"sgemm:mysgemmNT"' "$dir/runs.jsonl" || exit 1
grep -q '"tenants":2' "$dir/runs.jsonl" || exit 1
[ "$(wc -l < "$dir/iso.jsonl")" = 2 ] || { echo "isolated cache should hold 2 entries"; exit 1; }
"$report" "$dir/runs.jsonl" > "$dir/report.txt" || { echo "report failed"; exit 1; }
cat "$dir/report.txt"
# Row: mix 0, 2 tenants, 1 run, unfairness >= 1 (a number, not FAILED).
grep -Eq '^ +0 +2 +1 +[1-9][0-9]*\.[0-9]+ .*sgemm:mysgemmNT,spmv$' "$dir/report.txt" || { echo "bad mix row"; exit 1; }
grep -Eq '^ +2 +1 +0 ' "$dir/report.txt" || { echo "bad group row"; exit 1; }
# Shared-context baseline produces the same schema.
"$mix" --tenants sgemm:mysgemmNT,spmv --platform Portable --shared-context --label t2s --quiet \
	--iso-reps 1 --iso-cache "$dir/iso.jsonl" --out "$dir/shared.jsonl" || { echo "shared mix failed"; exit 1; }
[ "$(grep -c '"mode":"shared-context","mix":0' "$dir/shared.jsonl")" = 2 ] || exit 1
"$report" --compare t2 t2s "$dir/runs.jsonl" "$dir/shared.jsonl" | grep -Eq '^ +2 +1 +[0-9.]+ +[0-9.]+$' || { echo "compare failed"; exit 1; }
echo "mix ok"
