#!/usr/bin/env bash
# Take docs/gui.png: the real `sapfor gui` window under a virtual X server on a project of the
# size of a real one (a main program and 20 subroutine files, 246 loops, generated here: the
# same shape as the GUI tests' `big_project`), after `sapfor --auto`: Find "do 80" goes to
# SUB01's big loop, its A mark selects it, and one group of its 128 dependences is open.
# Needs: xvfb xauth imagemagick xdotool libgl1-mesa-dri libegl-mesa0 (Debian), and a build
# with the GUI (`cargo build -p shell-gui --features gui`; SAPFOR=path overrides the binary).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sapfor="${SAPFOR:-$root/target/debug/sapfor}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
python3 - <<'PY'
decl = "      INTEGER N\n      PARAMETER (N = 40)\n      REAL A(N,N), B(N,N), C(N)\n      COMMON /FLD/ A, B, C\n"
main = "      PROGRAM BIG\n" + decl + "      REAL S\n      INTEGER I, J\n"
main += "      DO 10 J = 1, N\n      DO 10 I = 1, N\n         A(I,J) = I + J\n         B(I,J) = I - J\n   10 CONTINUE\n"
main += "      DO 20 I = 1, N\n         C(I) = I\n   20 CONTINUE\n"
for k in range(1, 21):
    main += f"      CALL SUB{k:02}(S)\n      PRINT *, {k}, S\n"
open("big.f", "w").write(main + "      END\n")
for k in range(1, 21):
    s = f"      SUBROUTINE SUB{k:02}(S)\n{decl}      REAL S, T, U\n      INTEGER I, J\n"
    s += f"      DO 10 J = 1, N\n      DO 10 I = 1, N\n         A(I,J) = B(I,J) * {k}\n   10 CONTINUE\n"
    s += "      S = 0.\n      DO 20 J = 2, N-1\n      DO 20 I = 2, N-1\n         S = S + A(I,J)\n   20 CONTINUE\n"
    s += "      DO 30 J = 2, N\n      DO 30 I = 1, N\n         B(I,J) = B(I,J-1) * 0.5 + A(I,J)\n   30 CONTINUE\n"
    s += "      DO 40 I = 2, N\n         C(I) = C(I-1) * 0.5 + C(I)\n   40 CONTINUE\n"
    s += "      DO 50 J = 2, N-1\n      DO 50 I = 2, N-1\n         B(I,J) = (A(I-1,J) + A(I+1,J) + A(I,J-1) + A(I,J+1)) * 0.25\n   50 CONTINUE\n"
    s += "      DO 60 I = 1, N\n         T = C(I) * 2\n         C(I) = T + 1\n   60 CONTINUE\n"
    s += "      DO 70 J = 1, N\n         DO 70 I = 1, N\n            A(I,J) = A(I,J) + C(J)\n   70 CONTINUE\n"
    if k == 1:
        s += "      DO 80 J = 2, N-1\n      DO 80 I = 2, N-1\n"
        for m in range(8):
            s += f"         A(I,J) = A(I-1,J) + A(I,J-1) + B(I+1,J) * {m}.\n         B(I,J) = B(I,J+1) + A(I+1,J) - B(I-1,J)\n"
        s += "   80 CONTINUE\n"
        s += "      DO 90 I = 1, N\n         T = C(I) + 1\n         U = T * 2\n         C(I) = U\n   90 CONTINUE\n      S = S + T + U\n"
    open(f"sub{k:02}.f", "w").write(s + "      END\n")
PY
"$sapfor" --auto ./*.f --out-dir par >/dev/null
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
# Window at 1280x800 (no window manager: the window is given the keyboard focus by hand).
# Find field (228, 51); after the jump line 36's A mark is at (124, 199); the first
# dependence group's header at (900, 343), its third row at (950, 412).
xvfb-run -a -s "-screen 0 1280x800x24" bash -c "
  '$sapfor' gui & pid=\$!
  sleep 6
  xdotool windowfocus \$(xdotool search --name sapfor | head -1); sleep 0.3
  xdotool mousemove 45 86 click 1; sleep 0.5
  xdotool mousemove 228 51 click 1; sleep 0.5
  xdotool type --delay 80 'do 80'; sleep 0.5; xdotool key Return; sleep 1
  xdotool mousemove 124 199 click 1; sleep 1
  xdotool mousemove 900 343 click 1; sleep 0.7
  xdotool mousemove 950 412 click 1; sleep 0.7
  xdotool mousemove 700 12; sleep 0.5
  import -window root '$root/docs/gui.png'
  kill \$pid"
echo "wrote $root/docs/gui.png"
