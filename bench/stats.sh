# Sourced by the benchmark scripts: summaries of a list of times (one string, separated by
# spaces). stat: "median (min-max)", three decimals; med: the median. edit: a program's
# copy with one parameter line changed (FROM must be there).
stat() { python3 -c "import statistics,sys; v=sorted(map(float,sys.argv[1:])); print(f'{statistics.median(v):.3f} ({v[0]:.3f}-{v[-1]:.3f})')" $1; }
med() { python3 -c "import statistics,sys; print(statistics.median(map(float,sys.argv[1:])))" $1; }
edit() { # FILE FROM TO OUT
    grep -q "$2" "$1" || { echo "bench: '$2' not found in $1" >&2; exit 1; }
    sed "s/$2/$3/" "$1" >"$4"
}
