#!/bin/sh
# A tenant that dies after the start gate marks its run failed; the other
# tenant still finishes and the report shows the mix as FAILED.
mix=$1 report=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir" || exit 1
ACCELOS_MIX_CRASH_TENANT=1 "$mix" --tenants sgemm:mysgemmNT,stencil --platform Portable --label crash \
	--quiet --iso-reps 1 --iso-cache "$dir/iso.jsonl" --out "$dir/runs.jsonl" 2>"$dir/stderr"
rc=$?
[ "$rc" = 1 ] || { echo "expected exit 1, got $rc"; exit 1; }
# --quiet hides the progress bars, not the failure and its reason.
grep -q 'mix 0 run 0 tenant 1 failed: ' "$dir/stderr" || { echo "no failure message:"; cat "$dir/stderr"; exit 1; }
grep -q '"tenant":0,"tenants":2,"kernel":"sgemm:mysgemmNT","status":"ok"' "$dir/runs.jsonl" || { cat "$dir/runs.jsonl"; exit 1; }
grep -q '"tenant":1,"tenants":2,"kernel":"stencil","status":"failed"' "$dir/runs.jsonl" || { cat "$dir/runs.jsonl"; exit 1; }
"$report" "$dir/runs.jsonl" | grep -q 'FAILED (1 of 1 runs failed)' || { echo "report does not show the failure"; exit 1; }
echo "crash handled"
