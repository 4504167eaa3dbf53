#!/usr/bin/env bash
# install.sh install|uninstall: what "make install" and "make uninstall" do.
#
# Environment: PREFIX (absolute), DESTDIR (staging root, may be empty),
# and for install BUILD (build or build/mpich), MPI (openmpi or mpich) and
# VERSION. Installed, under PREFIX:
#
#   lib/libgpumap.so.VERSION, .so.MAJOR, .so   the C library (soname .so.MAJOR)
#   lib/libgpumap.a                            the same as a static archive
#   lib/libgpumapf.a, include/gpumap.mod       the Fortran module (use gpumap)
#   include/gpumap.h
#   lib/pkgconfig/gpumap.pc, gpumap-fortran.pc
#   lib/cmake/gpumap/gpumapConfig.cmake, gpumapConfigVersion.cmake
#   lib/libgpumap_topo.so, lib/libgpumap_record.so   when they were built
#   bin/gpumap, share/man/man1/gpumap.1
#   share/gpumap/install-manifest.txt          every file, link and directory
#                                              install created, for uninstall
set -euo pipefail
cd "$(dirname "$0")/../.."

die() { echo "install.sh: $*" >&2; exit 1; }
[[ ${PREFIX:-} == /* ]] || die "PREFIX must be an absolute path, not '${PREFIX:-}'"
PREFIX=${PREFIX%/}
DESTDIR=${DESTDIR:-}
ROOT=$DESTDIR$PREFIX
MANIFEST=share/gpumap/install-manifest.txt

uninstall() {
  local m=$ROOT/$MANIFEST kind path dirs=()
  [[ -f $m ]] || die "no gpumap installation in $ROOT (no $MANIFEST)"
  while read -r kind path; do
    case $kind in
      f | l) rm -f "$DESTDIR$path" ;;
      d) dirs=("$DESTDIR$path" "${dirs[@]}") ;; # deepest last created, first removed
    esac
  done <"$m"
  for path in "${dirs[@]}"; do
    rmdir "$path" 2>/dev/null || echo "install.sh: kept $path (not empty)"
  done
  echo "gpumap: uninstalled from $ROOT"
}

[[ ${1:-} == uninstall ]] && { uninstall; exit; }
[[ ${1:-} == install ]] || die "usage: install.sh install|uninstall"
: "${BUILD:?}" "${MPI:?}" "${VERSION:?}"
MAJOR=${VERSION%%.*}
LIB=$BUILD/lib INC=$BUILD/include
for f in "$LIB/libgpumap.so.$VERSION" "$LIB/libgpumap.a" "$LIB/libgpumapf.a" "$INC/gpumap.h" "$INC/gpumap.mod" bin/gpumap; do
  [[ -f $f ]] || die "$f is missing: run make lib build first"
done
# A new install replaces an old one completely.
[[ -f $ROOT/$MANIFEST ]] && uninstall >/dev/null

case $MPI in
  openmpi) MPIPC=ompi-c MPIFC=mpifort.openmpi ;;
  mpich) MPIPC=mpich MPIFC=mpifort.mpich ;;
  *) die "MPI must be openmpi or mpich" ;;
esac

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
LOG=$TMP/manifest

mkd() { # an absolute directory (as installed) and its missing parents
  local d=$1
  [[ -d $DESTDIR$d ]] && return
  [[ -z $DESTDIR ]] || mkdir -p "$DESTDIR" # the staging area is the packager's
  mkd "$(dirname "$d")"
  mkdir "$DESTDIR$d"
  echo "d $d" >>"$LOG"
}
inst() { # mode src dst (dst relative to PREFIX)
  mkd "$(dirname "$PREFIX/$3")"
  install -m "$1" "$2" "$ROOT/$3"
  echo "f $PREFIX/$3" >>"$LOG"
}
lnk() { # target dst
  ln -sfn "$1" "$ROOT/$2"
  echo "l $PREFIX/$2" >>"$LOG"
}
subst() { # template -> $TMP/name
  sed -e "s|@PREFIX@|$PREFIX|g" -e "s|@VERSION@|$VERSION|g" -e "s|@MAJOR@|$MAJOR|g" \
    -e "s|@MPI@|$MPI|g" -e "s|@MPIPC@|$MPIPC|g" \
    -e "s|@MPIF_CFLAGS@|$MPIF_CFLAGS|g" -e "s|@MPIF_LIBS@|$MPIF_LIBS|g" "$1" >"$TMP/$(basename "${1%.in}")"
  echo "$TMP/$(basename "${1%.in}")"
}

# MPI's Fortran flags from its wrapper (pkg-config's ompi-fort lacks the
# module directory, MPICH has no Fortran .pc).
MPIF_CFLAGS="" MPIF_LIBS=""
for w in $($MPIFC -show 2>/dev/null || $MPIFC -showme); do
  case $w in
    -I*) MPIF_CFLAGS+=" $w" ;;
    -L* | -l* | -Wl,-rpath*) MPIF_LIBS+=" $w" ;;
  esac
done
MPIF_CFLAGS=${MPIF_CFLAGS# } MPIF_LIBS=${MPIF_LIBS# }

inst 755 "$LIB/libgpumap.so.$VERSION" "lib/libgpumap.so.$VERSION"
lnk "libgpumap.so.$VERSION" "lib/libgpumap.so.$MAJOR"
lnk "libgpumap.so.$MAJOR" lib/libgpumap.so
inst 644 "$LIB/libgpumap.a" lib/libgpumap.a
inst 644 "$LIB/libgpumapf.a" lib/libgpumapf.a
inst 644 "$INC/gpumap.h" include/gpumap.h
inst 644 "$INC/gpumap.mod" include/gpumap.mod
for so in libgpumap_topo.so libgpumap_record.so; do
  [[ -f $LIB/$so ]] && inst 755 "$LIB/$so" "lib/$so"
done
inst 644 "$(subst cabi/gpumap.pc.in)" lib/pkgconfig/gpumap.pc
inst 644 "$(subst cabi/gpumap-fortran.pc.in)" lib/pkgconfig/gpumap-fortran.pc
inst 644 "$(subst cabi/cmake/gpumapConfig.cmake.in)" lib/cmake/gpumap/gpumapConfig.cmake
inst 644 "$(subst cabi/cmake/gpumapConfigVersion.cmake.in)" lib/cmake/gpumap/gpumapConfigVersion.cmake
inst 755 bin/gpumap bin/gpumap
inst 644 cmd/gpumap/gpumap.1 share/man/man1/gpumap.1
mkd "$PREFIX/share/gpumap"
echo "f $PREFIX/$MANIFEST" >>"$LOG"
install -m 644 "$LOG" "$ROOT/$MANIFEST"
echo "gpumap $VERSION ($MPI): installed into $ROOT ($(grep -c '^[fl]' "$LOG") files; make uninstall PREFIX=$PREFIX${DESTDIR:+ DESTDIR=$DESTDIR} removes them)"
