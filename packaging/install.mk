# make install / make deb: Herd laid out as Slurm's Debian packages are.
# Included by the Makefile, which defines B, BINS and CLIENT_LINKS.
#
#   make install [PREFIX=/usr/local] [DESTDIR=]
#   make deb       build/herd_VERSION_ARCH.deb, from an install into build/deb
#
# PREFIX=/usr puts what Debian keeps outside /usr where Debian keeps it
# (/lib/systemd/system, /etc); any other prefix keeps everything under it.

PREFIX  ?= /usr/local
DESTDIR ?=
# The PAM module, once built (another part of the tree adds it): installed
# when this names an existing file.
PAM_MODULE ?=

HERD_VERSION := $(shell sed -n 's/^\#define HERD_VERSION "\(.*\)"/\1/p' src/client/version.h)
MULTIARCH    := $(shell $(CC) -print-multiarch 2>/dev/null)

ifeq ($(PREFIX),/usr)
UNITDIR    ?= /lib/systemd/system
SYSCONFDIR ?= /etc
PAMDIR     ?= /lib/$(MULTIARCH)/security
else
UNITDIR    ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR ?= $(PREFIX)/etc
PAMDIR     ?= $(PREFIX)/lib/security
endif
BINDIR     ?= $(PREFIX)/bin
SBINDIR    ?= $(PREFIX)/sbin
DATADIR    ?= $(PREFIX)/share/herd
DOCDIR     ?= $(PREFIX)/share/doc/herd
MANDIR     ?= $(PREFIX)/share/man
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d

INSTALL := install
D := $(DESTDIR)

# The manual pages: generated from each program's --help (packaging/mkman.sh),
# so that they say exactly what the program does.
MAN_OUT := $(B)/man

.PHONY: install man deb
man: all
	@packaging/mkman.sh $(B)/bin $(MAN_OUT) $(HERD_VERSION) $(CLIENT_LINKS)

install: all man
	$(INSTALL) -d $(D)$(BINDIR) $(D)$(SBINDIR) $(D)$(UNITDIR) $(D)$(DATADIR)/examples \
	  $(D)$(DOCDIR) $(D)$(MANDIR)/man1 $(D)$(MANDIR)/man8 $(D)$(SYSCONFDIR)/logrotate.d \
	  $(D)$(TMPFILESDIR)
	$(INSTALL) -m 0755 $(B)/bin/herd $(B)/bin/herd-sim $(D)$(BINDIR)/
	$(INSTALL) -m 0755 $(B)/bin/herdctld $(B)/bin/herdd $(D)$(SBINDIR)/
	@for l in $(CLIENT_LINKS); do ln -sf herd $(D)$(BINDIR)/$$l; done
	sed 's|/usr/sbin/|$(SBINDIR)/|' packaging/systemd/herdctld.service > $(D)$(UNITDIR)/herdctld.service
	sed 's|/usr/sbin/|$(SBINDIR)/|' packaging/systemd/herdd.service > $(D)$(UNITDIR)/herdd.service
	chmod 0644 $(D)$(UNITDIR)/herdctld.service $(D)$(UNITDIR)/herdd.service
	$(INSTALL) -m 0644 packaging/herd.logrotate $(D)$(SYSCONFDIR)/logrotate.d/herd
	$(INSTALL) -m 0644 packaging/herd.tmpfiles $(D)$(TMPFILESDIR)/herd.conf
	$(INSTALL) -m 0644 packaging/examples/slurm.conf packaging/examples/cgroup.conf \
	  packaging/examples/gres.conf $(D)$(DATADIR)/examples/
	$(INSTALL) -m 0644 README.md docs/*.md $(D)$(DOCDIR)/
	$(INSTALL) -m 0644 $(MAN_OUT)/*.1 $(D)$(MANDIR)/man1/
	$(INSTALL) -m 0644 $(MAN_OUT)/*.8 $(D)$(MANDIR)/man8/
	@if [ -n "$(PAM_MODULE)" ] && [ -f "$(PAM_MODULE)" ]; then \
	  echo "$(INSTALL) -D -m 0644 $(PAM_MODULE) $(D)$(PAMDIR)/$$(basename $(PAM_MODULE))"; \
	  $(INSTALL) -D -m 0644 $(PAM_MODULE) $(D)$(PAMDIR)/$$(basename $(PAM_MODULE)); \
	elif [ -n "$(PAM_MODULE)" ]; then echo "install: PAM_MODULE=$(PAM_MODULE) not built: skipped" >&2; fi

# A Debian package from a fresh install tree; dpkg-deb only, no network.
deb:
	rm -rf build/deb
	$(MAKE) install SAN= PREFIX=/usr DESTDIR=$(CURDIR)/build/deb/root
	packaging/debian/mkdeb.sh build/deb/root $(HERD_VERSION) build
