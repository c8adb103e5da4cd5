#!/usr/bin/env bash
# The CUDA path on a real GPU (issue 18.7), in two steps, because the GPU machine has no
# Rust, gfortran or Open MPI and the build machine has no GPU:
#
#   bash bench/gpu_check.sh bundle BUNDLE [NPB3.3-SER-DIR] [CLASSES] [BENCHMARKS]
#       here: `sapfor --auto` (default target, regions) and `sapfor build` of every sample
#       and, given an NPB3.3-SER tree (fetched, never committed), of its benchmarks; the
#       sequential gfortran builds; the outputs of each program on the host and on the
#       emulated accelerator (`SAPFOR_DEVICES=emu`) run here; the shared libraries the
#       executables need that a CUDA machine may lack (libgfortran, Open MPI's libmpi: a
#       one-process run never starts MPI, but the executable links it); the CUDA device test.
#       KEEP=1 adds to an existing bundle (another class, other benchmarks); SAMPLES="jacobi
#       heat3d" takes only those samples ("" none); NOHERE=1 skips the runs here.
#   bash bench/gpu_check.sh run BUNDLE OUTDIR
#       on the GPU machine: the device test, then every program with its regions on the
#       host (no accelerator), on the GPU (`SAPFOR_DEVICES=cuda`, with the performance
#       report) and on the GPU with every region loop also run on the host and compared
#       (`SAPFOR_COMPARE`), and with CONFIGS naming cuda-np2, on two processes sharing the GPU
#       (the machine's mpirun); prints one table (OUTDIR/summary.md) and keeps every output and
#       report in OUTDIR. CONFIGS="host cuda" leaves the comparison out; PROGRAMS="npb-*.S
#       jacobi" runs only the programs matching one of these patterns.
#
# A sample's output must equal its expected.out; an NPB program must print
# `Verification = SUCCESSFUL`. Times are wall-clock seconds of the whole run (NPB: its own
# "Time in seconds"); TIMEOUT (default 60) limits each run there. Results: bench/README.md ("On a GPU").
set -u -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TIMEOUT=${TIMEOUT:-60}   # seconds per run on the GPU machine

usage() {
    sed -n '2,25p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

# The libraries an executable needs beyond the C library and the C++ runtime (both present,
# newer, on any machine with CUDA).
copy_libs() {
    local dest=$1
    shift
    ldd "$@" | awk '/=> \// {print $3}' | sort -u | while read -r lib; do
        case $(basename "$lib") in
        libc.so* | libm.so* | libmvec.so* | libpthread.so* | libdl.so* | librt.so* | ld-linux* | libstdc++.so* | libgcc_s.so*) ;;
        *) cp -L "$lib" "$dest/" ;;
        esac
    done
}

bundle() {
    local B=$1 NPB=${2:-} CLASSES=${3:-S} BENCHES=${4:-"BT CG EP FT LU MG SP UA"}
    [ -n "$B" ] || usage
    mkdir -p "$B"
    B=$(cd "$B" && pwd)
    [ -n "${KEEP:-}" ] || rm -rf "${B:?}"/{bin,lib,expect,here,tests}
    mkdir -p "$B"/{bin,lib,expect,here,tests}
    local TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
    echo "gpu_check: building sapfor and the runtime library (release)"
    (cd "$ROOT" && cargo build -q --release -p shell-gui -p sapfor-rt </dev/null) || exit 1
    local SAPFOR=$TARGET/release/sapfor
    # the device test binary (runtime/rtlib/tests/device.rs)
    local t
    t=$(cd "$ROOT" && cargo test -q --release -p sapfor-rt --test device --no-run --message-format=json 2>/dev/null |
        python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "device":
        print(m["executable"])' | tail -1)
    [ -n "$t" ] || { echo "gpu_check: the device test did not build" >&2; exit 1; }
    cp "$t" "$B/tests/device"
    local W
    W=$(mktemp -d "${TMPDIR:-/tmp}/sapfor-gpucheck.XXXXXX")
    trap 'rm -rf "$W"' RETURN
    export SAPFOR_CACHE=$W/cache
    # here: the host and the emulator (the same executable; the emulator needs g++)
    here_runs() {
        local name=$1 exe=$2 dir=$3
        [ -z "${NOHERE:-}" ] || return 0
        for dev in host emu; do
            local devs=
            [ "$dev" = emu ] && devs=emu
            (cd "$dir" && SAPFOR_NO_MPI=1 OMP_NUM_THREADS=1 SAPFOR_DEVICES=$devs timeout 900 "$exe" >"$B/here/$name.$dev.out" 2>&1) ||
                echo "gpu_check: $name on $dev here: exit $?" >&2
        done
    }
    for s in "$ROOT"/samples/*/; do
        local name src
        name=$(basename "$s")
        [[ " ${SAMPLES-$name} " == *" $name "* ]] || continue
        src=$(ls "$s"/*.f "$s"/*.f90 2>/dev/null | head -1)
        mkdir -p "$W/$name"
        cp "$src" "$W/$name/"
        (cd "$W/$name" && "$SAPFOR" --auto "$(basename "$src")" --no-db -o prog.fdv >auto.out 2>&1 &&
            "$SAPFOR" build prog.fdv -o "$B/bin/$name" >build.out 2>&1) || {
            cat "$W/$name"/*.out >&2
            exit 1
        }
        cp "$s/expected.out" "$B/expect/$name.out"
        here_runs "$name" "$B/bin/$name" "$W/$name"
        echo "gpu_check: $name: $(grep -ci '^ *[c!*]dvm\$ *region' "$W/$name/prog.fdv") regions"
    done
    if [ -n "$NPB" ]; then
        NPB=$(cd "$NPB" && pwd)
        if [ ! -f "$NPB/config/make.def" ]; then
            sed -e 's/^F77 = f77/F77 = gfortran/' -e 's/^FFLAGS\t= -O/FFLAGS = -O2/' \
                -e 's/^FLINKFLAGS = -O/FLINKFLAGS = -O2/' -e 's/^RAND   = randi8/RAND = randdp/' \
                "$NPB/config/make.def.template" >"$NPB/config/make.def"
        fi
        mkdir -p "$NPB/bin"
        for c in $CLASSES; do
            for b in $BENCHES; do
                local lb name files fdvs
                lb=$(echo "$b" | tr 'A-Z' 'a-z')
                name=npb-$lb.$c
                make -C "$NPB" "$b" CLASS="$c" >"$W/$name.make.log" 2>&1 || {
                    echo "gpu_check: $name: the sequential build failed" >&2
                    continue
                }
                cp "$NPB/bin/$lb.$c.x" "$B/bin/$name.seq"
                files=$(python3 "$ROOT/bench/npb_objs.py" "$NPB/$b/Makefile")
                rm -rf "$W/$name" && mkdir -p "$W/$name"
                (cd "$NPB/$b" && "$SAPFOR" --auto $files --no-db --out-dir "$W/$name/fdv" >"$W/$name/auto.out" 2>&1) || {
                    echo "gpu_check: $name: --auto failed" >&2
                    continue
                }
                fdvs=""
                for f in $files; do
                    case $f in
                    *.c) fdvs="$fdvs $NPB/$b/$f" ;;
                    *) f=$(basename "$f") && fdvs="$fdvs $W/$name/fdv/${f%.*}.fdv" ;;
                    esac
                done
                (cd "$NPB/$b" && "$SAPFOR" build -I . $fdvs -o "$B/bin/$name" >"$W/$name/build.out" 2>&1) || {
                    echo "gpu_check: $name: sapfor build failed" >&2
                    cat "$W/$name/build.out" >&2
                    continue
                }
                echo "gpu_check: $name: $(cat "$W/$name"/fdv/*.fdv | grep -ci '^ *[c!*]dvm\$ *region') regions"
                here_runs "$name" "$B/bin/$name" "$W/$name"
            done
        done
    fi
    copy_libs "$B/lib" "$B"/bin/* "$B/tests/device"
    strip --strip-debug "$B"/bin/* "$B/tests/device"
    du -sh "$B"
}

# An output without the lines that hold times, rates and dates.
stable() { grep -v -i 'time in seconds\|mop/s\|compile date\|run date\|mflops\|time *=\|seconds'; }

# The status word of one run: ok when the output is right, else why not.
verdict() {
    local name=$1 out=$2 rc=$3
    if [ "$rc" = 124 ]; then
        echo "timeout"
    elif [ -f "$B/expect/$name.out" ]; then
        if cmp -s "$out" "$B/expect/$name.out"; then echo ok; else echo "DIFFERS (exit $rc)"; fi
    elif grep -qi "verification *= *successful" "$out"; then
        echo ok
    else
        echo "FAILED (exit $rc)"
    fi
}

run() {
    B=$1
    local O=$2
    [ -d "$B/bin" ] || usage
    B=$(cd "$B" && pwd)
    mkdir -p "$O"
    O=$(cd "$O" && pwd)
    export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    {
        echo "## machine"
        nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
        nproc
    } >"$O/machine.txt"
    # NVRTC: the runtime finds it on the loader's path or in /usr/local/cuda by itself; only
    # elsewhere (a Python wheel of another CUDA version) is it named here
    if [ -z "${SAPFOR_NVRTC:-}" ] && ! ldconfig -p | grep -q libnvrtc &&
        ! ls /usr/local/cuda/lib64/libnvrtc.so* /usr/local/cuda/targets/x86_64-linux/lib/libnvrtc.so* >/dev/null 2>&1; then
        local n
        n=$(find / -xdev -name 'libnvrtc.so.[0-9]*' 2>/dev/null | grep -v builtins | sort -V | head -1)
        if [ -n "$n" ]; then
            export SAPFOR_NVRTC=$n
            export LD_LIBRARY_PATH=$(dirname "$n"):$LD_LIBRARY_PATH
        fi
    fi
    echo "NVRTC: ${SAPFOR_NVRTC:-found by the runtime}"; ls /usr/local/cuda/lib64/libnvrtc* 2>/dev/null >>"$O/machine.txt"
    cat "$O/machine.txt"
    export SAPFOR_CACHE_DIR=$O/cache
    echo "## device test"
    timeout 120 "$B/tests/device" --nocapture --test-threads 1 cuda 2>&1 | tee "$O/device_test.txt" | tail -15
    local rows="$O/rows.md"
    : >"$rows"
    local W=$O/work
    for exe in "$B"/bin/*; do
        local name
        name=$(basename "$exe")
        case $name in *.seq) continue ;; esac
        if [ -n "${PROGRAMS:-}" ]; then
            local want=0 pat
            for pat in $PROGRAMS; do
                # shellcheck disable=SC2254
                case $name in $pat) want=1 ;; esac
            done
            [ "$want" = 1 ] || continue
        fi
        mkdir -p "$W/$name"
        local cells=() t rc
        # the sequential gfortran build (NPB), for its time
        if [ -x "$exe.seq" ]; then
            (cd "$W/$name" && timeout "$TIMEOUT" "$exe.seq" >"$O/$name.seq.out" 2>&1)
            rc=$?
            cells+=("$(verdict "$name" "$O/$name.seq.out" "$rc") $(grep -m1 -i 'time in seconds' "$O/$name.seq.out" | awk '{print $NF}')")
        else
            cells+=("-")
        fi
        for cfg in host cuda compare cuda-np2; do
            [[ " ${CONFIGS:-host cuda compare} " == *" $cfg "* ]] || { cells+=("-"); continue; }
            local env=(SAPFOR_NO_MPI=1 OMP_NUM_THREADS=1)
            local launch=()
            case $cfg in
            cuda) env+=(SAPFOR_DEVICES=cuda "SAPFOR_PROFILE=$O/$name.cuda.prof") ;;
            compare) env+=(SAPFOR_DEVICES=cuda SAPFOR_COMPARE=0,1e-9 "SAPFOR_PROFILE=$O/$name.compare.prof") ;;
            cuda-np2)
                # two processes sharing the GPU, started by the machine's mpirun
                # (MPI_LIB=system: the machine's own Open MPI libraries instead of the bundle's)
                env=(OMP_NUM_THREADS=1 SAPFOR_DEVICES=cuda)
                if [ "${MPI_LIB:-}" = system ]; then
                    mkdir -p "$O/lib-sys"
                    for l in "$B"/lib/*; do
                        case $(basename "$l") in libmpi* | libopen-* | libevent* | libhwloc*) ;; *) ln -sf "$l" "$O/lib-sys/" ;; esac
                    done
                    env+=("LD_LIBRARY_PATH=$O/lib-sys")
                fi
                launch=(mpirun --allow-run-as-root --oversubscribe -np 2 -x SAPFOR_DEVICES -x OMP_NUM_THREADS -x LD_LIBRARY_PATH)
                ;;
            esac
            local s0 s1
            s0=$(date +%s.%N)
            (cd "$W/$name" && env "${env[@]}" timeout "$TIMEOUT" "${launch[@]}" "$exe" >"$O/$name.$cfg.out" 2>"$O/$name.$cfg.err")
            rc=$?
            s1=$(date +%s.%N)
            t=$(grep -m1 -i 'time in seconds' "$O/$name.$cfg.out" | awk '{print $NF}')
            [ -n "$t" ] || t=$(awk -v a="$s0" -v b="$s1" 'BEGIN {printf "%.2f", b - a}')
            local v
            v=$(verdict "$name" "$O/$name.$cfg.out" "$rc")
            if [ "$cfg" = compare ]; then
                v="$v; $(grep -m1 -o '[0-9]* loops ran on the accelerator and on the host, [a-z0-9 ]*' "$O/$name.$cfg.err" |
                    sed 's/ ran on the accelerator and on the host,/ compared:/')"
            fi
            cells+=("$v ${t}s")
        done
        # the same output as here, on the host and on the emulator (NPB: but for its timings)
        local same=""
        for d in host emu; do
            if [ -f "$B/here/$name.$d.out" ] && [ -f "$O/$name.cuda.out" ]; then
                local n
                n=$(diff <(stable <"$B/here/$name.$d.out") <(stable <"$O/$name.cuda.out") | grep -c '^>')
                if [ "$n" = 0 ]; then same="$same $d=same"; else same="$same $d:$n-lines-differ"; fi
            fi
        done
        local k
        k=$(grep -m1 'accelerator total:' "$O/$name.cuda.prof" 2>/dev/null | sed 's/.*accelerator total: //')
        printf '| %s | %s | %s | %s | %s | %s |%s | %s |\n' "$name" "${cells[0]}" "${cells[1]}" "${cells[2]}" "${cells[3]}" "${cells[4]}" "$same" "${k:--}" | tee -a "$rows"
    done
    {
        cat "$O/machine.txt"
        echo
        echo "| program | sequential gfortran | host (no accelerator) | cuda | cuda + compare | cuda, 2 processes (mpirun) | cuda output against here |  cuda profile: accelerator total |"
        echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
        cat "$rows"
    } >"$O/summary.md"
}

case ${1:-} in
bundle) shift && bundle "$@" ;;
run) shift && run "$@" ;;
*) usage ;;
esac
