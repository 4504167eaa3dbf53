# make install / make uninstall (included by the Makefile). See
# cabi/install/install.sh for what goes where.
#
#   make install   [PREFIX=/usr/local] [DESTDIR=] [MPI=openmpi|mpich]
#   make uninstall [PREFIX=/usr/local] [DESTDIR=]
#
# uninstall removes exactly what install wrote, from the manifest that
# install leaves in PREFIX/share/gpumap.

PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: install uninstall

bin/gpumap: $(GOSRC)
	$(GO) build -o $@ ./cmd/gpumap

install: lib bin/gpumap
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" BUILD="$(BUILD)" MPI="$(MPI)" VERSION="$(VERSION)" \
	  cabi/install/install.sh install

uninstall:
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" cabi/install/install.sh uninstall
