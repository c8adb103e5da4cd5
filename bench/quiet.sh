# Sourced by the benchmark scripts: waitquiet waits (at most QUIET_WAIT seconds, default 60)
# until the cores are idle (90% idle over one second), since the machine may be shared; a
# run started on a busy machine anyway is counted in BUSY.
QUIET_WAIT=${QUIET_WAIT:-60}
BUSY=0
cpu() { awk '/^cpu /{print $2+$3+$4+$5+$6+$7+$8+$9, $5+$6}' /proc/stat; }
waitquiet() {
    local t0 i0 t1 i1 waited=0
    while :; do
        read -r t0 i0 < <(cpu)
        sleep 1
        read -r t1 i1 < <(cpu)
        [ $((100 * (i1 - i0) / (t1 - t0 + 1))) -ge 90 ] && return 0
        waited=$((waited + 1))
        [ "$waited" -ge "$QUIET_WAIT" ] && { BUSY=$((BUSY + 1)); return 0; }
    done
}
