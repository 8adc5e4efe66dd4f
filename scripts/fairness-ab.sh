#!/usr/bin/env bash
# Compares daemon configurations on the same seeded random mixes of the workload suite, each
# tenant a separate process going through ProxyCL. The configurations run in turn within each
# round (every other round in reverse), round after round, because on a shared VM a whole round's
# geomean moves by more than most changes do: only runs made side by side in time compare. Every
# run of a tenant count is then scored against the same isolated times (accelos-report
# --common-iso), and each configuration's median over the rounds is printed (bench/RESULTS.md §4).
#
#   scripts/fairness-ab.sh BUILD_DIR OUT_DIR ROUNDS "KS" NAME=SPEC [NAME=SPEC ...]
#
# KS        tenant counts, e.g. "2 4 8"; COUNT_2, COUNT_4, COUNT_8 set the mixes of each (20, 10, 6)
# NAME      letters, digits and _; records are labelled NAME-rROUND
# SPEC      POLICY[:CONFIG_FILE[:DAEMON]]: the policy, a daemon configuration file, another
#           accelosd binary (for example a worktree build of an earlier commit)
# ENV_NAME  "VAR=value ..." for that configuration's daemon and tenants (temporary switches)
# MIX_ARGS  accelos-mix options, default "--mode loop --seconds 1" (the steady state)
# e.g. scripts/fairness-ab.sh build /tmp/ab 2 "2 4 8" fifo=fifo fair=fair
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage() {
  sed -n '9,17p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
[[ $# -ge 5 ]] || usage
build=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
rounds=$3
read -r -a counts <<<"$4"
shift 4
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a positive number, not '$rounds'" >&2; exit 2; }
[[ ${#counts[@]} -gt 0 ]] || { echo "no tenant counts given" >&2; exit 2; }
for k in "${counts[@]}"; do
  [[ $k =~ ^[1-9][0-9]*$ ]] || { echo "a tenant count must be a positive number, not '$k'" >&2; exit 2; }
done
names=()
declare -A policy config daemon
for arg in "$@"; do
  name=${arg%%=*}
  spec=${arg#*=}
  [[ $arg == *=* && $name =~ ^[A-Za-z0-9_]+$ && -n $spec ]] || { echo "bad configuration '$arg' (NAME=SPEC)" >&2; exit 2; }
  [[ -z ${policy[$name]+set} ]] || { echo "configuration $name given twice" >&2; exit 2; }
  IFS=: read -r "policy[$name]" "config[$name]" "daemon[$name]" <<<"$spec"
  [[ -z ${config[$name]} || -f ${config[$name]} ]] || { echo "$name: no configuration file ${config[$name]}" >&2; exit 2; }
  [[ -z ${daemon[$name]} || -x ${daemon[$name]} ]] || { echo "$name: no daemon ${daemon[$name]}" >&2; exit 2; }
  names+=("$name")
done
mix_args=${MIX_ARGS:---mode loop --seconds 1}

for round in $(seq 1 "$rounds"); do
  for k in "${counts[@]}"; do
    count_var=COUNT_$k
    case $k in 1 | 2) count=20 ;; 3 | 4) count=10 ;; *) count=6 ;; esac
    count=${!count_var:-$count}
    order=("${names[@]}")
    if ((round % 2 == 0)); then # every other round in reverse: no configuration always runs first
      order=()
      for ((i = ${#names[@]} - 1; i >= 0; i--)); do order+=("${names[i]}"); done
    fi
    for name in "${order[@]}"; do
      env_var=ENV_$name
      dir="$out/$name-$k-r$round"
      # ENV_NAME and MIX_ARGS are split into words on purpose (several settings and options).
      # shellcheck disable=SC2086
      if ! env ${!env_var:-} ACCELOS_POLICY="${policy[$name]}" ACCELOS_CONFIG="${config[$name]}" \
        ACCELOS_DAEMON="${daemon[$name]}" bash "$here/mix-through-proxy.sh" "$build" "$dir" "" \
        --random "$k" --count "$count" --seed "$k" --mix-base $((k * 100)) --iso-reps 3 $mix_args \
        --label "$name-r$round" >"$dir.txt" 2>&1; then
        echo "$name, $k tenants, round $round failed (log: $dir.txt)" >&2
        exit 1
      fi
      echo "round $round: $k tenants under $name done" >&2
    done
  done
done

# One report per tenant count over every run of it; its "by tenant count" row per configuration.
for k in "${counts[@]}"; do
  files=()
  for name in "${names[@]}"; do
    for round in $(seq 1 "$rounds"); do files+=("$out/$name-$k-r$round/mix.jsonl"); done
  done
  "$build/bench/accelos-report" --common-iso "${files[@]}" >"$out/report-$k.txt"
  echo "--- $k tenants (geomean over mixes, scored together: $out/report-$k.txt) ---"
  awk -v k="$k" '
    /^configuration / { conf = $2; sub(/:$/, "", conf) }
    /^ ten +mixes/ { row = 1; next }
    row && $1 == k { split(conf, p, "-r"); line[p[1]] = line[p[1]] sprintf(" r%s %s/%s/%s", p[2], $4, $6, $8)
                     u[p[1]] = u[p[1]] " " $4; s[p[1]] = s[p[1]] " " $6; row = 0 }
    function median(list,   v, n, i, j, t) {
      n = split(list, v, " ")
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
      return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    END {
      printf "%-12s %12s %8s   %s\n", "config", "unfairness", "STP", "per round: unfairness/STP/worst ANTT"
      for (c in line) printf "%-12s %12.3f %8.3f  %s\n", c, median(u[c]), median(s[c]), line[c]
    }' "$out/report-$k.txt" | { read -r header; echo "$header"; sort; }
done
