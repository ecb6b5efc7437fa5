# mk/package.mk - make install (PREFIX, DESTDIR; the paths of
# mk/build.mk) and make deb (the Debian package of debian/, into build/).

MANDIR     ?= $(PREFIX)/share/man
USERUNITDIR ?= $(PREFIX)/lib/systemd/user

# keyward and keyward-ctl into BINDIR, the helpers keyward starts into
# LIBEXECDIR (compiled into keyward). The service's ExecStart names
# /usr/bin/keyward; installed, it names BINDIR.
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(USERUNITDIR)
	install -m 0755 $(BUILD)/keyward $(DESTDIR)$(BINDIR)/keyward
	install -m 0755 $(BUILD)/keyward-ctl $(DESTDIR)$(BINDIR)/keyward-ctl
	install -m 0755 $(addprefix $(BUILD)/,$(HELPERS)) $(DESTDIR)$(LIBEXECDIR)/
	install -m 0644 doc/keyward.1 $(DESTDIR)$(MANDIR)/man1/keyward.1
	install -m 0644 doc/keyward-ctl.1 $(DESTDIR)$(MANDIR)/man1/keyward-ctl.1
	install -m 0644 doc/keyward.5 $(DESTDIR)$(MANDIR)/man5/keyward.5
	install -m 0644 doc/keyward.socket $(DESTDIR)$(USERUNITDIR)/keyward.socket
	sed 's|/usr/bin/keyward|$(BINDIR)/keyward|' doc/keyward.service \
		>$(DESTDIR)$(USERUNITDIR)/keyward.service
	chmod 0644 $(DESTDIR)$(USERUNITDIR)/keyward.service

# deb: the Debian package (debian/; it builds in debian/build with
# PREFIX=/usr). dpkg-buildpackage writes its results beside the tree: they
# are moved into build/, and debian/ is cleaned again.
deb:
	dpkg-buildpackage -us -uc -b
	@mkdir -p build
	v=$$(dpkg-parsechangelog -S Version); a=$$(dpkg --print-architecture); \
	for f in keyward_$${v}_$$a.deb keyward-dbgsym_$${v}_$$a.deb \
		keyward_$${v}_$$a.buildinfo keyward_$${v}_$$a.changes; do \
		if [ -e ../$$f ]; then mv -f ../$$f build/; fi; done; \
	ls -l build/keyward_$${v}_$$a.deb
	debian/rules clean

.PHONY: install deb
