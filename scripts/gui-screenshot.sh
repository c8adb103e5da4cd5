#!/usr/bin/env bash
# Take docs/gui.png: the real `sapfor gui` window on the Jacobi sample under a virtual X
# server, with loop IT (line 16) and its first dependence selected.
# Needs: xvfb xauth imagemagick xdotool libgl1-mesa-dri libegl-mesa0 (Debian), and a build
# with the GUI (`cargo build -p shell-gui --features gui`; SAPFOR=path overrides the binary).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sapfor="${SAPFOR:-$root/target/debug/sapfor}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/jacobi"
cp "$root/samples/jacobi/jac.f" "$work/jacobi/"
cd "$work/jacobi"
"$sapfor" --auto jac.f >/dev/null
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
# Window at 1280x800; the S mark of line 16 is at (28, 425), the first dependence at (940, 187).
xvfb-run -a -s "-screen 0 1280x800x24" bash -c "
  '$sapfor' gui & pid=\$!
  sleep 5
  xdotool mousemove 28 425 click 1; sleep 1
  xdotool mousemove 940 187 click 1; sleep 1
  xdotool mousemove 700 20; sleep 0.5
  import -window root '$root/docs/gui.png'
  kill \$pid"
echo "wrote $root/docs/gui.png"
