#!/usr/bin/env python3
"""The source files of one NPB3.3-SER benchmark: its Makefile's OBJS with the make variables
filled in (used by bench/npb.sh and bench/gpu_check.sh).

    python3 bench/npb_objs.py NPB-DIR/BT/Makefile
"""
import os
import re
import sys

mk = open(sys.argv[1]).read().replace('\\\n', ' ')
objs = re.search(r'^OBJS\s*=(.*)$', mk, re.M).group(1).split()
here = os.path.dirname(sys.argv[1])
out = []
for o in objs:
    o = o.replace('${COMMON}', '../common').replace('$(VEC)', '').replace('${RAND}', 'randdp')[:-2]
    out.append(next((o + e for e in ('.f', '.c', '.f90') if os.path.exists(os.path.join(here, o + e))), o + '.f'))
print(' '.join(out))
