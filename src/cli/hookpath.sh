#!/bin/sh
# `hookpath` as npm installs it: sets up the process's memory, then runs bin.mjs with node.
#
# glibc's malloc is asked to back its large blocks with transparent huge pages (a tunable read
# only when a process starts, hence this script): a kube-proxy dump is read into a Buffer and
# copied into a string, 37 MB that were 9,000 first touches of a 4 kB page, each a fault that
# costs ~10 us on a virtual machine. With 2 MB pages, reading a 10,000-Service dump took 31
# instead of 130 ms, and the whole `--rules` parse 850 instead of 950 ms. Where transparent huge
# pages are off ("never") or on for every block ("always"), or without glibc (macOS, musl), the
# tunable changes nothing. launch-env.ts composes the same value for the bench, and
# hookpath-sh.test.ts checks that the two agree.
case ":${GLIBC_TUNABLES-}:" in
*:glibc.malloc.hugetlb=*) ;;
::) GLIBC_TUNABLES=glibc.malloc.hugetlb=1 ;;
*) GLIBC_TUNABLES=$GLIBC_TUNABLES:glibc.malloc.hugetlb=1 ;;
esac
export GLIBC_TUNABLES
# This file's own place, through the symlink npm puts on PATH (node_modules/.bin/hookpath).
self=$0
while [ -L "$self" ]; do
  link=$(readlink "$self")
  case $link in
  /*) self=$link ;;
  *) self=${self%/*}/$link ;;
  esac
done
case $self in
*/*) dir=${self%/*} ;;
*) dir=. ;;
esac
exec node "$dir/bin.mjs" "$@"
