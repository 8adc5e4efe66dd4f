#!/bin/sh
# The report renders its three plots as real PNG files through gnuplot.
report=$1 records=$2 dir=$3
command -v gnuplot >/dev/null 2>&1 || { echo "gnuplot is not installed (scripts/install-deps.sh installs it)"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || exit 1
"$report" --compare opencl accelos --plot-dir "$dir" "$records" || exit 1
"$report" --config opencl --timeline 0 --plot-dir "$dir" "$records" || exit 1
for f in unfairness improvement timeline-mix0; do
	head -c 4 "$dir/$f.png" | od -c | grep -q 'P   N   G' || { echo "$f.png is not a PNG"; exit 1; }
done
echo "plots ok"
