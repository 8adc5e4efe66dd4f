#!/usr/bin/env bash
# Each workload kernel alone, under several daemon configurations at once, interleaved kernel by
# kernel so that the machine's noise falls on all of them alike; prints, per configuration, the
# median and geometric mean over the kernels of (isolated time) / (the first configuration's).
#   scripts/single-kernel.sh BUILD_DIR OUT_DIR ROUNDS NAME:POLICY[:CONFIG_FILE[:DAEMON]] ...
# e.g. scripts/single-kernel.sh build /tmp/single 4 fifo:fifo fair:fair   (bench/RESULTS.md §4)
# Isolated times: accelos-mix --iso-reps 5, single executions; per kernel, the median over rounds.
# KERNELS="BENCH:KERNEL ..." limits the run to those kernels (default: every one of accelos-bench list).
# MIX_ARGS="--mode loop --seconds 0.5" times loops instead (the mean time per execution of a loop).
# DAEMON: another accelosd binary for that configuration (a worktree build of an earlier commit).
set -euo pipefail
build=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
rounds=$3
shift 3
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$build/pocl-cache}"
export OCL_ICD_VENDORS="$build/vendors"
declare -A socket
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
names=()
for spec in "$@"; do
  IFS=: read -r name policy config daemon <<<"$spec"
  args=(--socket "$out/$name.sock" --policy "$policy")
  [[ -n ${config:-} ]] && args+=(--config "$config")
  rm -f "$out/$name.sock" "$out/iso-$name-"*.json
  "${daemon:-$build/accelosd/accelosd}" "${args[@]}" 2>"$out/$name.log" &
  pids+=($!)
  socket[$name]="$out/$name.sock"
  names+=("$name")
done
for name in "${names[@]}"; do
  for _ in $(seq 1 500); do [[ -S ${socket[$name]} ]] && break; sleep 0.02; done
  [[ -S ${socket[$name]} ]] || { cat "$out/$name.log" >&2; echo "accelosd ($name) did not start" >&2; exit 1; }
done
kernels=${KERNELS:-$("$build/bench/accelos-bench" list | awk '/^    /{print $1}')}
for round in $(seq 1 "$rounds"); do
  for kernel in $kernels; do
    for name in "${names[@]}"; do
      ACCELOS_SOCKET=${socket[$name]} "$build/bench/accelos-mix" --tenants "$kernel" --platform accelOS \
        --label "$name" ${MIX_ARGS:-} --iso-reps 5 --iso-cache "$out/iso-$name-$round.json" --out "$out/mix-$name.jsonl" \
        --quiet >/dev/null || echo "$name: $kernel failed in round $round" >&2
    done
  done
done
python3 - "$out" "${names[@]}" <<'PY'
import glob, json, math, statistics, sys
out, names = sys.argv[1], sys.argv[2:]
def load(name):
    per = {}
    for path in glob.glob(f"{out}/iso-{name}-*.json"):
        for line in open(path):
            r = json.loads(line)
            per.setdefault(r["kernel"], []).append(r["iso_ns"])
    return {k: statistics.median(v) for k, v in per.items()}
base = load(names[0])
for name in names[1:]:
    other = load(name)
    ratios = sorted((other[k] / base[k], k) for k in base if k in other)
    values = [r for r, _ in ratios]
    print(f"{name} / {names[0]}: median {statistics.median(values):.3f}, "
          f"geomean {math.exp(sum(map(math.log, values)) / len(values)):.3f} over {len(values)} kernels; "
          f"highest: " + ", ".join(f"{k} {r:.2f}" for r, k in ratios[-3:]))
PY
