#!/bin/bash
# Same-run A/B of two accelos-jit-bench binaries over bench/jit/specs: the two
# alternate, ROUNDS times each, and the per-kernel median of the direct shape's
# speed (native / direct) is compared, with geomean and worst.
#   scripts/jit-ab.sh BASE_BENCH NEW_BENCH OUTDIR [ROUNDS] [REPS]
# COLUMN picks the report's column: "speed (direct)" (wall time, the default) or
# "speed (direct, paired)" (launches alternating with native; reports since session 18).
# SPECS lists the spec files (default bench/jit/specs/*.spec), e.g.
#   SPECS="bench/jit/specs/*.spec bench/jit/specs/corpus/*.spec"
# A base binary from an older commit:
#   git worktree add /tmp/basewt REV && cmake -S /tmp/basewt -B /tmp/basewt/build \
#     && cmake --build /tmp/basewt/build --target accelos-jit-bench
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,12p' "$0"; exit 2; }
base=$1 new=$2 out=$3 rounds=${4:-3} reps=${5:-7}
cd "$(dirname "$0")/.."
mkdir -p "$out"
# SPECS is split into words and its globs expanded on purpose.
# shellcheck disable=SC2206
specs=(${SPECS:-bench/jit/specs/*.spec})
for r in $(seq "$rounds"); do
	for cfg in base new; do
		bin=$base
		[ "$cfg" = new ] && bin=$new
		"$bin" --reps "$reps" --out "$out/$cfg.$r.md" "${specs[@]}" >/dev/null
	done
done
python3 - "$out" "${COLUMN:-speed (direct)}" <<'PY'
import glob, math, statistics, sys
out, column = sys.argv[1], sys.argv[2]
def load(cfg):
    runs = {}
    for f in sorted(glob.glob(f'{out}/{cfg}.*.md')):
        col = None
        for line in open(f):
            cells = [c.strip() for c in line.strip().strip('|').split('|')]
            if line.startswith('| kernel |'):
                col = cells.index(column) if column in cells else None
            elif line.startswith('| ') and '.cl:' in line and col is not None:
                runs.setdefault(cells[0], []).append(float(cells[col]))
    if not runs:
        sys.exit(f'{out}/{cfg}.*.md: no column "{column}"')
    return runs
base, new = load('base'), load('new')
geo = lambda v: math.exp(sum(map(math.log, v)) / len(v))
mb, mn = [], []
print('| kernel | base | new |\n|---|---:|---:|')
for k in base:
    b, n = statistics.median(base[k]), statistics.median(new[k])
    mb.append(b); mn.append(n)
    print(f'| {k} | {b:.3f} | {n:.3f} |')
print(f'| **geomean** | **{geo(mb):.3f}** | **{geo(mn):.3f}** |')
print(f'| **worst** | {min(mb):.3f} | {min(mn):.3f} |')
PY
