#!/bin/sh
# Checks that a program linking only the probe library (the C API's test) holds no generator code
# and no TBB: no tbkit::gen or tbb symbol in it, no libtbb among its shared libraries.
# Usage: check_probe_link.sh PROGRAM
set -eu
exe=$1
symbols=$(nm -C "$exe")
count=$(printf '%s\n' "$symbols" | grep -c 'tbkit::probe::' || true)
if [ "$count" -eq 0 ]; then
  echo "$exe: no tbkit::probe symbol found; nm read nothing useful"
  exit 1
fi
bad=$(printf '%s\n' "$symbols" | grep -E 'tbkit::gen::|tbb::' || true)
if [ -n "$bad" ]; then
  echo "$exe links generator or TBB code:"
  printf '%s\n' "$bad" | head -20
  exit 1
fi
if ldd "$exe" | grep -q 'libtbb'; then
  echo "$exe loads libtbb:"
  ldd "$exe"
  exit 1
fi
echo "$exe: $count tbkit::probe symbols, no tbkit::gen or tbb symbol, no libtbb"
